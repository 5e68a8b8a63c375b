package toxedit

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkStructuredBatch100 measures a 100-line structured batch with --yes: each line is
// proposed (load, checks, apply, validate, checkpoints) and saved as a new version.
func BenchmarkStructuredBatch100(b *testing.B) {
	h := newHarness(b)
	ctx := context.Background()
	list, err := h.ed.Profiles.List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		var lines strings.Builder
		for i := range 100 {
			n++
			fmt.Fprintf(&lines, `{"inci":%q,"payload":{"statements":[{"text":"Batch note %d","date":"2024-05-01"}],"dap":[{"value":%d}]}}`+"\n",
				list[i%len(list)].INCI, n, 1+n%99)
		}
		res, err := h.ed.BatchWith(ctx, strings.NewReader(lines.String()), BatchOptions{Yes: true})
		if err != nil || res.Applied != 100 {
			b.Fatalf("%v: applied %d, failed %d", err, res.Applied, res.Failed)
		}
	}
	if h.srv.Count("/api/chat") != 0 {
		b.Fatal("model calls in a structured batch")
	}
}

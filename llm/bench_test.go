package llm_test

import (
	"context"
	"testing"

	"warren/llm"
	"warren/llm/llmtest"
)

// BenchmarkStructured measures one structured call through the whole gateway (schema, request,
// streamed answer, extraction, validation, decoding, ledger) against llmtest at zero latency.
func BenchmarkStructured(b *testing.B) {
	srv := llmtest.New(b)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(b, srv.URL)
	run := llm.NewRun("bench", llm.Budget{}, func(llm.LedgerEntry) {})
	ctx := llm.WithRun(context.Background(), run)
	req := llm.Request{System: "Decide whether to follow the reference.", Prompt: "§ 6 Absatz 1 GefStoffV"}
	b.ReportAllocs()
	for b.Loop() {
		var v verdict
		if err := g.Structured(ctx, req, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStructuredParallel is the same call from parallel goroutines, within the per-host
// concurrency limit.
func BenchmarkStructuredParallel(b *testing.B) {
	srv := llmtest.New(b)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(b, srv.URL)
	req := llm.Request{Prompt: "§ 6 Absatz 1 GefStoffV"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var v verdict
			if err := g.Structured(context.Background(), req, &v); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEmbed measures a batch of 32 texts through /api/embed.
func BenchmarkEmbed(b *testing.B) {
	srv := llmtest.New(b)
	g := newGateway(b, srv.URL)
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = "Arsine is a highly toxic gas used as a dopant source in ion implantation."
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Embed(context.Background(), texts, nil); err != nil {
			b.Fatal(err)
		}
	}
}

package gasfill

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFillRowsPerMinute fills the sample table with the scripted reader answering after
// 200 ms, one row at a time versus four, and reports rows per minute and model calls per row.
func BenchmarkFillRowsPerMinute(b *testing.B) {
	for _, concurrency := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", concurrency), func(b *testing.B) {
			h := newHarness(b)
			scriptReader(b, h.srv, loadAnswerKey(b), new(atomic.Bool))
			h.srv.SetLatency(200 * time.Millisecond)
			h.filler.Options.Concurrency = concurrency
			rows, calls := 0, 0
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				table, err := h.tables.LoadTable(context.Background(), "sample") // the unfilled table each time
				if err != nil {
					b.Fatal(err)
				}
				results, err := h.filler.Fill(context.Background(), table, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range results {
					rows++
					calls += r.Calls
				}
			}
			b.ReportMetric(float64(rows)/time.Since(start).Minutes(), "rows/min")
			b.ReportMetric(float64(calls)/float64(rows), "calls/row")
		})
	}
}

package gasfill

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"warren/kb/hmis"
)

// BenchmarkFillRowsPerMinute fills the sample table with the scripted reader answering after
// 200 ms, one row at a time versus four, and reports rows per minute and model calls per row.
// Each finished row is saved through the gas store in its own transaction, as `warren gas
// fill` does, and that save is timed; putting the unfilled table back between iterations is
// not. The benchmark fails unless every row was saved and the store holds the cells written.
func BenchmarkFillRowsPerMinute(b *testing.B) {
	for _, concurrency := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", concurrency), func(b *testing.B) {
			ctx := context.Background()
			h := newHarness(b)
			scriptReader(b, h.srv, loadAnswerKey(b), new(atomic.Bool))
			h.srv.SetLatency(200 * time.Millisecond)
			h.filler.Options.Concurrency = concurrency
			rows, calls := 0, 0
			var saved, written atomic.Int64 // rows save from several goroutines at once
			var spent time.Duration
			for b.Loop() {
				b.StopTimer()
				if err := h.tables.SaveTable(ctx, h.table); err != nil { // the unfilled table again
					b.Fatal(err)
				}
				if err := h.tables.ClearHistory(ctx, h.table.Name); err != nil {
					b.Fatal(err)
				}
				before := fillCells(b, h.tables, h.table.Name)
				writtenBefore := written.Load()
				b.StartTimer()

				start := time.Now()
				table, err := h.tables.LoadTable(ctx, h.table.Name)
				if err != nil {
					b.Fatal(err)
				}
				results, err := h.filler.Fill(ctx, table, nil, func(r *RowResult) error {
					changes := make([]hmis.FillChange, len(r.Changes))
					for i, c := range r.Changes {
						changes[i] = hmis.FillChange{Field: c.Field, Before: c.Before, After: c.After, Reason: "fill: " + c.Reason}
					}
					w, err := h.tables.SaveFillRow(ctx, 0, table.Name, r.Row, changes)
					saved.Add(1)
					written.Add(int64(len(w)))
					return err
				})
				spent += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range results {
					rows++
					calls += r.Calls
				}

				b.StopTimer()
				if got, want := fillCells(b, h.tables, h.table.Name)-before, written.Load()-writtenBefore; want == 0 || int64(got) != want {
					b.Fatalf("the fill wrote %d cells, the store holds %d filled cells more than before", want, got)
				}
				b.StartTimer()
			}
			if saved.Load() != int64(rows) {
				b.Fatalf("%d rows worked, %d saved: every row must be saved through the store", rows, saved.Load())
			}
			b.ReportMetric(float64(rows)/spent.Minutes(), "rows/min")
			b.ReportMetric(float64(calls)/float64(rows), "calls/row")
			b.ReportMetric(float64(written.Load())/float64(b.N), "cells-saved/fill")
		})
	}
}

// fillCells counts the stored cells a fill set (filled or to review).
func fillCells(b *testing.B, tables *hmis.Store, name string) int {
	b.Helper()
	t, err := tables.LoadTable(context.Background(), name)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Status == hmis.StatusFilled || c.Status == hmis.StatusReview {
				n++
			}
		}
	}
	return n
}

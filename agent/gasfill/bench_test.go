package gasfill

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"warren/agent"
	"warren/gas"
)

// BenchmarkFillRowsPerMinute fills the sample table the way `warren gas fill` does (the fill
// run: rows worked up to the gateway's capacity at once, each taken, saved through the gas
// store in its own transaction and checkpointed in order) against scripted servers that answer
// after 200 ms and one request per slot at a time, as a real Ollama does. It runs three
// setups: one host of one slot, two hosts of one slot each, and one host of two slots; and
// reports each one's rows per minute and its speedup over the first. Putting the unfilled
// table back between fills is not timed. The benchmark fails unless every row was saved, the
// store holds the cells written, and every host answered.
func BenchmarkFillRowsPerMinute(b *testing.B) {
	setups := []struct {
		name  string
		slots []int
	}{{"1x1", []int{1}}, {"2x1", []int{1, 1}}, {"1x2", []int{2}}}
	spent := map[string]time.Duration{}
	rows, calls, cells, unsupported := 0, 0, 0, 0
	for b.Loop() {
		for _, setup := range setups {
			b.StopTimer()
			h := newHarness(b)
			servers := h.useHosts(b, 200*time.Millisecond, setup.slots...)
			for _, srv := range servers {
				scriptReader(b, srv, loadAnswerKey(b), new(atomic.Bool))
			}
			var ids []int
			for _, r := range h.table.Rows {
				ids = append(ids, r.ID)
			}
			run := "bench-" + setup.name
			r := h.runner(b, nil)
			r.Call = journaled(h, run)
			state := h.startState(b, ids)
			before := fillCells(b, h.tables, h.table.Name)
			b.StartTimer()

			start := time.Now()
			out, err := r.Start(context.Background(), run, "bench fill", state)
			spent[setup.name] += time.Since(start)

			b.StopTimer()
			if err != nil || out.Status != agent.StatusDone {
				b.Fatalf("%s: %+v %v", setup.name, out, err)
			}
			if len(state.Done) != len(ids) {
				b.Fatalf("%s: %d of %d rows done", setup.name, len(state.Done), len(ids))
			}
			written := 0
			for _, res := range state.Results {
				written += res.Filled
				if setup.name == "1x1" {
					rows++
					calls += res.Calls
					unsupported += res.Unsupported
				}
			}
			if got := fillCells(b, h.tables, h.table.Name) - before; written == 0 || got != written {
				b.Fatalf("%s: the fill wrote %d cells, the store holds %d filled cells more than before", setup.name, written, got)
			}
			if setup.name == "1x1" {
				cells += written
			}
			var answered []string
			for i, srv := range servers {
				n := srv.Count("/api/chat")
				if n == 0 {
					b.Fatalf("%s: host %d answered no request", setup.name, i+1)
				}
				answered = append(answered, fmt.Sprint(n))
			}
			b.Logf("%s: %d rows in %.1f s, chat requests per host %s", setup.name, len(ids), spent[setup.name].Seconds(), strings.Join(answered, " + "))
			b.StartTimer()
		}
	}
	perMinute := func(name string) float64 { return float64(rows) / spent[name].Minutes() }
	for _, setup := range setups {
		b.ReportMetric(perMinute(setup.name), "rows/min-"+setup.name)
	}
	b.ReportMetric(perMinute("2x1")/perMinute("1x1"), "speedup-2x1")
	b.ReportMetric(perMinute("1x2")/perMinute("1x1"), "speedup-1x2")
	b.ReportMetric(float64(calls)/float64(rows), "calls/row")
	b.ReportMetric(float64(cells)/float64(b.N), "cells-saved/fill")
	// Values no passage offered states, kept as unsupported (the reader's low-confidence guesses).
	b.ReportMetric(float64(unsupported)/float64(b.N), "unsupported/fill")
}

// fillCells counts the stored cells a fill set (filled or to review).
func fillCells(b testing.TB, tables *gas.Store, name string) int {
	b.Helper()
	t, err := tables.LoadTable(context.Background(), name)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Status == gas.StatusFilled || c.Status == gas.StatusReview {
				n++
			}
		}
	}
	return n
}

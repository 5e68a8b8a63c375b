package llm_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"warren/config"
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
	ctx := context.Background()
	req := llm.Request{Call: llm.Call{Run: run}, System: "Decide whether to follow the reference.", Prompt: "§ 6 Absatz 1 GefStoffV"}
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
		if _, err := g.Embed(context.Background(), llm.Call{}, texts, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGatewayThroughput is the gateway's throughput against servers that answer as a
// real Ollama does: each takes a fixed number of requests at once (llmtest slots), each
// request holding its slot for 200 ms, the rest queueing. Eight callers keep every slot busy.
// It compares one host of one slot, two hosts of one slot each, and one host of two slots;
// calls/s is the figure (the ideal is 5 per slot).
func BenchmarkGatewayThroughput(b *testing.B) {
	const latency, callers, perCaller = 200 * time.Millisecond, 8, 2
	for _, bc := range []struct {
		name         string
		hosts, slots int
	}{
		{"1 host x 1 slot", 1, 1},
		{"2 hosts x 1 slot", 2, 1},
		{"1 host x 2 slots", 1, 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var hosts []config.Host
			for range bc.hosts {
				srv := llmtest.New(b)
				srv.Handle(&llmtest.Rule{Replies: []string{"ok"}})
				srv.SetSlots(bc.slots)
				srv.SetLatency(latency)
				hosts = append(hosts, config.Host{URL: srv.URL, Slots: bc.slots})
			}
			g := newGateway(b, hosts[0].URL, func(c *config.Config) { c.Chat.Hosts = hosts })
			calls := 0
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range callers {
					wg.Go(func() {
						for i := range perCaller {
							if _, err := g.Text(context.Background(), llm.Request{Prompt: fmt.Sprint(w, i)}); err != nil {
								b.Error(err)
							}
						}
					})
				}
				wg.Wait()
				calls += callers * perCaller
			}
			b.ReportMetric(float64(calls)/time.Since(start).Seconds(), "calls/s")
		})
	}
}

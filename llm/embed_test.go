package llm_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
)

// Embedding batches go out as many at once as the embed role's hosts answer, and the vectors
// come back in the texts' order: the same at capacity 1 and 3, over one host or two.
func TestEmbedBatchesInParallelKeepTheirOrder(t *testing.T) {
	texts := make([]string, 23)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage %d about silane cylinder purging, word%d", i, i*7)
	}
	var results [][][]float32
	for _, slots := range [][]int{{1}, {2, 1}} {
		var servers []*llmtest.Server
		var hosts []config.Host
		for _, n := range slots {
			srv := llmtest.New(t)
			srv.SetSlots(n)
			srv.SetLatency(10 * time.Millisecond)
			servers = append(servers, srv)
			hosts = append(hosts, config.Host{URL: srv.URL, Slots: n})
		}
		g := newGateway(t, servers[0].URL, func(c *config.Config) {
			c.Ollama.EmbedBatchSize = 4
			c.Embed.Hosts = hosts
		})
		var progress []int
		vecs, err := g.Embed(context.Background(), llm.Call{}, texts, func(done int) { progress = append(progress, done) })
		if err != nil {
			t.Fatal(err)
		}
		if len(progress) != 6 || progress[5] != len(texts) || !slices.IsSorted(progress) {
			t.Errorf("hosts %v: progress %v, want six batches counted up to %d", slots, progress, len(texts))
		}
		requests := 0
		for i, srv := range servers {
			if peak := srv.PeakInFlight(); peak != slots[i] {
				t.Errorf("hosts %v: host %d answered at most %d batches at once, want %d", slots, i+1, peak, slots[i])
			}
			requests += srv.Count("/api/embed")
		}
		if requests != 6 {
			t.Errorf("hosts %v: %d requests for 23 texts in batches of 4, want 6", slots, requests)
		}
		for i, v := range vecs {
			if want := llmtest.Embed(texts[i], len(v)); !reflect.DeepEqual(v, want) {
				t.Fatalf("hosts %v: vector %d is not the embedding of text %d", slots, i, i)
			}
		}
		results = append(results, vecs)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Error("the vectors differ between capacity 1 and 3")
	}
}

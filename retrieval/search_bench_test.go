package retrieval

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/load"
)

// countedOnly is the store as a backend that cannot list its collections uncounted, as
// searches were planned before SearchableCollections.
type countedOnly struct {
	kb.Backend
	counted int
}

func (c *countedOnly) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	c.counted++
	return c.Backend.Collections(ctx)
}

// BenchmarkDenseSearch20kDocuments times a dense search through the Searcher over 20,000
// one-chunk documents in five collections (built-in vectors, exact scan): planned from the
// collections that hold chunks, and planned from the collections' counts, interleaved. It
// fails unless the first path counted nothing and the second counted once per search.
func BenchmarkDenseSearch20kDocuments(b *testing.B) {
	_, store := testkb.Empty(b)
	ctx := context.Background()
	for i := range 20_000 {
		doc := &load.Document{ID: fmt.Sprintf("d%05d", i), Collection: fmt.Sprintf("c%d", i%5), Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Number: "1", Text: fmt.Sprintf("alpha near beta w%d", i)}}}
		if _, err := store.AddDocument(ctx, doc, kb.Builtin{}, load.DefaultChunkOptions, nil); err != nil {
			b.Fatal(err)
		}
	}
	counts := &collectionCounts{Store: store}
	counted := &countedOnly{Backend: store}
	uncounted, fromCounts := &Searcher{Store: counts}, &Searcher{Store: counted}
	var fast, slow []time.Duration
	n := 0
	for b.Loop() {
		for _, s := range []*Searcher{uncounted, fromCounts} {
			t0 := time.Now()
			res, err := s.Search(ctx, Request{Query: fmt.Sprintf("alpha w%d", n), K: 10, Mode: Dense, Language: "en"})
			if err != nil || len(res) != 10 {
				b.Fatalf("dense search: %d results, %v", len(res), err)
			}
			if s == uncounted {
				fast = append(fast, time.Since(t0))
			} else {
				slow = append(slow, time.Since(t0))
			}
		}
		n++
	}
	b.StopTimer()
	if counts.counted != 0 || counted.counted != n {
		b.Fatalf("want no count on the first path and %d on the second, got %d and %d", n, counts.counted, counted.counted)
	}
	b.ReportMetric(msP50(fast), "uncounted-p50-ms")
	b.ReportMetric(msP50(slow), "counted-p50-ms")
}

func msP50(d []time.Duration) float64 {
	s := append([]time.Duration(nil), d...)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

package weaviatekb

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/retrieval"
)

// countingTransport counts the REST requests a backend makes.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// BenchmarkSampleQueries times the exact queries of the conformance suite on the sample
// workspace in Weaviate, one query per operation, over gRPC (when WARREN_WEAVIATE_GRPC is set)
// and over REST alone: lexical search with the figures of one earlier pass over the queries
// kept and with none kept (cold: every term counted on the server), dense search, and hybrid
// search as retrieval runs it (chunks read back). It reports the median and 95th percentile latency, the
// REST requests and the term counts one query makes.
func BenchmarkSampleQueries(b *testing.B) {
	opts := testServer(b)
	_, embedded, _ := testkb.Sample(b)
	wv := openTestBackend(b, opts)
	ingestInto(b, wv, registryItems(b, filepath.Join(testkb.SampleDir(), "registry.json")))
	queries := exactQueries(b, embedded)
	ctx := context.Background()
	vecs := make([][]float32, len(queries))
	for i, q := range queries {
		v, err := kb.Builtin{}.Embed(ctx, []string{q.text}, nil)
		if err != nil {
			b.Fatal(err)
		}
		vecs[i] = v[0]
	}
	transports := []string{"rest"}
	if opts.GRPC != "" {
		transports = []string{"grpc", "rest"}
	}
	for _, transport := range transports {
		var rest countingTransport
		backend := openAgain(b, wv, func(o *Options) {
			o.transport = &rest
			if transport == "rest" {
				o.GRPC = ""
			}
		})
		if (backend.rpc != nil) != (transport == "grpc") {
			b.Fatalf("%s: the backend's gRPC connection is %v", transport, backend.rpc)
		}
		searcher := &retrieval.Searcher{Store: backend}
		for _, mode := range []string{"lexical", "lexical-cold", "dense", "hybrid"} {
			b.Run(transport+"/"+mode, func(b *testing.B) {
				var lat []time.Duration
				found := 0
				query := func(i int) (n int, err error) {
					q := queries[i%len(queries)]
					switch mode {
					case "lexical", "lexical-cold":
						var h []chunk.Hit
						h, err = backend.Lexical(ctx, q.text, "", q.scope, 10)
						n = len(h)
					case "dense":
						var h []chunk.Hit
						h, err = backend.Dense(ctx, vecs[i%len(queries)], q.scope, 10)
						n = len(h)
					case "hybrid":
						var r []retrieval.Result
						r, err = searcher.Search(ctx, retrieval.Request{Query: q.text, Scope: q.scope, K: 10, Mode: retrieval.Hybrid})
						n = len(r)
					}
					return n, err
				}
				if mode != "lexical-cold" {
					for i := range queries { // what the searches keep, kept before the timing
						if _, err := query(i); err != nil {
							b.Fatal(err)
						}
					}
				}
				rest.n.Store(0)
				counted := backend.termCounts.Load()
				b.ResetTimer()
				for i := range b.N {
					if mode == "lexical-cold" {
						backend.cache.invalidate()
					}
					start := time.Now()
					n, err := query(i)
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					if n > 0 {
						found++
					}
				}
				b.StopTimer()
				counts := float64(backend.termCounts.Load()-counted) / float64(b.N)
				// Cold searches count their terms on the server; after a pass over the same
				// queries, searches use what was kept.
				if found < b.N*9/10 || mode == "lexical-cold" && counts == 0 || mode == "lexical" && counts > 1 {
					b.Fatalf("%s: %d of %d queries found something, %.1f term counts a query", mode, found, b.N, counts)
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
				b.ReportMetric(float64(rest.n.Load())/float64(b.N), "rest-requests/query")
				b.ReportMetric(counts, "term-counts/query")
			})
		}
	}
}

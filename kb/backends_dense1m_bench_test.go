//go:build weaviate

package kb_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/kb/vectors"
)

// BenchmarkBackendsDense1M sets Weaviate's HNSW index beside the embedded store's at
// 1,000,000 chunks × 384 dimensions: the vectors of kb's BenchmarkDense1M (clustered,
// deterministic, 100 chunks per document), the same 100 queries on both, and recall@10 of each
// against one exact scan of all the vectors, computed first.
//
//	embedded  the vector files and graph written as the embedded store writes them, opened,
//	          then the queries through the graph (HasGraph and the row count prove it)
//	weaviate  every document ingested into the server (chunked, stored with its vectors and
//	          analysed terms) and counted there, then the queries through kb.Backend.Dense,
//	          which the server counts as one vector search of the class each
//
// It takes most of an hour and several gigabytes, so it runs only when WARREN_BENCH_1M is set;
// WARREN_BENCH_VECTORS=n runs it at n chunks instead (a multiple of 100), to try it out.
func BenchmarkBackendsDense1M(b *testing.B) {
	n := millionChunks
	if v := os.Getenv("WARREN_BENCH_VECTORS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 || n%100 != 0 {
			b.Fatalf("WARREN_BENCH_VECTORS=%q: want a multiple of 100 from 1000 on", v)
		}
	} else if os.Getenv("WARREN_BENCH_1M") == "" {
		b.Skip("set WARREN_BENCH_1M=1 (or WARREN_BENCH_VECTORS=n) to run")
	}
	server := benchServer(b)
	gen := topical{seed: 13, dim: millionDim, perDoc: 100}
	t0 := time.Now()
	data := gen.corpus(n)
	docs := make([]*load.Document, n/gen.perDoc)
	ids := make([]string, 0, n)
	voc := newVocabulary(mrand.New(mrand.NewPCG(5, 6)))
	for d := range docs {
		doc := &load.Document{ID: fmt.Sprintf("doc%05d", d), Collection: "million", Language: "en", Meta: map[string]string{}}
		for i := range gen.perDoc {
			doc.Sections = append(doc.Sections, load.Section{Number: fmt.Sprint(i + 1), Text: voc.text(8)})
			ids = append(ids, chunk.ID(doc.ID, i)) // as the chunker numbers one chunk a section
		}
		docs[d] = doc
	}
	queries := make([][]float32, millionQuery)
	for q := range queries {
		queries[q] = gen.query(q+1, n)
	}
	b.Logf("%d chunks × %d dimensions generated in %.0f s", n, millionDim, time.Since(t0).Seconds())

	// The ground truth: an exact scan of every vector, without a graph.
	exactDir := b.TempDir()
	if _, err := vectors.WriteCollection(exactDir, "exact", millionDim, 1, data, ids, n+1); err != nil {
		b.Fatal(err)
	}
	exact, err := vectors.OpenCollection(exactDir, "exact", 1)
	if err != nil || exact.HasGraph() || exact.Rows() != n {
		b.Fatalf("the exact scan must read %d rows and no graph (%v)", n, err)
	}
	truth := make([][]chunk.Hit, len(queries))
	var scans []time.Duration
	for q, v := range queries {
		t := time.Now()
		truth[q] = exact.Exact(v, 10)
		scans = append(scans, time.Since(t))
	}
	exact = nil
	os.RemoveAll(exactDir)
	recall := func(got [][]chunk.Hit) float64 {
		found, want := 0, 0
		for q := range truth {
			found += overlap(got[q], truth[q])
			want += len(truth[q])
		}
		return float64(found) / float64(want)
	}

	b.Run("embedded", func(b *testing.B) {
		dir := b.TempDir()
		build, err := vectors.WriteCollection(dir, "million", millionDim, 1, data, ids, 0)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		r, err := vectors.OpenCollection(dir, "million", 1)
		if err != nil {
			b.Fatal(err)
		}
		if !r.HasGraph() || r.Rows() != n {
			b.Fatalf("the graph must be read from its file and cover all %d rows (rows %d)", n, r.Rows())
		}
		r.Search(queries[0], 10) // searchable: the first answer is in
		open := time.Since(t0)
		var took []time.Duration
		got := make([][]chunk.Hit, len(queries))
		for b.Loop() {
			took = took[:0]
			for q, v := range queries {
				t := time.Now()
				got[q] = r.Search(v, 10)
				took = append(took, time.Since(t))
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(n), "chunks")
		b.ReportMetric(build.Seconds(), "build-s")
		b.ReportMetric(open.Seconds(), "open-s")
		b.ReportMetric(ms(percentile(took, 0.5)), "index-p50-ms")
		b.ReportMetric(ms(percentile(took, 0.95)), "index-p95-ms")
		b.ReportMetric(ms(percentile(scans, 0.5)), "exact-p50-ms")
		b.ReportMetric(recall(got), "recall@10")
	})

	b.Run("weaviate", func(b *testing.B) {
		c := newTarget(b, kb.BackendWeaviate, "million", func() weaviateServer { return server })
		defer func() {
			if err := c.close(); err != nil {
				b.Error(err)
			}
		}()
		ingest := c.ingest(b, docs, data, millionDim)
		c.verifyStored(b, func() weaviateServer { return server }, len(docs), n)
		b.Logf("%s: %s", c.class, server.hnswConfig(b, c.class))
		ctx := context.Background()
		before := server.queries(b, c.class, millionDim)
		var took []time.Duration
		got := make([][]chunk.Hit, len(queries))
		runs := 0
		for b.Loop() {
			took = took[:0]
			for q, v := range queries {
				t := time.Now()
				hits, err := c.backend.Dense(ctx, v, chunk.Scope{}, 10)
				if err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
				got[q] = hits
			}
			runs++
		}
		b.StopTimer()
		after := server.queries(b, c.class, millionDim)
		if searches := after.vectorSearches - before.vectorSearches; searches != float64(runs*len(queries)) {
			b.Fatalf("the server counted %.0f vector searches on %s, not %d", searches, c.class, runs*len(queries))
		}
		b.ReportMetric(float64(n), "chunks")
		b.ReportMetric(ingest.Seconds(), "ingest-s")
		b.ReportMetric(float64(n)/ingest.Seconds(), "chunks/s")
		b.ReportMetric(ms(percentile(took, 0.5)), "index-p50-ms")
		b.ReportMetric(ms(percentile(took, 0.95)), "index-p95-ms")
		b.ReportMetric(ms(percentile(scans, 0.5)), "exact-p50-ms")
		b.ReportMetric(recall(got), "recall@10")
	})
}

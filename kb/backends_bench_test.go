//go:build weaviate

package kb_test

// The benchmarks of this file set the two backends side by side in one run: the embedded store
// and a Weaviate server that scripts/e2e-weaviate.sh --bench starts (make bench-weaviate, make
// bench-weaviate-1m). They are built only with -tags weaviate, so `make test` and `make bench`
// neither compile nor run them, and the kb test binary carries no Weaviate client otherwise.
//
// Each proves the path it names from the server's side as well as warren's: the chunks
// written are counted by Weaviate itself (GraphQL Aggregate), and its Prometheus counters
// (WARREN_WEAVIATE_METRICS, which the script enables on its bench node) count the vector
// searches and Get queries that reached the chunk class.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"warren/config"
	"warren/kb"
	"warren/kb/lexical"
	"warren/kb/load"
	"warren/kb/vectors"
	"warren/kb/weaviatekb"
	"warren/retrieval"
)

// benchQueries is how many queries one run of a query benchmark times.
const benchQueries = 100

// rowEmbedder hands out the rows of a slab of vectors in order, as if it had embedded the
// texts it is given: the benchmarks measure storing and searching, not embedding.
type rowEmbedder struct {
	dim  int
	data []float32
	next int
}

func (e *rowEmbedder) ID() string { return fmt.Sprintf("bench:%d", e.dim) }
func (e *rowEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		if (e.next+1)*e.dim > len(e.data) {
			return nil, fmt.Errorf("asked for more than the %d vectors prepared", len(e.data)/e.dim)
		}
		out[i] = e.data[e.next*e.dim : (e.next+1)*e.dim]
		e.next++
	}
	return out, nil
}

// weaviateServer is the server the script started, with its metrics endpoint.
type weaviateServer struct {
	url, grpc, metrics string
}

func benchServer(b *testing.B) weaviateServer {
	b.Helper()
	s := weaviateServer{url: os.Getenv("WARREN_WEAVIATE_URL"), grpc: os.Getenv("WARREN_WEAVIATE_GRPC"),
		metrics: os.Getenv("WARREN_WEAVIATE_METRICS")}
	if s.url == "" || s.metrics == "" {
		b.Fatal("WARREN_WEAVIATE_URL and WARREN_WEAVIATE_METRICS are not set: run these benchmarks with make bench-weaviate, which starts the server")
	}
	return s
}

// chunkClass is the class the backend keeps a collection's chunks in (a collection name with
// neither '_' nor '-'); a wrong name fails the counts below rather than passing unseen.
func chunkClass(prefix, collection string) string {
	return prefix + "Chunks_" + collection
}

// request sends a REST request to the server and decodes its JSON answer.
func (s weaviateServer) request(method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	rd := bytes.NewReader(raw)
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// objectCount asks the server itself how many objects a class holds.
func (s weaviateServer) objectCount(b *testing.B, class string) int {
	b.Helper()
	var out struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct{ Count int } `json:"meta"`
			}
		}
		Errors []struct{ Message string }
	}
	q := fmt.Sprintf("{ Aggregate { %s { meta { count } } } }", class)
	if err := s.request(http.MethodPost, "/v1/graphql", map[string]string{"query": q}, &out); err != nil || len(out.Errors) > 0 {
		b.Fatalf("couldn't count %s on the server: %v %v", class, err, out.Errors)
	}
	if len(out.Data.Aggregate[class]) != 1 {
		b.Fatalf("the server has no class %s", class)
	}
	return out.Data.Aggregate[class][0].Meta.Count
}

// hnswConfig reads a class's vector index from the server's schema and fails unless it is HNSW.
func (s weaviateServer) hnswConfig(b *testing.B, class string) string {
	b.Helper()
	var c struct {
		VectorIndexType   string         `json:"vectorIndexType"`
		VectorIndexConfig map[string]any `json:"vectorIndexConfig"`
	}
	if err := s.request(http.MethodGet, "/v1/schema/"+class, nil, &c); err != nil {
		b.Fatalf("couldn't read the schema of %s: %v", class, err)
	}
	if c.VectorIndexType != "hnsw" {
		b.Fatalf("%s's vector index is %q, not hnsw", class, c.VectorIndexType)
	}
	v := c.VectorIndexConfig
	return fmt.Sprintf("distance %v, ef %v (dynamic %v to %v, factor %v), efConstruction %v, maxConnections %v",
		v["distance"], v["ef"], v["dynamicEfMin"], v["dynamicEfMax"], v["dynamicEfFactor"], v["efConstruction"], v["maxConnections"])
}

// classQueries are what the server counted for one class: vector searches (from the query
// dimensions it adds up per search) and GraphQL Get queries of any kind.
type classQueries struct{ vectorSearches, gets float64 }

func (s weaviateServer) queries(b *testing.B, class string, dim int) classQueries {
	b.Helper()
	resp, err := http.Get(s.metrics)
	if err != nil {
		b.Fatalf("couldn't read the server's metrics: %v", err)
	}
	defer resp.Body.Close()
	var q classQueries
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, labels, value, ok := parseSample(sc.Text())
		if !ok || labels["class_name"] != class {
			continue
		}
		switch {
		case name == "query_dimensions_total" && labels["operation"] == "nearVector":
			q.vectorSearches += value / float64(dim)
		case name == "queries_durations_ms_count" && labels["query_type"] == "get_graphql":
			q.gets += value
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatalf("couldn't read the server's metrics: %v", err)
	}
	return q
}

// parseSample reads one sample line of the Prometheus text format: name{k="v",...} value.
func parseSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	if line == "" || line[0] == '#' {
		return "", nil, 0, false
	}
	open, end := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	if open < 0 || end < open {
		return "", nil, 0, false
	}
	name, labels = line[:open], map[string]string{}
	for _, pair := range strings.Split(line[open+1:end], ",") {
		k, v, found := strings.Cut(pair, "=")
		if found {
			labels[k] = strings.Trim(v, `"`)
		}
	}
	fields := strings.Fields(line[end+1:])
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	value, err := strconv.ParseFloat(fields[0], 64)
	return name, labels, value, err == nil
}

// backendCorpus is a knowledge base in one backend, its chunks in one collection.
type backendCorpus struct {
	backend    kb.Backend
	collection string
	store      *kb.Store // the embedded one, for its counters
	class      string    // Weaviate's chunk class
	close      func() error
}

// benchDocuments are the documents of kb's 100,000-chunk workspace (buildBenchWorkspace):
// the same vocabulary and sections, so both backends hold what the embedded benchmarks search.
func benchDocuments() []*load.Document {
	voc := newVocabulary(mrand.New(mrand.NewPCG(1, 2)))
	perDoc := benchChunks / benchDocs
	docs := make([]*load.Document, benchDocs)
	for d := range docs {
		secs := make([]load.Section, perDoc)
		for i := range secs {
			secs[i] = load.Section{Number: fmt.Sprint(i + 1), Heading: voc.text(3), Text: voc.text(40)}
		}
		docs[d] = &load.Document{ID: fmt.Sprintf("doc%03d", d), Collection: "bench", Language: "en", Meta: map[string]string{}, Sections: secs}
	}
	return docs
}

// newTarget opens an empty knowledge base of the given kind, whose chunks will be in the
// given collection.
func newTarget(b *testing.B, kind, collection string, server func() weaviateServer) *backendCorpus {
	b.Helper()
	if kind == kb.BackendWeaviate {
		s := server()
		var suffix [4]byte
		rand.Read(suffix[:])
		prefix := "WarrenBench" + hex.EncodeToString(suffix[:])
		w, err := weaviatekb.Open(context.Background(), weaviatekb.Options{URL: s.url, GRPC: s.grpc, ClassPrefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		return &backendCorpus{backend: w, collection: collection, class: chunkClass(prefix, collection),
			close: func() error { return w.DropAll(context.Background()) }}
	}
	dir, err := os.MkdirTemp("", "warren-backends-*")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := kb.Init(dir, kb.Migrations); err != nil {
		b.Fatal(err)
	}
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		b.Fatal(err)
	}
	store := kb.NewStore(ws)
	return &backendCorpus{backend: store, collection: collection, store: store, close: func() error {
		ws.Close()
		return os.RemoveAll(dir)
	}}
}

// ingest stores documents with their vectors (dim long, one per chunk in order), as an ingest
// does after loading (chunk, embed, store, flush), and returns how long it took.
func (c *backendCorpus) ingest(b *testing.B, docs []*load.Document, vectors []float32, dim int) time.Duration {
	b.Helper()
	ctx := context.Background()
	emb := &rowEmbedder{dim: dim, data: vectors}
	start := time.Now()
	if err := c.backend.Prepare(ctx); err != nil {
		b.Fatal(err)
	}
	for _, d := range docs {
		if _, err := kb.AddDocument(ctx, c.backend, d, emb, load.DefaultChunkOptions, nil); err != nil {
			b.Fatalf("couldn't store %s in the %s backend: %v", d.ID, c.backend.Kind(), err)
		}
	}
	if err := c.backend.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	if emb.next*dim != len(vectors) {
		b.Fatalf("the documents made %d chunks, not %d", emb.next, len(vectors)/dim)
	}
	return took
}

// verifyStored fails unless the backend records every chunk and document, and for Weaviate
// unless the server itself counts every chunk.
func (c *backendCorpus) verifyStored(b *testing.B, server func() weaviateServer, docs, chunks int) {
	b.Helper()
	info, ok, err := c.backend.Collection(context.Background(), c.collection)
	if err != nil || !ok || info.Chunks != chunks || info.Documents != docs {
		b.Fatalf("the %s backend records %+v (%v), not %d chunks in %d documents", c.backend.Kind(), info, err, chunks, docs)
	}
	if c.store == nil {
		if n := server().objectCount(b, c.class); n != chunks {
			b.Fatalf("the server holds %d objects in %s, not %d", n, c.class, chunks)
		}
	}
}

// BenchmarkBackends100k ingests kb's 100,000-chunk benchmark corpus (100 documents, 768
// dimensions, the vectors given) into each backend and then times queries over it, the
// embedded store and Weaviate in the same run:
//
//	ingest/<backend>  chunks per second from documents to a searchable knowledge base
//	                  (the embedded store's vector snapshot and graph written)
//	dense/<backend>   100 dense queries through retrieval.Searcher (the chunks fetched too)
//	hybrid/<backend>  the same 100 queries, hybrid, with four content words each
//
// Each query benchmark answers one query before it times the 100 (reading the embedded
// store's lexical index; for Weaviate's hybrid queries, reading its term table, which a
// second query confirms, and every timed query must take its frequencies from it). No embedding model is involved: vectors and query vectors are
// computed in advance.
func BenchmarkBackends100k(b *testing.B) {
	var srv *weaviateServer
	server := func() weaviateServer {
		if srv == nil {
			s := benchServer(b)
			srv = &s
		}
		return *srv
	}
	docs := benchDocuments()
	vectors := benchVectors.corpus(benchChunks)
	corpora := map[string]*backendCorpus{}
	b.Cleanup(func() {
		for _, c := range corpora {
			if err := c.close(); err != nil {
				b.Errorf("couldn't remove a benchmark knowledge base: %v", err)
			}
		}
	})
	corpus := func(b *testing.B, kind string) *backendCorpus {
		if c := corpora[kind]; c != nil {
			return c
		}
		c := newTarget(b, kind, "bench", server)
		c.ingest(b, docs, vectors, benchDim)
		c.verifyStored(b, server, benchDocs, benchChunks)
		corpora[kind] = c
		return c
	}
	kinds := []string{kb.BackendEmbedded, kb.BackendWeaviate}
	for _, kind := range kinds {
		b.Run("ingest/"+kind, func(b *testing.B) {
			var took time.Duration
			var c *backendCorpus
			for b.Loop() {
				if c != nil {
					if err := c.close(); err != nil {
						b.Fatal(err)
					}
				}
				c = newTarget(b, kind, "bench", server)
				took = c.ingest(b, docs, vectors, benchDim)
			}
			b.StopTimer()
			c.verifyStored(b, server, benchDocs, benchChunks)
			if old := corpora[kind]; old != nil {
				if err := old.close(); err != nil {
					b.Fatal(err)
				}
			}
			corpora[kind] = c
			if c.store != nil {
				if st := c.store.VectorStats(); st.GraphsBuilt == 0 {
					b.Fatalf("the embedded ingest must build the collection's graph: %+v", st)
				}
			} else {
				b.Logf("%s: %s", c.class, server().hnswConfig(b, c.class))
			}
			b.ReportMetric(float64(benchChunks)/took.Seconds(), "chunks/s")
			b.ReportMetric(took.Seconds(), "ingest-s")
		})
	}
	for _, mode := range []retrieval.Mode{retrieval.Dense, retrieval.Hybrid} {
		for _, kind := range kinds {
			b.Run(string(mode)+"/"+kind, func(b *testing.B) {
				benchmarkBackendQueries(b, corpus(b, kind), mode, server)
			})
		}
	}
}

// benchmarkBackendQueries times benchQueries searches of one mode, after one untimed, and
// fails unless each went where it should: for the embedded store through its graph (and for
// hybrid its lexical index), for Weaviate to the server, which counts a vector search of
// the chunk class for each and, for hybrid, more Get queries than those (the lexical half).
func benchmarkBackendQueries(b *testing.B, c *backendCorpus, mode retrieval.Mode, server func() weaviateServer) {
	ctx := context.Background()
	var query []float32
	s := &retrieval.Searcher{Store: c.backend, Embedder: func(string) (kb.Embedder, error) {
		return fixedEmbedder{next: func() []float32 { return query }}, nil
	}}
	voc := newVocabulary(mrand.New(mrand.NewPCG(3, 4))) // the same queries on every backend
	var took []time.Duration
	search := func(q int) time.Duration {
		query = benchVectors.query(q, benchChunks)
		text := voc.query(4)
		t0 := time.Now()
		res, err := s.Search(ctx, retrieval.Request{Query: text, K: 10, Mode: mode, Language: "en"})
		d := time.Since(t0)
		if err != nil || len(res) == 0 {
			sofar := "no timed query before it"
			if len(took) > 0 {
				sofar = fmt.Sprintf("the %d timed before it took p50 %.1f ms, the slowest %.1f ms", len(took), ms(percentile(took, 0.5)), ms(percentile(took, 1)))
			}
			b.Fatalf("%s query %d on %s: %d results after %.1f s (%s): %v", mode, q, c.backend.Kind(), len(res), d.Seconds(), sofar, err)
		}
		return d
	}
	search(benchQueries) // a query of its own, outside the timed ones
	wv, _ := c.backend.(*weaviatekb.Backend)
	if wv != nil && mode == retrieval.Hybrid {
		// Weaviate's term table is read once the list of collections has stayed the same for
		// a moment after the ingest, and confirmed by a later search's list read; the timed
		// queries take their frequencies from it.
		deadline := time.Now().Add(2 * time.Minute)
		for used := wv.TermTableStats().Used; wv.TermTableStats().Used == used; {
			if time.Now().After(deadline) {
				b.Fatalf("no query used the term table within 2 minutes: %+v", wv.TermTableStats())
			}
			time.Sleep(200 * time.Millisecond)
			search(benchQueries + 1)
			if err := wv.WaitTermTable(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	var vec vectors.Stats
	var lexBefore lexical.Stats
	var before classQueries
	var table weaviatekb.TermTableStats
	if c.store != nil {
		vec, lexBefore = c.store.VectorStats(), c.store.LexicalStats()
	} else {
		before = server().queries(b, c.class, benchDim)
		table = wv.TermTableStats()
	}
	n := 0
	for b.Loop() {
		for q := range benchQueries {
			took = append(took, search(q))
			n++
		}
	}
	b.StopTimer()
	if c.store != nil {
		st, lex := c.store.VectorStats(), c.store.LexicalStats()
		if st.IndexQueries-vec.IndexQueries != int64(n) || st.ScanQueries != vec.ScanQueries {
			b.Fatalf("every query's dense ranking must go through the embedded graph: %+v before, %+v after", vec, st)
		}
		if want := map[retrieval.Mode]int64{retrieval.Dense: 0, retrieval.Hybrid: int64(n)}[mode]; lex.Searches-lexBefore.Searches != want || lex.Loads != lexBefore.Loads {
			b.Fatalf("want %d lexical searches of the index in memory, read before: %+v before, %+v after", want, lexBefore, lex)
		}
	} else {
		after := server().queries(b, c.class, benchDim)
		searches, gets := after.vectorSearches-before.vectorSearches, after.gets-before.gets
		if searches < float64(n) || mode == retrieval.Hybrid && gets <= searches {
			b.Fatalf("the server counted %.0f vector searches and %.0f Get queries on %s for %d %s queries", searches, gets, c.class, n, mode)
		}
		if used := wv.TermTableStats().Used - table.Used; mode == retrieval.Hybrid && used < int64(n) {
			b.Fatalf("%d of %d hybrid queries took their frequencies from the term table: %+v", used, n, wv.TermTableStats())
		}
		b.ReportMetric(searches/float64(n), "server-vector-searches/query")
		b.ReportMetric(gets/float64(n), "server-gets/query")
	}
	b.ReportMetric(ms(percentile(took, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(took, 0.95)), "p95-ms")
}

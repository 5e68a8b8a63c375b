package kb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
	"warren/internal/shareddata"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/kb/vectors"
	"warren/registry"
	"warren/retrieval"
)

const (
	benchChunks = 100_000
	benchDim    = 768
	benchDocs   = 100
)

// topical generates deterministic, clustered unit vectors shaped like chunk embeddings:
// chunk i belongs to document i/perDoc, to a section of ten chunks in it, and through its
// document to one of fifty topics; its vector is an equal mix of its topic's, document's and
// section's directions and its own noise. Chunks of one section come out about 0.75 apart
// in cosine, of one document 0.5, of one topic 0.25, others near 0. A query is drawn like
// a chunk of a random section, so it has true neighbours, as an analyst's question does.
type topical struct {
	seed        uint64
	dim, perDoc int
}

func (t topical) unit(kind, n uint64) []float32 {
	r := rand.New(rand.NewPCG(t.seed^kind*0x9e3779b97f4a7c15, n))
	v := make([]float32, t.dim)
	var s float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) / s)
	}
	return v
}

// chunk returns the vector of chunk i, or (query ≥ 0) of query number query drawn near
// chunk i's section.
func (t topical) chunk(i, query int) []float32 {
	d, s := i/t.perDoc, (i%t.perDoc)/10
	noise := t.unit(4, uint64(i))
	if query >= 0 {
		noise = t.unit(5, uint64(query))
	}
	return t.mix(t.unit(1, uint64(d%50)), t.unit(2, uint64(d)), t.unit(3, uint64(d)<<20|uint64(s)), noise)
}

func (t topical) mix(parts ...[]float32) []float32 {
	v := make([]float32, t.dim)
	var s float64
	for i := range v {
		for _, p := range parts {
			v[i] += p[i]
		}
		s += float64(v[i]) * float64(v[i])
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) / s)
	}
	return v
}

// query is the vector of query number q, near a chunk drawn from n.
func (t topical) query(q, n int) []float32 {
	r := rand.New(rand.NewPCG(t.seed, uint64(q)+1<<40))
	return t.chunk(r.IntN(n), q)
}

// corpus fills n rows, in parallel: the topic, document and section directions are drawn
// once each.
func (t topical) corpus(n int) []float32 {
	data := make([]float32, n*t.dim)
	var wg sync.WaitGroup
	workers := 4
	docs := (n + t.perDoc - 1) / t.perDoc
	for w := range workers {
		wg.Go(func() {
			for d := w; d < docs; d += workers {
				topic, doc := t.unit(1, uint64(d%50)), t.unit(2, uint64(d))
				var section []float32
				for i := d * t.perDoc; i < min(n, (d+1)*t.perDoc); i++ {
					if (i%t.perDoc)%10 == 0 {
						section = t.unit(3, uint64(d)<<20|uint64((i%t.perDoc)/10))
					}
					copy(data[i*t.dim:], t.mix(topic, doc, section, t.unit(4, uint64(i))))
				}
			}
		})
	}
	wg.Wait()
	return data
}

var benchVectors = topical{seed: 7, dim: benchDim, perDoc: benchChunks / benchDocs}

// fixedEmbedder hands out precomputed vectors: the benchmarks measure search, not embedding.
type fixedEmbedder struct{ next func() []float32 }

func (f fixedEmbedder) ID() string { return fmt.Sprintf("bench:%d", benchDim) }
func (f fixedEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.next()
	}
	return out, nil
}

// vocabulary is a Zipf-distributed word list, so term statistics look like analysed text:
// a few very frequent terms and a long tail.
type vocabulary struct {
	words []string
	zipf  *rand.Zipf
	r     *rand.Rand
}

func newVocabulary(r *rand.Rand) *vocabulary {
	words := make([]string, 30_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i*7919%1_000_003)
	}
	return &vocabulary{words: words, zipf: rand.NewZipf(r, 1.07, 2, uint64(len(words)-1)), r: r}
}

func (v *vocabulary) text(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(parts, " ")
}

// query draws content words: frequency ranks 20 to 3,000, as analysts type subject terms,
// not the most common words of the corpus.
func (v *vocabulary) query(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.words[20+v.r.IntN(2980)]
	}
	return strings.Join(parts, " ")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
	benchSecs float64
)

// buildBenchWorkspace ingests 100,000 chunks with 768-dimension vectors once per test binary
// and saves the vector files (and the graph, which SaveVectors builds).
func buildBenchWorkspace(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "warren-bench-*")
		if benchErr != nil {
			return
		}
		if _, benchErr = kb.Init(benchDir, kb.Migrations); benchErr != nil {
			return
		}
		ws, err := kb.Open(benchDir, config.Sources{}, kb.Migrations)
		if err != nil {
			benchErr = err
			return
		}
		defer ws.Close()
		store := kb.NewStore(ws)
		voc := newVocabulary(rand.New(rand.NewPCG(1, 2)))
		data := benchVectors.corpus(benchChunks)
		next := 0
		emb := fixedEmbedder{next: func() []float32 {
			v := data[next*benchDim : (next+1)*benchDim]
			next++
			return v
		}}
		start := time.Now()
		perDoc := benchChunks / benchDocs
		for d := 0; d < benchDocs && benchErr == nil; d++ {
			secs := make([]load.Section, perDoc)
			for i := range secs {
				secs[i] = load.Section{Number: fmt.Sprint(i + 1), Heading: voc.text(3), Text: voc.text(40)}
			}
			doc := &load.Document{ID: fmt.Sprintf("doc%03d", d), Collection: "bench", Language: "en", Meta: map[string]string{}, Sections: secs}
			_, benchErr = store.AddDocument(context.Background(), doc, emb, load.DefaultChunkOptions, nil)
		}
		if benchErr == nil && next != benchChunks {
			benchErr = fmt.Errorf("the documents made %d chunks, not %d", next, benchChunks)
		}
		if benchErr == nil {
			benchErr = store.SaveVectors(context.Background())
		}
		benchSecs = time.Since(start).Seconds()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// benchFiles checks that the collection's vector, log and graph files exist and returns
// their total size.
func benchFiles(b *testing.B, dir string) int64 {
	vec, log, graph := vectors.Files(filepath.Join(dir, kb.VectorDir), "bench")
	var total int64
	for _, p := range []string{vec, log, graph, filepath.Join(dir, kb.VectorDir, "lexical.index")} {
		info, err := os.Stat(p)
		if err != nil {
			b.Fatalf("the workspace must hold its vector files and the lexical index's snapshot: %v", err)
		}
		total += info.Size()
	}
	return total
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// overlap counts the hits of got that are in want.
func overlap(got, want []chunk.Hit) int {
	in := map[string]bool{}
	for _, h := range want {
		in[h.ChunkID] = true
	}
	n := 0
	for _, h := range got {
		if in[h.ChunkID] {
			n++
		}
	}
	return n
}

// BenchmarkOpen100k measures opening a workspace of 100,000 chunks × 768 dimensions until
// a dense and a lexical search have answered: SQLite opened, the vector files, the graph and
// the lexical index's snapshot read. It fails unless every open read the files, the graph and
// the snapshot (none rebuilt from warren.db, none built) and the dense search went through
// the graph. read-ms is reading the same files' bytes alone, in the same run.
func BenchmarkOpen100k(b *testing.B) {
	dir := buildBenchWorkspace(b)
	ctx := context.Background()
	voc := newVocabulary(rand.New(rand.NewPCG(1, 2)))
	func() { // the snapshot, as the first search after the last write leaves it
		ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		if _, err := kb.NewStore(ws).Lexical(ctx, voc.text(1), "en", chunk.Scope{}, 1); err != nil {
			b.Fatal(err)
		}
	}()
	size := benchFiles(b, dir)
	q := benchVectors.query(0, benchChunks)
	for b.Loop() {
		ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
		if err != nil {
			b.Fatal(err)
		}
		store := kb.NewStore(ws)
		hits, err := store.Dense(ctx, q, chunk.Scope{}, 10)
		if err != nil || len(hits) != 10 {
			b.Fatalf("open: %v", err)
		}
		if lex, err := store.Lexical(ctx, voc.text(3), "en", chunk.Scope{}, 10); err != nil || len(lex) == 0 {
			b.Fatalf("open: lexical search: %v", err)
		}
		if st := store.VectorStats(); st.FilesRead != 1 || st.Rebuilt != 0 || st.GraphsRead != 1 || st.GraphsBuilt != 0 || st.IndexQueries != 1 {
			b.Fatalf("the open must read the vector files and the graph, and search through it: %+v", st)
		}
		if st := store.LexicalStats(); st.SnapshotReads != 1 || st.Loads != 0 {
			b.Fatalf("the open must read the lexical index's snapshot, not warren.db: %+v", st)
		}
		b.StopTimer() // the common terms' impact orders are sorted after the open, beside searches
		store.WaitLexicalIndexReady()
		b.StartTimer()
		ws.Close()
	}
	b.StopTimer()
	vec, log, graph := vectors.Files(filepath.Join(dir, kb.VectorDir), "bench")
	lexical := filepath.Join(dir, kb.VectorDir, "lexical.index")
	start := time.Now()
	for _, p := range []string{vec, log, graph, lexical} {
		if _, err := os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(ms(time.Since(start)), "read-ms")
	b.ReportMetric(float64(size)/1e6, "files-MB")
}

// BenchmarkDenseQuery100k runs a dense query through the graph and the same query by exact
// scan on the same 100,000-chunk collection, interleaved, and reports both latencies, their
// ratio and the recall@10 of the graph against the scan. Counters prove each ran its path.
func BenchmarkDenseQuery100k(b *testing.B) {
	dir := buildBenchWorkspace(b)
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	store := kb.NewStore(ws)
	ctx := context.Background()
	var approx, exact []time.Duration
	found, want, n := 0, 0, 0
	for b.Loop() {
		q := benchVectors.query(n, benchChunks)
		n++
		t0 := time.Now()
		got, err := store.Dense(ctx, q, chunk.Scope{}, 10)
		if err != nil {
			b.Fatal(err)
		}
		approx = append(approx, time.Since(t0))
		t1 := time.Now()
		truth, err := store.ExactDense(ctx, q, "bench", 10)
		if err != nil {
			b.Fatal(err)
		}
		exact = append(exact, time.Since(t1))
		found += overlap(got, truth)
		want += len(truth)
	}
	b.StopTimer()
	if st := store.VectorStats(); st.IndexQueries != int64(n) || st.ScanQueries != int64(n) || st.Rebuilt != 0 {
		b.Fatalf("want %d graph searches and %d scans: %+v", n, n, st)
	}
	b.ReportMetric(ms(percentile(approx, 0.5)), "index-p50-ms")
	b.ReportMetric(ms(percentile(approx, 0.95)), "index-p95-ms")
	b.ReportMetric(ms(percentile(exact, 0.5)), "exact-p50-ms")
	b.ReportMetric(float64(percentile(approx, 0.5))/float64(percentile(exact, 0.5)), "p50-ratio")
	b.ReportMetric(float64(found)/float64(want), "recall@10")
	b.ReportMetric(benchSecs, "build-s")
}

// BenchmarkHybridQuery100k runs warren's hybrid search (dense through the graph, BM25 over
// the lexical index in memory, fused, chunks fetched) and a dense-only search through the
// same Searcher on the same 100,000-chunk collection, interleaved, and reports both latencies
// and their ratio. The query vector is fixed in advance: no embedding call is included in
// either figure. Every search has a query of its own (vector and words), so none runs on
// what the one before it left in the caches. The lexical index is read before the timed searches (its read is reported
// from warren.db as lexload-ms, from its snapshot as lexsnapshot-ms, the heap it holds with
// its common terms' postings sorted by impact as lexheap-MB, and the time that sorting took
// beside the searches after the read as impactsort-ms), and the lexical half is also timed
// alone as hybrid search asks for it, 40 chunks from a pool of 40 (lexical-p50-ms). The
// candidates whose terms in order proximity read are counted (proximity-read/op).
// Queries are four content words.
func BenchmarkHybridQuery100k(b *testing.B) {
	benchmarkHybrid(b, func(v *vocabulary) string { return v.query(4) }, false, false)
}

// BenchmarkHybridQuery100kCommonTerms is the worst case: query words drawn with the corpus's
// own frequencies, so most queries contain terms found in most chunks. It fails unless some
// of those terms' postings were left unread (pruned-terms/op).
func BenchmarkHybridQuery100kCommonTerms(b *testing.B) {
	benchmarkHybrid(b, func(v *vocabulary) string { return v.text(4) }, true, false)
}

// BenchmarkHybridQuery100kCommonTermsWithEmbedCall is the worst case with the query's
// embedding call included in both figures: each query is embedded through the Ollama API
// client by a bare Ollama /api/embed server (a loopback HTTP request, no added latency; kb
// does not depend on the model gateway, which makes the same call), whose vector is checked
// and then replaced by the query's given one, so the searches are those of the other
// benchmarks. It fails unless the server answered one embedding request per search.
func BenchmarkHybridQuery100kCommonTermsWithEmbedCall(b *testing.B) {
	benchmarkHybrid(b, func(v *vocabulary) string { return v.text(4) }, true, true)
}

// embedServer is a bare Ollama /api/embed on loopback: it answers every text with a
// benchDim-long unit vector and counts the requests.
type embedServer struct {
	client   *api.Client
	requests atomic.Int64
}

func newEmbedServer(b *testing.B) *embedServer {
	s := &embedServer{}
	vector := make([]float32, benchDim)
	vector[0] = 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "not an embedding request", http.StatusBadRequest)
			return
		}
		s.requests.Add(1)
		resp := api.EmbedResponse{Model: req.Model}
		for range req.Input {
			resp.Embeddings = append(resp.Embeddings, vector)
		}
		json.NewEncoder(w).Encode(resp)
	}))
	b.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	s.client = api.NewClient(u, srv.Client())
	return s
}

// embed embeds the texts in one request, as the model gateway sends a batch.
func (s *embedServer) embed(ctx context.Context, texts []string, _ func(int)) ([][]float32, error) {
	resp, err := s.client.Embed(ctx, &api.EmbedRequest{Model: config.Default().Embed.Model, Input: texts})
	if err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}

// callingEmbedder embeds through the Ollama API, checks the vector's length, and hands out
// the given query vector instead.
type callingEmbedder struct {
	embed kb.EmbedFunc
	next  func() []float32
}

func (e callingEmbedder) ID() string { return fmt.Sprintf("bench:%d", benchDim) }
func (e callingEmbedder) Embed(ctx context.Context, texts []string, _ func(int)) ([][]float32, error) {
	got, err := e.embed(ctx, texts, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i := range out {
		if len(got[i]) != benchDim {
			return nil, fmt.Errorf("the server gave %d dimensions, not %d", len(got[i]), benchDim)
		}
		out[i] = e.next()
	}
	return out, nil
}

func benchmarkHybrid(b *testing.B, queryText func(*vocabulary) string, mustPrune, embedCall bool) {
	dir := buildBenchWorkspace(b)
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	store := kb.NewStore(ws)
	ctx := context.Background()
	voc := newVocabulary(rand.New(rand.NewPCG(1, 2)))
	var query []float32
	var emb kb.Embedder = fixedEmbedder{next: func() []float32 { return query }}
	var srv *embedServer
	if embedCall {
		srv = newEmbedServer(b)
		emb = callingEmbedder{embed: srv.embed, next: func() []float32 { return query }}
	}
	s := &retrieval.Searcher{Store: store, Embedder: func(string) (kb.Embedder, error) { return emb, nil }}
	// The lexical index read from warren.db (as after a write), then from its snapshot (as on
	// opening the workspace).
	os.Remove(filepath.Join(dir, kb.VectorDir, "lexical.index"))
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	if _, err := store.Lexical(ctx, voc.text(1), "en", chunk.Scope{}, 1); err != nil {
		b.Fatal(err)
	}
	lexLoad := time.Since(t0)
	t0 = time.Now()
	store.WaitLexicalIndexReady()
	impactPrep := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	before := store.LexicalStats()
	if before.Loads != 1 || before.SnapshotReads != 0 {
		b.Fatalf("the first lexical search must read the index from warren.db: %+v", before)
	}
	reopened := kb.NewStore(ws)
	t0 = time.Now()
	if _, err := reopened.Lexical(ctx, voc.text(1), "en", chunk.Scope{}, 1); err != nil {
		b.Fatal(err)
	}
	snapLoad := time.Since(t0)
	reopened.WaitLexicalIndexReady()
	if st := reopened.LexicalStats(); st.SnapshotReads != 1 || st.Loads != 0 {
		b.Fatalf("a second store must read the index's snapshot: %+v", st)
	}
	// The garbage of building the workspace and reading the index is collected before the
	// timed searches, not during them: the first benchmark of a run paid for it.
	runtime.GC()
	var hybrid, dense, lexical []time.Duration
	n := 0
	for b.Loop() {
		// Each search has a query of its own: one that repeated the last search's would find
		// the graph's nodes and the postings it reads in the caches.
		query = benchVectors.query(3*n, benchChunks)
		text := queryText(voc)
		t0 := time.Now()
		res, err := s.Search(ctx, retrieval.Request{Query: text, K: 10, Mode: retrieval.Hybrid, Language: "en"})
		if err != nil || len(res) == 0 {
			b.Fatalf("hybrid search: %v", err)
		}
		hybrid = append(hybrid, time.Since(t0))
		query, text = benchVectors.query(3*n+1, benchChunks), queryText(voc)
		t1 := time.Now()
		if res, err := s.Search(ctx, retrieval.Request{Query: text, K: 10, Mode: retrieval.Dense, Language: "en"}); err != nil || len(res) == 0 {
			b.Fatalf("dense search: %v", err)
		}
		dense = append(dense, time.Since(t1))
		// The lexical half alone, as hybrid search asks for it.
		text = queryText(voc)
		t2 := time.Now()
		if _, err := store.LexicalPooled(ctx, text, "en", chunk.Scope{}, 40, 40); err != nil {
			b.Fatal(err)
		}
		lexical = append(lexical, time.Since(t2))
		n++
	}
	b.StopTimer()
	if st := store.VectorStats(); st.IndexQueries != int64(2*n) || st.ScanQueries != 0 {
		b.Fatalf("every dense half must go through the graph: %+v", st)
	}
	if srv != nil {
		if got := int(srv.requests.Load()); got != 2*n {
			b.Fatalf("the model server answered %d embedding requests for %d searches", got, 2*n)
		}
	}
	lex := store.LexicalStats()
	if lex.Loads != 1 || lex.SnapshotReads != 0 || lex.Searches-before.Searches != int64(2*n) {
		b.Fatalf("every lexical half must search the index in memory, read once: %+v", lex)
	}
	pruned := lex.TermsPruned - before.TermsPruned
	if mustPrune && pruned == 0 {
		b.Fatalf("no query left a common term's postings unread: %+v", lex)
	}
	// Proximity reads the candidates' terms in order where two neighbouring query words are
	// found: the queries of common words always find some.
	proxRead := lex.ProximityRead - before.ProximityRead
	if mustPrune && proxRead == 0 {
		b.Fatalf("no candidate's terms in order were read for proximity: %+v", lex)
	}
	b.ReportMetric(float64(proxRead)/float64(n), "proximity-read/op")
	b.ReportMetric(float64(lex.PostingsRead-before.PostingsRead)/float64(n), "postings/op")
	b.ReportMetric(float64(pruned)/float64(n), "pruned-terms/op")
	b.ReportMetric(float64(lex.StoppedInside-before.StoppedInside)/float64(n), "stopped-inside/op")
	b.ReportMetric(ms(lexLoad), "lexload-ms")
	b.ReportMetric(ms(snapLoad), "lexsnapshot-ms")
	b.ReportMetric(ms(impactPrep), "impactsort-ms")
	b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/1e6, "lexheap-MB")
	b.ReportMetric(ms(percentile(hybrid, 0.5)), "hybrid-p50-ms")
	b.ReportMetric(ms(percentile(hybrid, 0.95)), "hybrid-p95-ms")
	b.ReportMetric(ms(percentile(dense, 0.5)), "dense-p50-ms")
	b.ReportMetric(ms(percentile(dense, 0.95)), "dense-p95-ms")
	b.ReportMetric(ms(percentile(lexical, 0.5)), "lexical-p50-ms")
	b.ReportMetric(float64(percentile(hybrid, 0.5))/float64(percentile(dense, 0.5)), "p50-ratio")
}

// BenchmarkHybridHalvesSideBySide100k times the two halves of a hybrid query (a lexical search
// as hybrid search asks for it, words drawn with the corpus's frequencies, and a dense search
// through the graph) alone, side by side as hybrid search runs them (the dense search on the
// caller's goroutine, the lexical one on another), and in turn, on the 100,000-chunk
// collection, and how long the second goroutine took to start: what running them in parallel
// can save on this machine.
func BenchmarkHybridHalvesSideBySide100k(b *testing.B) {
	dir := buildBenchWorkspace(b)
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	store := kb.NewStore(ws)
	ctx := context.Background()
	voc := newVocabulary(rand.New(rand.NewPCG(1, 2)))
	if _, err := store.Lexical(ctx, voc.text(1), "en", chunk.Scope{}, 1); err != nil {
		b.Fatal(err)
	}
	store.WaitLexicalIndexReady()
	lexical := func(text string) {
		if _, err := store.LexicalPooled(ctx, text, "en", chunk.Scope{}, 40, 40); err != nil {
			b.Error(err)
		}
	}
	dense := func(q []float32) {
		if hits, err := store.Dense(ctx, q, chunk.Scope{}, 40); err != nil || len(hits) == 0 {
			b.Error("dense search:", err)
		}
	}
	var lexAlone, denseAlone, sideBySide, inTurn, start []time.Duration
	n := 0
	for b.Loop() {
		q, text := benchVectors.query(n, benchChunks), voc.text(4)
		n++
		t := time.Now()
		lexical(text)
		lexAlone = append(lexAlone, time.Since(t))
		t = time.Now()
		dense(q)
		denseAlone = append(denseAlone, time.Since(t))
		q, text = benchVectors.query(n+benchChunks/2, benchChunks), voc.text(4)
		var wg sync.WaitGroup
		var started time.Time
		t = time.Now()
		wg.Go(func() { started = time.Now(); lexical(text) })
		dense(q)
		wg.Wait()
		sideBySide = append(sideBySide, time.Since(t))
		start = append(start, started.Sub(t))
		q, text = benchVectors.query(n+benchChunks/4, benchChunks), voc.text(4)
		t = time.Now()
		lexical(text)
		dense(q)
		inTurn = append(inTurn, time.Since(t))
	}
	b.StopTimer()
	if st := store.VectorStats(); st.IndexQueries != int64(3*n) || st.ScanQueries != 0 {
		b.Fatalf("every dense search must go through the graph: %+v", st)
	}
	if st := store.LexicalStats(); st.Loads+st.SnapshotReads != 1 || st.Searches != int64(3*n+1) {
		b.Fatalf("every lexical search must search the index in memory, read once: %+v", st)
	}
	b.ReportMetric(ms(percentile(lexAlone, 0.5)), "lexical-p50-ms")
	b.ReportMetric(ms(percentile(denseAlone, 0.5)), "dense-p50-ms")
	b.ReportMetric(ms(percentile(sideBySide, 0.5)), "side-by-side-p50-ms")
	b.ReportMetric(ms(percentile(inTurn, 0.5)), "in-turn-p50-ms")
	b.ReportMetric(ms(percentile(start, 0.5)), "goroutine-start-p50-ms")
	b.ReportMetric(ms(percentile(start, 0.9)), "goroutine-start-p90-ms")
}

// BenchmarkIngestCorpus ingests shared/data/corpus through its registry with the built-in
// embedder into a fresh workspace and reports chunks per second.
func BenchmarkIngestCorpus(b *testing.B) {
	regPath := shareddata.Path(b, "corpus/registry.json")
	reg, err := registry.Load(regPath)
	if err != nil {
		b.Fatal(err)
	}
	var items []kb.Item
	for _, name := range reg.Names() {
		for _, d := range reg.Collections[name].Documents {
			items = append(items, kb.Item{Path: filepath.Join(filepath.Dir(regPath), d.Path), ID: d.Path, Collection: name, Title: d.Title})
		}
	}
	chunks, elapsed := 0, time.Duration(0)
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		kb.Init(dir, kb.Migrations)
		ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		rep, err := kb.NewStore(ws).Ingest(context.Background(), items, kb.IngestOptions{Embedder: kb.Builtin{}})
		elapsed += time.Since(start)
		if err != nil || rep.Ingested != len(items) {
			b.Fatalf("ingest: %+v %v", rep, err)
		}
		chunks += rep.Chunks
		b.StopTimer()
		ws.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(chunks)/elapsed.Seconds(), "chunks/s")
}

package kb_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/config"
	"warren/internal/shareddata"
	"warren/kb"
	"warren/registry"
	"warren/retrieval"
)

const (
	benchChunks = 100_000
	benchDim    = 768
	benchDocs   = 100
)

// fixedEmbedder hands out precomputed unit vectors: the benchmark measures search, not
// embedding.
type fixedEmbedder struct{ next func() []float32 }

func (f fixedEmbedder) ID() string { return fmt.Sprintf("bench:%d", benchDim) }
func (f fixedEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.next()
	}
	return out, nil
}

func unitVector(r *rand.Rand) []float32 {
	v := make([]float32, benchDim)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
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
// and saves the vector snapshot.
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
		r := rand.New(rand.NewPCG(1, 2))
		voc := newVocabulary(r)
		emb := fixedEmbedder{next: func() []float32 { return unitVector(r) }}
		start := time.Now()
		perDoc := benchChunks / benchDocs
		for d := 0; d < benchDocs && benchErr == nil; d++ {
			secs := make([]kb.Section, perDoc)
			for i := range secs {
				secs[i] = kb.Section{Number: fmt.Sprint(i + 1), Heading: voc.text(3), Text: voc.text(40)}
			}
			doc := &kb.Document{ID: fmt.Sprintf("doc%03d", d), Collection: "bench", Language: "en", Meta: map[string]string{}, Sections: secs}
			_, benchErr = store.AddDocument(context.Background(), doc, emb, kb.DefaultChunkOptions, nil)
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

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BenchmarkHybridQuery100k runs warren's hybrid search (dense via chromem-go, BM25 via FTS5,
// fused, chunks fetched) and a bare chromem-go QueryEmbedding on the same 100,000-chunk
// collection, interleaved, and reports both latencies and their ratio. Queries are four
// content words.
func BenchmarkHybridQuery100k(b *testing.B) {
	benchmarkHybrid(b, func(v *vocabulary) string { return v.query(4) })
}

// BenchmarkHybridQuery100kCommonTerms is the worst case: query words drawn with the corpus's
// own frequencies, so most queries contain terms found in most chunks.
func BenchmarkHybridQuery100kCommonTerms(b *testing.B) {
	benchmarkHybrid(b, func(v *vocabulary) string { return v.text(4) })
}

func benchmarkHybrid(b *testing.B, queryText func(*vocabulary) string) {
	dir := buildBenchWorkspace(b)
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	store := kb.NewStore(ws)
	ctx := context.Background()
	col, err := store.VectorCollection(ctx, "bench")
	if err != nil || col == nil || col.Count() != benchChunks {
		b.Fatalf("bench collection: %v (%d chunks)", err, col.Count())
	}
	r := rand.New(rand.NewPCG(3, 4))
	voc := newVocabulary(rand.New(rand.NewPCG(1, 2)))
	var query []float32
	s := &retrieval.Searcher{Store: store, Embedder: func(string) (kb.Embedder, error) {
		return fixedEmbedder{next: func() []float32 { return query }}, nil
	}}
	var hybrid, bare []time.Duration
	b.ResetTimer()
	for b.Loop() {
		query = unitVector(r)
		text := queryText(voc)
		t0 := time.Now()
		res, err := s.Search(ctx, retrieval.Request{Query: text, K: 10, Mode: retrieval.Hybrid, Language: "en"})
		if err != nil || len(res) == 0 {
			b.Fatalf("hybrid search: %v", err)
		}
		hybrid = append(hybrid, time.Since(t0))
		t1 := time.Now()
		if _, err := col.QueryEmbedding(ctx, query, 10, nil, nil); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t1))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(percentile(hybrid, 0.5)), "hybrid-p50-ms")
	b.ReportMetric(ms(percentile(hybrid, 0.95)), "hybrid-p95-ms")
	b.ReportMetric(ms(percentile(bare, 0.5)), "chromem-p50-ms")
	b.ReportMetric(ms(percentile(bare, 0.95)), "chromem-p95-ms")
	b.ReportMetric(float64(percentile(hybrid, 0.5))/float64(percentile(bare, 0.5)), "p50-ratio")
	b.ReportMetric(benchSecs, "build-s")
}

// BenchmarkOpen100k measures opening a workspace of 100,000 chunks until its vectors are
// searchable: SQLite opened, snapshot read into chromem-go.
func BenchmarkOpen100k(b *testing.B) {
	dir := buildBenchWorkspace(b)
	ctx := context.Background()
	for b.Loop() {
		ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
		if err != nil {
			b.Fatal(err)
		}
		col, err := kb.NewStore(ws).VectorCollection(ctx, "bench")
		if err != nil || col.Count() != benchChunks {
			b.Fatalf("open: %v", err)
		}
		ws.Close()
	}
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

package kb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/config"
	"warren/kb"
	"warren/retrieval"
)

// The ingest benchmarks of issue 29: one-chunk text files with the built-in embedder, so the
// figures are those of reading, indexing and storing, the path around the engine.

// oneChunkFiles writes n text files of about sixty words each (one chunk) into dir, named
// from first on, and returns them as items of the collection "abstracts".
func oneChunkFiles(tb testing.TB, dir string, first, n int) []kb.Item {
	tb.Helper()
	voc := newVocabulary(rand.New(rand.NewPCG(uint64(first)+7, 11)))
	items := make([]kb.Item, n)
	for i := range n {
		name := fmt.Sprintf("a%06d.txt", first+i)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("Abstract "+strconv.Itoa(first+i)+". "+voc.text(60)+".\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		items[i] = kb.Item{Path: path, ID: name, Collection: "abstracts"}
	}
	return items
}

// writeClock wraps the store and notes when the writes pass marks of documents stored, and
// how many writes there were: a benchmark proves with it that documents were written in
// batches and times the first and the last thousand from the store's side.
type writeClock struct {
	*kb.Store
	mu     sync.Mutex
	docs   int
	writes int
	at     map[int]time.Time // documents stored → when the write that passed it ended
	marks  []int
}

func newWriteClock(s *kb.Store, marks ...int) *writeClock {
	return &writeClock{Store: s, at: map[int]time.Time{}, marks: marks}
}

func (w *writeClock) ReplaceDocuments(ctx context.Context, writes []kb.DocumentWrite, embedder string) error {
	err := w.Store.ReplaceDocuments(ctx, writes, embedder)
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		before := w.docs
		w.docs += len(writes)
		w.writes++
		for _, m := range w.marks {
			if before < m && w.docs >= m {
				w.at[m] = now
			}
		}
	}
	return err
}

func openBenchStore(tb testing.TB) (*kb.Workspace, *kb.Store) {
	tb.Helper()
	dir := tb.TempDir()
	if _, err := kb.Init(dir, kb.Migrations); err != nil {
		tb.Fatal(err)
	}
	ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	return ws, kb.NewStore(ws)
}

// BenchmarkIngest10kFiles ingests 10,000 one-chunk files into an empty workspace. It reports
// documents per second overall and the time of the first and of the last thousand documents
// stored (the ratio must stay near 1: a document costs the same however many are stored).
func BenchmarkIngest10kFiles(b *testing.B) {
	const n = 10_000
	items := oneChunkFiles(b, b.TempDir(), 0, n)
	var total, first, last time.Duration
	perWrite := 0.0
	for b.Loop() {
		b.StopTimer()
		_, store := openBenchStore(b)
		clock := newWriteClock(store, 1000, n-1000, n)
		b.StartTimer()
		start := time.Now()
		rep, err := kb.Ingest(context.Background(), clock, items, kb.IngestOptions{Embedder: kb.Builtin{}})
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil || rep.Ingested != n || clock.docs != n {
			b.Fatalf("ingest: %d ingested, %d stored through the batch writes: %v", rep.Ingested, clock.docs, err)
		}
		if clock.writes*10 > n {
			b.Fatalf("%d writes for %d documents: the documents were not written in batches", clock.writes, n)
		}
		total += elapsed
		first += clock.at[1000].Sub(start)
		last += clock.at[n].Sub(clock.at[n-1000])
		perWrite = float64(n) / float64(clock.writes)
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "docs/s")
	b.ReportMetric(first.Seconds()/float64(b.N), "first1k-s")
	b.ReportMetric(last.Seconds()/float64(b.N), "last1k-s")
	b.ReportMetric(last.Seconds()/first.Seconds(), "last/first")
	b.ReportMetric(perWrite, "docs/write")
}

// BenchmarkIngest1kInto10k ingests the same 1,000 files into an empty collection and into
// one of 10,000 documents, each as a later `warren ingest` does: in a workspace opened afresh,
// which reads the collection's vectors from their files. It reports both times and their
// ratio.
func BenchmarkIngest1kInto10k(b *testing.B) {
	dir := b.TempDir()
	base := oneChunkFiles(b, dir, 0, 10_000)
	more := oneChunkFiles(b, dir, 10_000, 1000)
	var empty, full time.Duration
	for b.Loop() {
		b.StopTimer()
		freshDir, bigDir := b.TempDir(), b.TempDir()
		for _, d := range []string{freshDir, bigDir} {
			if _, err := kb.Init(d, kb.Migrations); err != nil {
				b.Fatal(err)
			}
		}
		ws, err := kb.Open(bigDir, config.Sources{}, kb.Migrations)
		if err != nil {
			b.Fatal(err)
		}
		if rep, err := kb.NewStore(ws).Ingest(context.Background(), base, kb.IngestOptions{Embedder: kb.Builtin{}}); err != nil || rep.Ingested != len(base) {
			b.Fatalf("the 10,000: %+v %v", rep, err)
		}
		ws.Close()
		for _, target := range []struct {
			dir  string
			took *time.Duration
			had  int
		}{{freshDir, &empty, 0}, {bigDir, &full, len(base)}} {
			b.StartTimer()
			start := time.Now()
			ws, err := kb.Open(target.dir, config.Sources{}, kb.Migrations)
			if err != nil {
				b.Fatal(err)
			}
			store := kb.NewStore(ws)
			rep, err := store.Ingest(context.Background(), more, kb.IngestOptions{Embedder: kb.Builtin{}})
			*target.took += time.Since(start)
			b.StopTimer()
			info, ok, _ := store.Collection(context.Background(), "abstracts")
			if err != nil || rep.Ingested != len(more) || !ok || info.Documents != target.had+len(more) {
				b.Fatalf("ingest: %+v %v; the collection holds %d documents, want %d", rep, err, info.Documents, target.had+len(more))
			}
			if st := store.VectorStats(); target.had > 0 && st.FilesRead == 0 {
				b.Fatalf("the 10,000 documents' vectors were not read from their files: %+v", st)
			}
			ws.Close()
		}
		b.StartTimer()
	}
	b.ReportMetric(empty.Seconds()/float64(b.N), "into-empty-s")
	b.ReportMetric(full.Seconds()/float64(b.N), "into-10k-s")
	b.ReportMetric(full.Seconds()/empty.Seconds(), "ratio")
}

// BenchmarkIngestUnchanged10k runs an ingest again over 10,000 stored, unchanged files. One
// file's content is changed behind the ingest's back, its size and time kept: that it is
// still found unchanged proves the files were judged by their stamp, not read.
func BenchmarkIngestUnchanged10k(b *testing.B) {
	items := oneChunkFiles(b, b.TempDir(), 0, 10_000)
	_, store := openBenchStore(b)
	ctx := context.Background()
	if rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: kb.Builtin{}}); err != nil || rep.Ingested != len(items) {
		b.Fatalf("first ingest: %+v %v", rep, err)
	}
	victim := items[4321].Path
	info, _ := os.Stat(victim)
	data, _ := os.ReadFile(victim)
	changed := []byte(strings.ToUpper(string(data)))
	if err := os.WriteFile(victim, changed, 0o644); err != nil || len(changed) != len(data) {
		b.Fatal("couldn't change the file in place", err)
	}
	os.Chtimes(victim, info.ModTime(), info.ModTime())
	for b.Loop() {
		rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: kb.Builtin{}})
		if err != nil || rep.Unchanged != len(items) {
			b.Fatalf("a second ingest must find all unchanged by their stamps: %d of %d (%v)", rep.Unchanged, len(items), err)
		}
	}
}

// BenchmarkIngest100kFiles ingests 100,000 one-chunk files and reports the time, the peak
// memory of the process (VmHWM) and the median time of a hybrid search afterwards.
func BenchmarkIngest100kFiles(b *testing.B) {
	const n = 100_000
	items := oneChunkFiles(b, b.TempDir(), 0, n)
	var took time.Duration
	var p50 time.Duration
	for b.Loop() {
		b.StopTimer()
		_, store := openBenchStore(b)
		clock := newWriteClock(store)
		b.StartTimer()
		start := time.Now()
		rep, err := kb.Ingest(context.Background(), clock, items, kb.IngestOptions{Embedder: kb.Builtin{}})
		took += time.Since(start)
		b.StopTimer()
		if err != nil || rep.Ingested != n || clock.docs != n {
			b.Fatalf("ingest: %d ingested, %d stored: %v", rep.Ingested, clock.docs, err)
		}
		s := &retrieval.Searcher{Store: store, Embedder: func(string) (kb.Embedder, error) { return kb.Builtin{}, nil }}
		voc := newVocabulary(rand.New(rand.NewPCG(3, 4)))
		var times []time.Duration
		for range 50 {
			q := voc.query(3)
			t0 := time.Now()
			res, err := s.Search(context.Background(), retrieval.Request{Query: q, K: 10, Mode: retrieval.Hybrid, Language: "en"})
			times = append(times, time.Since(t0))
			if err != nil || len(res) == 0 {
				b.Fatalf("search %q: %v", q, err)
			}
		}
		p50 = percentile(times, 0.5)
		b.StartTimer()
	}
	b.ReportMetric(took.Seconds()/float64(b.N), "ingest-s")
	b.ReportMetric(float64(n*b.N)/took.Seconds(), "docs/s")
	b.ReportMetric(peakRSSMB(), "peak-MB")
	b.ReportMetric(ms(p50), "search-p50-ms")
}

// peakRSSMB is the most memory the process has held (VmHWM), in MB; 0 where /proc is absent.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kB, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kB / 1024
		}
	}
	return 0
}

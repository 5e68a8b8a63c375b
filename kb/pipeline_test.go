package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/kb/chunk"
	"warren/kb/load"
)

// countingStore counts the batch writes and can refuse one document, as a failing disk or a
// constraint would.
type countingStore struct {
	*Store
	mu      sync.Mutex
	batches []int
	refuse  string // a document ID whose write fails
}

func (c *countingStore) ReplaceDocuments(ctx context.Context, writes []DocumentWrite, embedder string) error {
	c.mu.Lock()
	c.batches = append(c.batches, len(writes))
	c.mu.Unlock()
	for _, w := range writes {
		if w.Doc.ID == c.refuse {
			return fmt.Errorf("couldn't store %s: disk full", w.Doc.ID)
		}
	}
	return c.Store.ReplaceDocuments(ctx, writes, embedder)
}

func (c *countingStore) ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vecs [][]float32, embedder string) error {
	return c.ReplaceDocuments(ctx, []DocumentWrite{{Doc: doc, Chunks: chunks, Vectors: vecs}}, embedder)
}

func manyFiles(t *testing.T, dir string, n int) []Item {
	t.Helper()
	var items []Item
	for i := range n {
		name := fmt.Sprintf("n%04d.txt", i)
		items = append(items, Item{Path: write(t, dir, name, fmt.Sprintf("Note %d on purging line %d with nitrogen.\n", i, i)), ID: name, Collection: "notes"})
	}
	return items
}

// Many small documents are written a batch at a time, and the report lists them in the order
// they were given.
func TestIngestWritesManyDocumentsPerTransaction(t *testing.T) {
	_, store := openTestStore(t)
	cs := &countingStore{Store: store}
	items := manyFiles(t, t.TempDir(), 600)
	rep, err := Ingest(context.Background(), cs, items, IngestOptions{Embedder: Builtin{}})
	if err != nil || rep.Ingested != 600 {
		t.Fatalf("ingest: %d ingested, %v", rep.Ingested, err)
	}
	if len(cs.batches) >= 60 {
		t.Errorf("%d writes for 600 documents: %v", len(cs.batches), cs.batches)
	}
	for i, f := range rep.Files {
		if f.Doc != items[i].ID {
			t.Fatalf("line %d of the report is %s, want %s", i, f.Doc, items[i].ID)
		}
	}
	docs, _ := store.Documents(context.Background(), "notes")
	var chunks int
	store.db.QueryRow(`SELECT count(*) FROM chunks_fts`).Scan(&chunks)
	if len(docs) != 600 || chunks != 600 {
		t.Errorf("%d documents and %d index rows stored, want 600 each", len(docs), chunks)
	}
	if got := store.loadedVectors().Live("notes"); got != 600 {
		t.Errorf("%d vectors in memory, want 600", got)
	}
}

// A batch that fails is written again document by document: only the one that fails fails.
func TestIngestTellsWhichDocumentOfABatchFailed(t *testing.T) {
	_, store := openTestStore(t)
	cs := &countingStore{Store: store, refuse: "n0007.txt"}
	items := manyFiles(t, t.TempDir(), 20)
	rep, err := Ingest(context.Background(), cs, items, IngestOptions{Embedder: Builtin{}})
	if err != nil || rep.Ingested != 19 || rep.Failed != 1 {
		t.Fatalf("want 19 stored and 1 failed: %+v %v", rep, err)
	}
	if f := rep.Files[7]; f.Doc != "n0007.txt" || f.Status != StatusFailed || !strings.Contains(f.Reason, "disk full") {
		t.Errorf("the failed line: %+v", f)
	}
	if _, ok, _ := store.Document(context.Background(), "n0007.txt"); ok {
		t.Error("the refused document was stored")
	}
}

// A file whose size and modification time are those stored is not read again; one whose time
// changed is read, and when its content is the same, only its time is recorded.
func TestUnchangedFilesAreJudgedByTheirStamp(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	items := manyFiles(t, dir, 3)
	ctx := context.Background()
	if rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}}); err != nil || rep.Ingested != 3 {
		t.Fatalf("first ingest: %+v %v", rep, err)
	}
	// The same size and time, other content: the stamp says unchanged, so it is not read.
	path := items[0].Path
	info, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.ToUpper(string(data))), 0o644)
	os.Chtimes(path, info.ModTime(), info.ModTime())
	// The same content, a new time: read, found unchanged by its hash, its time recorded.
	later := info.ModTime().Add(time.Hour)
	os.Chtimes(items[1].Path, later, later)
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
	if err != nil || rep.Unchanged != 3 {
		t.Fatalf("second ingest: %+v %v", rep, err)
	}
	if d, _, _ := store.Document(ctx, items[1].ID); d.ModTime != later.UnixNano() {
		t.Errorf("the new time was not recorded: %d, want %d", d.ModTime, later.UnixNano())
	}
	// A changed time on the changed file: now it is read, and stored anew.
	os.Chtimes(path, later, later)
	rep, err = store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
	if err != nil || rep.Ingested != 1 || rep.Files[0].Status != StatusIngested {
		t.Fatalf("third ingest: %+v %v", rep, err)
	}
	// --force reads everything.
	rep, err = store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}, Force: true})
	if err != nil || rep.Ingested != 3 {
		t.Fatalf("forced ingest: %+v %v", rep, err)
	}
}

// An embedding failure fails the documents of its call, and the ingest goes on.
func TestAnEmbeddingFailureFailsItsDocumentsOnly(t *testing.T) {
	_, store := openTestStore(t)
	items := manyFiles(t, t.TempDir(), 4)
	emb := &failOnce{}
	rep, err := store.Ingest(context.Background(), items, IngestOptions{Embedder: emb, EmbedGroup: 1})
	if err != nil || rep.Failed != 1 || rep.Ingested != 3 {
		t.Fatalf("want 1 failed, 3 stored: %+v %v", rep, err)
	}
	for _, f := range rep.Files {
		if f.Status == StatusFailed && !strings.Contains(f.Reason, "couldn't embed: model gone") {
			t.Errorf("reason %q", f.Reason)
		}
	}
}

type failOnce struct {
	mu     sync.Mutex
	failed bool
}

func (f *failOnce) ID() string { return Builtin{}.ID() }
func (f *failOnce) Embed(ctx context.Context, texts []string, p func(int)) ([][]float32, error) {
	f.mu.Lock()
	first := !f.failed
	f.failed = true
	f.mu.Unlock()
	if first {
		return nil, errors.New("model gone")
	}
	return Builtin{}.Embed(ctx, texts, p)
}

// The progress reports a rate and the time left once a second has passed.
func TestIngestProgressHasARateAndTimeLeft(t *testing.T) {
	_, store := openTestStore(t)
	items := manyFiles(t, t.TempDir(), 40)
	var mu sync.Mutex
	var last Progress
	slow := slowEmbedder{delay: 60 * time.Millisecond}
	rep, err := store.Ingest(context.Background(), items, IngestOptions{Embedder: slow, EmbedGroup: 1, Progress: func(p Progress) {
		mu.Lock()
		if p.Rate > 0 {
			last = p
		}
		mu.Unlock()
	}})
	if err != nil || rep.Ingested != 40 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	if last.Rate <= 0 || last.Files != 40 || last.FilesDone == 0 {
		t.Fatalf("no rate reported: %+v", last)
	}
	if left := float64(last.Files-last.FilesDone) / last.Rate; last.FilesDone < last.Files && last.Remaining.Seconds() < left*0.99 {
		t.Errorf("remaining %v does not follow from %d files left at %.1f/s", last.Remaining, last.Files-last.FilesDone, last.Rate)
	}
}

type slowEmbedder struct{ delay time.Duration }

func (s slowEmbedder) ID() string { return Builtin{}.ID() }
func (s slowEmbedder) Embed(ctx context.Context, texts []string, p func(int)) ([][]float32, error) {
	time.Sleep(s.delay)
	return Builtin{}.Embed(ctx, texts, p)
}

type otherModel struct{ dim int }

func (o otherModel) ID() string { return "ollama:other-model" }
func (o otherModel) Embed(ctx context.Context, texts []string, p func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, o.dim)
		out[i][0] = 1
	}
	return out, nil
}

// Once a write finds the collection built by another model, every further document of the
// ingest fails with that reason, untried, and none is left without an outcome.
func TestAModelMismatchFailsTheRestWithItsReason(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	items := manyFiles(t, dir, 30)
	ctx := context.Background()
	if rep, err := store.Ingest(ctx, items[:1], IngestOptions{Embedder: Builtin{}}); err != nil || rep.Ingested != 1 {
		t.Fatalf("first: %+v %v", rep, err)
	}
	// The collection did not exist when the check was cached: made now by another ingest.
	rep, err := store.Ingest(ctx, items[1:], IngestOptions{Embedder: otherModel{dim: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 29 || len(rep.Files) != 29 {
		t.Fatalf("want all 29 failed: %+v", rep)
	}
	for _, f := range rep.Files {
		if f.Status != StatusFailed || !strings.Contains(f.Reason, "built-in") && !strings.Contains(f.Reason, "builtin") {
			t.Errorf("%s: %s %q", f.Doc, f.Status, f.Reason)
		}
	}
}

package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"warren/config"
	"warren/kb/chunk"
	"warren/kb/load"
)

// secondStore opens the same workspace through its own connection, as another process would.
func secondStore(t *testing.T, ws *Workspace) *Store {
	t.Helper()
	other, err := Open(ws.Dir, config.Sources{}, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return NewStore(other)
}

func vectorCount(t *testing.T, ws *Workspace, collection string) (vectors, chunks int) {
	t.Helper()
	fresh := NewStore(ws)
	vs, err := fresh.vectorStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	vectors = vs.Live(collection)
	ws.DB.QueryRow(`SELECT count(*) FROM chunks WHERE collection = ?`, collection).Scan(&chunks)
	return vectors, chunks
}

func TestConcurrentWritersKeepTheStoresConsistent(t *testing.T) {
	ws, _ := openTestStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		var items []Item
		for i := range 15 {
			path := write(t, dir, fmt.Sprintf("w%d/doc%02d.md", w, i), fmt.Sprintf("# Doc %d of writer %d\n\nPurge text %d.\n", i, w, i))
			items = append(items, Item{Path: path, ID: fmt.Sprintf("w%d/doc%02d.md", w, i), Collection: "general"})
		}
		store := secondStore(t, ws)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
			if err == nil && rep.Failed+rep.Skipped > 0 {
				err = fmt.Errorf("%d failed: %+v", rep.Failed, rep.Files)
			}
			errs[w] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("two writers at once must both succeed: %v", err)
		}
	}
	if v, c := vectorCount(t, ws, "general"); v != c || c != 30 {
		t.Errorf("after concurrent ingests: %d vectors, %d chunks", v, c)
	}
}

func TestAReaderSeesAnotherWritersDocuments(t *testing.T) {
	ws, reader := openTestStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "docs/silane.md", silaneSheet)
	items, _ := CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	reader.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}}) // the reader has its vectors loaded

	writer := secondStore(t, ws)
	doc := &load.Document{ID: "docs/arsine.md", Collection: "suppliers", Language: "en", Meta: map[string]string{}, Source: "elsewhere",
		Sections: []load.Section{{Heading: "Arsine", Text: "Arsine is a highly toxic hydride gas."}}}
	if _, err := writer.AddDocument(ctx, doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	writer.SaveVectors(ctx)
	// The reader's memory is one generation behind: its snapshot must not be written, and its
	// next search must see the writer's document.
	reader.SaveVectors(ctx)
	hits, err := reader.Dense(ctx, BuiltinVector("highly toxic hydride arsine"), chunk.Scope{}, 3)
	if err != nil || len(hits) == 0 || !strings.HasPrefix(hits[0].ChunkID, "docs/arsine.md#") {
		t.Errorf("the reader must reload the changed collection: %+v %v", hits, err)
	}
	if v, c := vectorCount(t, ws, "suppliers"); v != c {
		t.Errorf("a fresh open must agree with the database: %d vectors, %d chunks", v, c)
	}
}

func TestSameIDFromAnotherSourceIsRefused(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	a := write(t, t.TempDir(), "readme.md", "# Alpha\n\nAlpha text.\n")
	b := write(t, t.TempDir(), "readme.md", "# Beta\n\nBeta text.\n")
	store.Ingest(ctx, []Item{{Path: a, ID: "readme.md", Collection: "general"}}, IngestOptions{Embedder: Builtin{}})
	rep, _ := store.Ingest(ctx, []Item{{Path: b, ID: "readme.md", Collection: "general"}}, IngestOptions{Embedder: Builtin{}})
	if rep.Failed != 1 || !strings.Contains(rep.Files[0].Reason, "is taken by") {
		t.Fatalf("a second file with the same ID must not replace the first: %+v", rep.Files)
	}
	if d, _, _ := store.Document(ctx, "readme.md"); d.Title != "Alpha" {
		t.Errorf("the first document was replaced: %+v", d)
	}
}

func TestMovingADocumentUpdatesBothCollections(t *testing.T) {
	ws, store := openTestStore(t)
	ctx := context.Background()
	path := write(t, t.TempDir(), "procedure.md", "# Procedure\n\nPurge before disconnect.\n")
	store.Ingest(ctx, []Item{{Path: path, ID: "procedure.md", Collection: "drafts"}}, IngestOptions{Embedder: Builtin{}})
	store.Ingest(ctx, []Item{{Path: path, ID: "procedure.md", Collection: "standards"}}, IngestOptions{Embedder: Builtin{}, Force: true})
	store.SaveVectors(ctx)
	if v, _ := vectorCount(t, ws, "drafts"); v != 0 {
		t.Errorf("the old collection still holds %d vectors of the moved document", v)
	}
	if hits, _ := store.Dense(ctx, BuiltinVector("purge"), chunk.Scope{Collections: []string{"drafts"}}, 5); len(hits) != 0 {
		t.Errorf("a search of the old collection finds the moved document: %+v", hits)
	}
}

func TestCollectionNamesAreChecked(t *testing.T) {
	ws, store := openTestStore(t)
	path := write(t, t.TempDir(), "x.md", "# X\n\ntext\n")
	rep, _ := store.Ingest(context.Background(), []Item{{Path: path, ID: "x.md", Collection: "../../escape"}}, IngestOptions{Embedder: Builtin{}})
	if rep.Failed != 1 || !strings.Contains(rep.Files[0].Reason, "collection name") {
		t.Errorf("want a refusal naming the rule: %+v", rep.Files)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws.Dir), "escape.g1.gob")); err == nil {
		t.Error("a file was written outside the workspace")
	}
}

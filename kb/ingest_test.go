package kb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"warren/config"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/kb/load/loadtest"
)

func openTestStore(t *testing.T) (*Workspace, *Store) {
	t.Helper()
	dir := t.TempDir()
	if _, err := Init(dir, Migrations); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir, config.Sources{}, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, NewStore(ws)
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const silaneSheet = `---
title: Silane gas data sheet
language: en
---
# Silane

## 1 Identification
Silane, CAS 7803-62-5, UN 2203. A pyrophoric gas that ignites spontaneously in air.

## 2 Handling
Purge the line with nitrogen before every cylinder change.
`

func TestIngestReportsEachBadFileAndStoresTheRest(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	write(t, dir, "docs/silane.md", silaneSheet)
	write(t, dir, "docs/binary.txt", "text\x00with a NUL byte")
	write(t, dir, "docs/latin1.txt", "Gef\xe4hrdung")
	write(t, dir, "docs/empty.md", "")
	write(t, dir, "docs/notes.docx", "not really a docx")
	write(t, dir, "docs/notes.rtf", "{\\rtf1 not read}")
	big := filepath.Join(dir, "docs", "big.txt")
	f, _ := os.Create(big)
	f.Truncate(50 << 20) // a 50 MB file, sparse so the test stays fast
	f.Close()
	os.WriteFile(filepath.Join(dir, "docs", "scan.pdf"), loadtest.PDF([]string{"0 0 1 rg 100 100 200 150 re f"}, ""), 0o644)

	items, err := CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.Ingest(context.Background(), items, IngestOptions{Embedder: Builtin{}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"silane.md":  "",
		"binary.txt": "binary file",
		"latin1.txt": "not valid UTF-8",
		"empty.md":   "empty file",
		"notes.docx": "not a zip package",
		"notes.rtf":  "unsupported format",
		"big.txt":    "larger than the 20 MB limit",
		"scan.pdf":   "no text layer",
	}
	for _, f := range rep.Files {
		reason, ok := want[filepath.Base(f.Path)]
		if !ok {
			t.Errorf("unexpected file %s", f.Path)
			continue
		}
		if reason == "" && f.Status != StatusIngested || reason != "" && (f.Status != StatusSkipped || !strings.Contains(f.Reason, reason)) {
			t.Errorf("%s: status %s, reason %q; want %q", filepath.Base(f.Path), f.Status, f.Reason, reason)
		}
	}
	if rep.Ingested != 1 || rep.Skipped != 7 || !rep.Partial() {
		t.Errorf("report %+v", rep)
	}
	docs, _ := store.Documents(context.Background(), "")
	if len(docs) != 1 || docs[0].ID != "docs/silane.md" || docs[0].Title != "Silane gas data sheet" || docs[0].Chunks < 2 {
		t.Errorf("stored %+v", docs)
	}
}

// cancelAfter embeds with the built-in embedder and cancels the run after n calls.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) ID() string { return Builtin{}.ID() }
func (c *cancelAfter) Embed(ctx context.Context, texts []string, p func(int)) ([][]float32, error) {
	c.mu.Lock()
	c.n--
	n := c.n
	c.mu.Unlock()
	if n < 0 {
		c.cancel()
		return nil, ctx.Err()
	}
	return Builtin{}.Embed(ctx, texts, p)
}

func TestCancelledIngestLeavesBothStoresConsistent(t *testing.T) {
	ws, store := openTestStore(t)
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		write(t, dir, "docs/"+name+".md", "# "+name+"\n\nSection text about "+name+" and purging.\n")
	}
	items, _ := CollectItems([]string{filepath.Join(dir, "docs")}, "general")
	ctx, cancel := context.WithCancel(context.Background())
	// One text per embedding call, so the cancel falls between documents.
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: &cancelAfter{n: 2, cancel: cancel}, EmbedGroup: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Two calls succeed; a third may have been under way when the cancel came, and succeed.
	if !rep.Canceled || rep.Ingested < 2 || rep.Ingested > 3 || rep.Ingested+rep.Failed > 5 {
		t.Fatalf("want a cancelled ingest with 2 or 3 documents stored: %+v", rep)
	}
	// A fresh store reads the snapshot written at cancel: it must hold exactly the stored chunks.
	fresh := NewStore(ws)
	vs, err := fresh.vectorStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var stored int
	ws.DB.QueryRow(`SELECT count(*) FROM chunks`).Scan(&stored)
	var ftsRows int
	ws.DB.QueryRow(`SELECT count(*) FROM chunks_fts`).Scan(&ftsRows)
	if got := vs.Live("general"); got != stored || ftsRows != stored || stored == 0 {
		t.Errorf("vectors %d, lexical rows %d, chunks %d must agree", got, ftsRows, stored)
	}
}

func TestStaleSnapshotIsRebuiltFromTheDatabase(t *testing.T) {
	ws, store := openTestStore(t)
	dir := t.TempDir()
	write(t, dir, "docs/silane.md", silaneSheet)
	items, _ := CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	ctx := context.Background()
	if _, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}}); err != nil {
		t.Fatal(err)
	}
	// A write that never reached the snapshot, as when a process is killed before saving.
	other := NewStore(ws)
	doc := &load.Document{ID: "docs/arsine.md", Collection: "suppliers", Meta: map[string]string{}, Language: "en",
		Sections: []load.Section{{Heading: "Arsine", Text: "Arsine is a highly toxic hydride gas."}}}
	if _, err := other.AddDocument(ctx, doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	fresh := NewStore(ws)
	hits, err := fresh.Dense(ctx, BuiltinVector("highly toxic hydride arsine"), chunk.Scope{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.HasPrefix(hits[0].ChunkID, "docs/arsine.md#") {
		t.Errorf("the stale snapshot must be rebuilt to include the new document: %+v", hits)
	}
}

func TestEmbedderMismatchIsRefusedWithAFix(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	write(t, dir, "docs/silane.md", silaneSheet)
	items, _ := CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	ctx := context.Background()
	store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
	write(t, dir, "docs/silane.md", silaneSheet+"\nRevised.\n")
	model := Ollama{Model: config.Default().Embed.Model} // never called: the mismatch is caught before embedding
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: model})
	if err != nil {
		t.Fatal(err)
	}
	want := "collection \"suppliers\" was embedded with the built-in embedder (512 dims) but warren is set to nomic-embed-text: " +
		"run `warren ingest --rebuild` on its documents (or ingest with --embedder builtin)"
	if rep.Failed != 1 || rep.Files[0].Reason != want {
		t.Errorf("want a refusal that names the embedders and --rebuild:\n got %+v\nwant %s", rep.Files, want)
	}
}

func TestRemoveDocumentRemovesChunksIndexAndVectors(t *testing.T) {
	ws, store := openTestStore(t)
	dir := t.TempDir()
	write(t, dir, "docs/silane.md", silaneSheet)
	items, _ := CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	ctx := context.Background()
	store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
	if ok, err := store.RemoveDocument(ctx, "docs/silane.md"); !ok || err != nil {
		t.Fatalf("remove: %v %v", ok, err)
	}
	store.SaveVectors(ctx)
	var chunks, fts int
	ws.DB.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunks)
	ws.DB.QueryRow(`SELECT count(*) FROM chunks_fts`).Scan(&fts)
	hits, _ := NewStore(ws).Dense(ctx, BuiltinVector("silane"), chunk.Scope{}, 5)
	if chunks != 0 || fts != 0 || len(hits) != 0 {
		t.Errorf("left behind: %d chunks, %d index rows, %d vectors", chunks, fts, len(hits))
	}
	if ok, _ := store.RemoveDocument(ctx, "docs/silane.md"); ok {
		t.Error("removing twice reports nothing removed")
	}
}

func TestLexicalSearchIsScopedAndStemmed(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	add := func(id, coll, lang string, secs ...load.Section) {
		if _, err := store.AddDocument(ctx, &load.Document{ID: id, Collection: coll, Language: lang, Meta: map[string]string{}, Sections: secs},
			Builtin{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("gcp.md", "standards", "en",
		load.Section{Number: "4", Heading: "Cylinder change", Text: "Close the cylinder valve."},
		load.Section{Number: "4.2", Heading: "Purge before disconnect", Text: "Purge the pigtail with nitrogen three times."},
		load.Section{Number: "5", Heading: "Leak checks", Text: "Check every fitting after purging."})
	add("gefstoffv", "regulatory", "de",
		load.Section{Number: "§ 6", Heading: "Gefährdungsbeurteilung", Text: "Der Arbeitgeber hat die Gefährdungen zu beurteilen."})

	hits, _ := store.Lexical(ctx, "purged", "en", chunk.Scope{}, 10)
	if len(hits) != 2 || hits[0].ChunkID != "gcp.md#0001" {
		t.Errorf("stemmed match, heading first: %+v", hits)
	}
	if hits, _ := store.Lexical(ctx, "purge", "en", chunk.Scope{Doc: "gcp.md", Section: "4"}, 10); len(hits) != 1 || hits[0].ChunkID != "gcp.md#0001" {
		t.Errorf("section 4 includes 4.2 but not 5: %+v", hits)
	}
	if hits, _ := store.Lexical(ctx, "Gefährdungsbeurteilungen", "", chunk.Scope{Collections: []string{"regulatory"}}, 10); len(hits) != 1 {
		t.Errorf("German inflection, unknown query language: %+v", hits)
	}
	if hits, _ := store.Lexical(ctx, "purge", "en", chunk.Scope{Collections: []string{"regulatory"}}, 10); len(hits) != 0 {
		t.Errorf("collection scope leaked: %+v", hits)
	}
	if hits, err := store.Lexical(ctx, `"; DROP TABLE chunks; --`, "", chunk.Scope{}, 10); err != nil || len(hits) != 0 {
		t.Errorf("a query with SQL in it is just words: %+v %v", hits, err)
	}
}

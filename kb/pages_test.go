package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load"
	"warren/kb/load/loadtest"
)

// The page of a PDF passage survives the store: every read gives it back.
func TestChunksKeepTheirPageThroughTheStore(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	line := func(y int, s string) string { return fmt.Sprintf("BT /F1 12 Tf 72 %d Td (%s) Tj ET", y, s) }
	page1 := line(700, "1 Silane handling") + "\n" + line(686, "Purge the line with nitrogen before every cylinder change.")
	page2 := line(700, "Leak test every fitting with helium.")
	if err := os.MkdirAll(filepath.Join(dir, "sop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sop", "silane.pdf"), loadtest.PDF([]string{page1, page2}, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	items, err := CollectItems([]string{filepath.Join(dir, "sop")}, "procedures")
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}}); err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	pages := func(chunks []chunk.Chunk) []string {
		var out []string
		for _, c := range chunks {
			out = append(out, c.Section+" "+c.PageRef().Label())
		}
		return out
	}
	want := []string{"1 p. 1", "1 p. 2"}
	all, err := store.DocumentChunks(ctx, "sop/silane.pdf")
	if err != nil || !slices.Equal(pages(all), want) {
		t.Fatalf("document chunks: %v %v, want %v", pages(all), err, want)
	}
	section, err := store.SectionChunks(ctx, "sop/silane.pdf", "1")
	if err != nil || !slices.Equal(pages(section), want) {
		t.Errorf("section chunks: %v %v", pages(section), err)
	}
	byID, err := store.Chunks(ctx, []string{all[1].ID})
	if err != nil || len(byID) != 1 || byID[0].Page != 2 || byID[0].PageKind != chunk.KindPage {
		t.Errorf("chunk by ID: %+v %v", byID, err)
	}
}

// What OCR says of a passage is stored as its page is.
func TestOCRMarksAreStored(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	doc := &load.Document{ID: "scans/cabinet", Collection: "procedures", Title: "Cabinet", Source: "/scans/cabinet.pdf",
		Format: "pdf", Hash: "h", Meta: map[string]string{}}
	c := chunk.Chunk{ID: chunk.ID(doc.ID, 0), Doc: doc.ID, Collection: doc.Collection, Section: "2", Text: "Close the valve.",
		Page: 3, PageKind: chunk.KindPage, OCR: true, OCRConfidence: 91.5}
	if err := store.ReplaceDocument(ctx, doc, []chunk.Chunk{c}, [][]float32{{1, 0}}, "test"); err != nil {
		t.Fatal(err)
	}
	got, err := store.Chunks(ctx, []string{c.ID})
	if err != nil || len(got) != 1 || got[0] != c {
		t.Errorf("got %+v %v, want %+v", got, err, c)
	}
}

// A workspace whose chunks were stored before pages were recorded opens, and its chunks read
// as having no page.
func TestChunksStoredBeforePagesReadWithout(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	old := slices.DeleteFunc(slices.Clone(Migrations), func(m Migration) bool { return m.Version == pagesMigration.Version })
	db, err := OpenDB(path, old)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO collections (name, embedder, dim) VALUES ('c', 'test', 2)`,
		`INSERT INTO documents (id, collection, title, source, format, language, hash, meta, chunks, ingested_at)
		 VALUES ('d', 'c', 'D', '/d.pdf', 'pdf', 'en', 'h', '{}', 1, '2025-01-01T00:00:00Z')`,
		`INSERT INTO chunks (id, doc, collection, section, section_path, heading, text, file, start_byte, end_byte, hash, seq, vector)
		 VALUES ('d#0000', 'd', 'c', '1', '1', 'Scope', 'Old text.', '', 0, 9, 'x', 0, x'0000803f00000000')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if db, err = OpenDB(path, Migrations); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := &Store{db: db}
	got, err := store.DocumentChunks(context.Background(), "d")
	if err != nil || len(got) != 1 || got[0].Text != "Old text." || !got[0].PageRef().IsZero() {
		t.Errorf("old chunk: %+v %v", got, err)
	}
}

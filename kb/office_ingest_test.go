package kb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load/loadtest"
	"warren/retrieval/refs"
)

// A law text in Word is found and cited by its section as the same text in Markdown is, and
// its chunks carry the same references. Detection itself runs in the service on chunk text,
// so the check here is that the chunk text holds what the regex detector finds in Markdown.
func TestDOCXLawTextIsSearchedAndCitedLikeMarkdown(t *testing.T) {
	_, store := openTestStore(t)
	dir := t.TempDir()
	const marker = "Der Arbeitgeber prüft vor jeder Tätigkeit mit Silan die Zündquellen im Gasschrank."
	const refText = "Die Gefährdungsbeurteilung nach § 7 Absatz 1 und Artikel 3 der Verordnung (EG) Nr. 1272/2008 ist zu dokumentieren."
	body := loadtest.WordPara("Heading1", "Abschnitt 2 Gefährdungsbeurteilung") +
		loadtest.WordPara("Heading2", "§ 6 Informationsermittlung") +
		loadtest.WordPara("", marker) + loadtest.WordPara("", refText) +
		loadtest.WordPara("Heading2", "§ 8 Allgemeine Schutzmaßnahmen") +
		loadtest.WordPara("", "Gefahrstoffe sind in Behältern aufzubewahren, die ihren Inhalt eindeutig erkennen lassen.")
	if err := os.MkdirAll(filepath.Join(dir, "law"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "law", "gefstoffv.docx"), loadtest.DOCX(body, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "md/gefstoffv.md", "# Abschnitt 2 Gefährdungsbeurteilung\n\n## § 6 Informationsermittlung\n\n"+marker+"\n\n"+refText+"\n")
	ctx := context.Background()
	for _, sub := range []string{"law", "md"} {
		items, err := CollectItems([]string{filepath.Join(dir, sub)}, "regulatory")
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}}); err != nil || rep.Ingested != 1 {
			t.Fatalf("ingest %s: %+v %v", sub, rep, err)
		}
	}

	hits, err := store.Lexical(ctx, "Zündquellen Gasschrank Silan", "de", chunk.Scope{Doc: "law/gefstoffv.docx"}, 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %+v %v", hits, err)
	}
	top, err := store.Chunks(ctx, []string{hits[0].ChunkID})
	if err != nil || len(top) != 1 {
		t.Fatalf("chunk %s: %v", hits[0].ChunkID, err)
	}
	c := top[0]
	if c.Section != "§ 6" || c.Heading != "Informationsermittlung" || c.SectionPath != "Abschnitt 2 › § 6" {
		t.Errorf("top passage cited as %q %q (%q), want § 6 Informationsermittlung under Abschnitt 2", c.Section, c.Heading, c.SectionPath)
	}

	keys := func(doc string) []string {
		chunks, err := store.DocumentChunks(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range chunks {
			if c.Section == "§ 6" {
				for _, r := range refs.DetectRegex(c.Text) {
					out = append(out, r.Key())
				}
			}
		}
		return out
	}
	fromDOCX, fromMD := keys("law/gefstoffv.docx"), keys("md/gefstoffv.md")
	if len(fromMD) == 0 || !slices.Equal(fromDOCX, fromMD) {
		t.Errorf("references in § 6: DOCX %v, Markdown %v", fromDOCX, fromMD)
	}
}

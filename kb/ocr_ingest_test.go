package kb

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/kb/load"
	"warren/kb/load/loadtest"
)

// A scanned page goes through the whole ingest: read by OCR, stored with its page and
// confidence, and cited as read by OCR. The text pages around it keep their text layer.
func TestIngestStoresOCRChunks(t *testing.T) {
	if st := load.CheckOCR(context.Background(), load.DefaultOCRLanguages); st.PDFProblem != "" {
		if os.Getenv("WARREN_REQUIRE_OCR") == "1" {
			t.Fatalf("OCR is not available: %s", st.PDFProblem)
		}
		t.Skipf("OCR is not available (%s); install it with `%s`", st.PDFProblem, st.Fix)
	}
	printed := loadtest.Pages([]loadtest.Page{{Content: loadtest.TextLines([]string{
		"Close the cylinder valve before the regulator is removed.",
		"Purge the line with nitrogen three times.",
	}, 12)}})
	scan, err := loadtest.Render(printed, 300)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sop"), 0o755)
	pdf := loadtest.Pages([]loadtest.Page{
		{Content: loadtest.TextLines([]string{"Silane cabinet procedure, typed page."}, 12)},
		{Image: scan},
	})
	if err := os.WriteFile(filepath.Join(dir, "sop", "cabinet.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	_, store := openTestStore(t)
	ctx := context.Background()
	items, err := CollectItems([]string{filepath.Join(dir, "sop")}, "procedures")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{},
		Load: load.LoadOptions{OCR: load.OCROptions{Mode: load.OCRAuto}}})
	if err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	chunks, err := store.DocumentChunks(ctx, "sop/cabinet.pdf")
	if err != nil || len(chunks) != 2 {
		t.Fatalf("chunks %+v %v", chunks, err)
	}
	typed, scanned := chunks[0], chunks[1]
	if typed.Page != 1 || typed.OCR || typed.OCRConfidence != 0 {
		t.Errorf("the typed page: %+v", typed)
	}
	if scanned.Page != 2 || !scanned.OCR || scanned.OCRConfidence < 80 || !strings.Contains(scanned.Text, "nitrogen three times") {
		t.Errorf("the scanned page: %+v", scanned)
	}
	if l := scanned.PageRef().Label(); !strings.HasPrefix(l, "p. 2, read by OCR, ") || !strings.HasSuffix(l, " % confidence") {
		t.Errorf("its citation says %q", l)
	}
	doc, ok, err := store.Document(ctx, "sop/cabinet.pdf")
	if err != nil || !ok || doc.Meta["ocr_pages"] != "page 2" {
		t.Errorf("document %+v %v", doc, err)
	}
}

// A PDF stored without its scanned page (OCR off) says so on its line of the ingest report.
func TestIngestReportsPagesNotRead(t *testing.T) {
	dir := t.TempDir()
	pdf := loadtest.Pages([]loadtest.Page{
		{Content: loadtest.TextLines([]string{"Silane cabinet procedure, typed page."}, 12)},
		{Image: image.NewGray(image.Rect(0, 0, 200, 200))},
	})
	path := filepath.Join(dir, "cabinet.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	_, store := openTestStore(t)
	rep, err := store.Ingest(context.Background(), []Item{{Path: path, ID: "cabinet.pdf", Collection: "procedures"}},
		IngestOptions{Embedder: Builtin{}, Load: load.LoadOptions{OCR: load.OCROptions{Mode: load.OCROff}}})
	if err != nil || rep.Ingested != 1 || len(rep.Files) != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	if got := rep.Files[0].Reason; !strings.HasPrefix(got, "stored without page 2: no text layer") {
		t.Errorf("the report says %q", got)
	}
}

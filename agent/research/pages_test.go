package research

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load/loadtest"
	"warren/registry"
)

// pdfKB holds one PDF whose section 1 runs from page 1 onto page 2.
func pdfKB(t testing.TB) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	dir := t.TempDir()
	line := func(y int, s string) string { return fmt.Sprintf("BT /F1 12 Tf 72 %d Td (%s) Tj ET", y, s) }
	pages := []string{
		line(700, "1 Wombat purge") + "\n" + line(686, "The wombat purge runs five nitrogen cycles."),
		line(700, "The wombat purge ends with a leak test at eight bar."),
	}
	if err := os.WriteFile(filepath.Join(dir, "wombat.pdf"), loadtest.PDF(pages, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	reg.Collections["procedures"] = &registry.Collection{Description: "test procedures",
		Documents: []registry.Document{{Path: "wombat.pdf", Title: "Wombat Procedure"}}}
	path := filepath.Join(dir, "registry.json")
	if err := reg.Save(path); err != nil {
		t.Fatal(err)
	}
	return testkb.FromRegistry(t, path)
}

// A report citing a passage of a PDF names its page in the source list, and the finding and
// source keep it.
func TestReportCitationsOfAPDFNameTheirPage(t *testing.T) {
	h := newHarnessOn(t, pdfKB)
	scriptFollowAll(h.srv)
	s := runOneTask(t, h, "pdf", "wombat purge")
	if len(s.Sources) == 0 {
		t.Fatalf("no sources (findings %+v)", s.Findings)
	}
	report := FullReport(s)
	for _, src := range s.Sources {
		if src.Page == 0 || src.Kind != chunk.KindPage {
			t.Errorf("source [%d] %s has no page: %+v", src.N, src.ChunkID, src)
		}
		want := fmt.Sprintf("[%d] wombat.pdf 1, p. %d (procedures, chunk %s)", src.N, src.Page, src.ChunkID)
		if !strings.Contains(report, want) {
			t.Errorf("the source list lacks %q:\n%s", want, report)
		}
	}
	for _, f := range s.Findings {
		if f.Page == 0 {
			t.Errorf("finding from %s has no page", f.ChunkID)
		}
	}
}

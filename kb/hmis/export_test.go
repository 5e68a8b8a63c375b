package hmis

import (
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The export sizes its columns for their headers and values on both sheets, and each comment
// names who stands behind the value: the analyst for what they decided, else warren.
func TestExportWidthsAndCommentAuthors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "export.xlsx")
	tab := sampleTable()
	if err := ExportXLSX(tab, path); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sheet, headers := range map[string][]string{SheetHMIS: tab.Columns, SheetProvenance: provenanceHeaders} {
		for j, h := range headers {
			col := columnLetters(j + 1)
			w, err := f.GetColWidth(sheet, col)
			if err != nil || w < float64(len([]rune(h)))+2 || w > maxColumnWidth {
				t.Errorf("%s column %s %q is %.1f wide (%v)", sheet, col, h, w, err)
			}
		}
	}
	// The excerpt column fits its longest excerpt (45 characters) but not beyond the cap.
	if w, _ := f.GetColWidth(SheetProvenance, "N"); w < 45 || w > provenanceWidthMax+2 {
		t.Errorf("the excerpt column is %.1f wide", w)
	}
	comments, err := f.GetComments(SheetHMIS)
	if err != nil {
		t.Fatal(err)
	}
	authors := map[string]string{}
	for _, c := range comments {
		authors[c.Cell] = c.Author
	}
	// C2 filled, E2 review, F2 approved, G2 edited, H2 rejected, C3 invalid in the sheet.
	for cell, want := range map[string]string{"C2": "warren", "E2": "warren", "F2": analystName(), "G2": analystName(),
		"H2": analystName(), "C3": "warren"} {
		if authors[cell] != want {
			t.Errorf("comment of %s by %q, want %q", cell, authors[cell], want)
		}
	}
	if analystName() == "" || analystName() == "warren" {
		t.Errorf("analyst name %q", analystName())
	}
}

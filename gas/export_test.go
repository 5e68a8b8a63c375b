package gas

import "testing"

// The export sizes its columns for their headers and values on both sheets, and each comment
// names who stands behind the value: the analyst for what they decided, else warren.
func TestExportWidthsAndCommentAuthors(t *testing.T) {
	tab := sampleTable()
	f, _ := exportOpen(t, tab)
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
	if w, _ := f.GetColWidth(SheetProvenance, "O"); w < 45 || w > provenanceWidthMax+2 {
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
	// C2 filled, E2 review, F2 approved by alice, G2 edited by bob, H2 rejected before names
	// were recorded, C3 invalid in the sheet.
	for cell, want := range map[string]string{"C2": "warren", "E2": "warren", "F2": "alice", "G2": "bob",
		"H2": noName, "C3": "warren"} {
		if authors[cell] != want {
			t.Errorf("comment of %s by %q, want %q", cell, authors[cell], want)
		}
	}
}

// The Provenance sheet names who decided each decided cell; a decision without a recorded
// name shows noName, and a value nobody decided names no one.
func TestProvenanceNamesWhoDecided(t *testing.T) {
	f, _ := exportOpen(t, sampleTable())
	rows, err := f.GetRows(SheetProvenance)
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	by := map[string]string{}
	for _, r := range rows[1:] {
		v := ""
		if j := col["Decided By"]; j < len(r) {
			v = r[j]
		}
		f, ok := MatchHeader(r[col["Field"]]) // the Field column holds the sheet's header
		if !ok {
			t.Errorf("the Field column %q names no field", r[col["Field"]])
		}
		by[r[col["Chemical Name"]]+"/"+f.Name] = v
	}
	for cell, want := range map[string]string{"Silane/hmis_health": "alice", "Silane/ghs02_flammable": "bob",
		"Silane/h_statements": noName, "Silane/boiling_point_c": "", "Hydrogen/boiling_point_c": ""} {
		if got, ok := by[cell]; !ok || got != want {
			t.Errorf("Decided By of %s is %q (listed %v), want %q", cell, got, ok, want)
		}
	}
}

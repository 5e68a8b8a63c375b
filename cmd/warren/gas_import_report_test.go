package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"warren/gas"
)

// `warren gas import` says what the import kept aside or left for review: in words, and with
// --json in fields.
func TestGasImportPrintsTheReport(t *testing.T) {
	env := []string{"WARREN_WORKSPACE=" + t.TempDir(), "OLLAMA_HOST=127.0.0.1:1"}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "fab.csv")
	if err := os.WriteFile(csv, []byte("Chemical Name,CAS No.,Boiling Pt\nSilane,7803-62-6,-111.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := warren(t, env, "gas", "import", csv)
	for _, s := range []string{`Imported "fab": 1 rows`, `Column C "Boiling Pt" → not matched; did you mean Boiling Point (°C)?`,
		"1 value of the sheet doesn't validate", `row 1 "Silane": CAS No.: "7803-62-6" has a wrong check digit`} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("import of %s doesn't say %q: %+v", csv, s, r)
		}
	}

	// An export with a value filled at low confidence: valid, awaiting review, not invalid.
	tab := &gas.Table{Name: "fab2", Columns: []string{"Chemical Name", "LEL (vol %)"}, Rows: []*gas.Row{{ID: 1, Cells: map[string]gas.Cell{
		"chemical_name": {Value: "Silane", Status: gas.StatusOriginal},
		"lel_vol_pct":   {Value: "1.37", Unit: "vol %", Status: gas.StatusReview, Confidence: 0.45, Method: "extract", SourceDoc: "gas-handbook"},
	}}}}
	xlsx := filepath.Join(dir, "fab2.xlsx")
	if err := gas.ExportXLSX(tab, xlsx); err != nil {
		t.Fatal(err)
	}
	r = warren(t, env, "gas", "import", xlsx)
	if r.code != 0 || !strings.Contains(r.stdout, "1 valid value awaits your review") || strings.Contains(r.stdout, "invalid") {
		t.Errorf("import of an export with a value for review: %+v", r)
	}
	r = warren(t, env, "gas", "import", xlsx, "--name", "again", "--json")
	var sum struct {
		Table            string
		FlaggedInSheet   int                   `json:"flagged_in_sheet"`
		HeaderRows       []int                 `json:"header_rows"`
		UnmatchedHeaders []gas.UnmatchedHeader `json:"unmatched_headers"`
		Unmatched        []json.RawMessage     `json:"unmatched_provenance"`
		Invalid          []gas.ReportCell      `json:"invalid_cells"`
		Review           []gas.ReportCell      `json:"review_pending"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("import --json: %+v", r)
	}
	if sum.Table != "again" || sum.FlaggedInSheet != 0 || len(sum.HeaderRows) != 1 || sum.UnmatchedHeaders == nil || sum.Unmatched == nil ||
		sum.Invalid == nil || len(sum.Review) != 1 || sum.Review[0].Field != "lel_vol_pct" || sum.Review[0].Value != "1.37" {
		t.Errorf("import --json: %+v\n%s", sum, r.stdout)
	}
}

// The spreadsheet round trip through the CLI and the store: an analyst's comment and an edited
// original value come back, are said by the import and are kept by the table it stores.
func TestGasImportKeepsTheAnalystsCommentsAndEdits(t *testing.T) {
	env := []string{"WARREN_WORKSPACE=" + t.TempDir(), "OLLAMA_HOST=127.0.0.1:1"}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "fab.csv")
	if err := os.WriteFile(csv, []byte("Chemical Name,CAS No.,LEL (vol %)\nSilane,7803-62-5,1.37\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xlsx := filepath.Join(dir, "fab.xlsx")
	for _, args := range [][]string{{"gas", "import", csv}, {"gas", "export", xlsx}} {
		if r := warren(t, env, args...); r.code != 0 {
			t.Fatalf("%q: %+v", args, r)
		}
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddComment(gas.SheetHMIS, excelize.Comment{Cell: "B2", Author: "carol", Text: "checked on the label"}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellValue(gas.SheetHMIS, "C2", 1.4); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := warren(t, env, "gas", "import", xlsx, "--replace")
	for _, s := range []string{`1 value was changed in the workbook after the export:`,
		`row 1 "Silane", LEL (vol %): changed in the workbook after export; the original value was "1.37"`,
		`1 comment in the workbook kept in the cells' notes:`, `B2, row 1 "Silane", CAS No.: comment by carol in the workbook: checked on the label`} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("the import doesn't say %q: %+v", s, r)
		}
	}
	// The stored table has them: export it again and read its Provenance sheet.
	again := filepath.Join(dir, "again.xlsx")
	if r := warren(t, env, "gas", "export", again); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	tab, err := gas.ImportXLSX(again)
	if err != nil {
		t.Fatal(err)
	}
	row := tab.Rows[0]
	if c := row.Cells["lel_vol_pct"]; c.Status != gas.StatusEdited || c.Value != "1.4" || !strings.Contains(c.Note, `"1.37"`) {
		t.Errorf("stored LEL: %+v", c)
	}
	if c := row.Cells["cas_number"]; c.Status != gas.StatusOriginal || c.Note != "comment by carol in the workbook: checked on the label" {
		t.Errorf("stored CAS number: %+v", c)
	}
}

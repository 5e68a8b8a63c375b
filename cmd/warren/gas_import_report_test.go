package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

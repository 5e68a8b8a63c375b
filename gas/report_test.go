package gas

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// reportTable has values of every kind the round trip must keep: an original 2.016 that a
// "0.0" format shows as 2.0, approved and filled values with sources, valid values awaiting
// review, a value that doesn't validate, and a chemical without a CAS number.
func reportTable() *Table {
	filled := func(v string, st Status, conf float64, doc string) Cell {
		return Cell{Value: v, Unit: "g/mol", Status: st, Confidence: conf, Method: "extract", SourceDoc: doc, UpdatedAt: at}
	}
	lel := func(v string, st Status, conf float64) Cell {
		return Cell{Value: v, Unit: "vol %", Status: st, Confidence: conf, Method: "extract", SourceDoc: "gas-handbook", UpdatedAt: at}
	}
	f, _ := FieldByName("lel_vol_pct")
	return &Table{
		Name:    "fab3",
		Columns: []string{"Chemical Name", "CAS No.", "Molecular Weight (g/mol)", "LEL (vol %)"},
		Rows: []*Row{
			{ID: 1, Cells: map[string]Cell{"chemical_name": {Value: "Hydrogen", Status: StatusOriginal},
				"cas_number": {Value: "1333-74-0", Status: StatusOriginal}, "molecular_weight": {Value: "2.016", Unit: "g/mol", Status: StatusOriginal},
				"lel_vol_pct": sheetCell(f, "ca. 4", "")}},
			{ID: 2, Cells: map[string]Cell{"chemical_name": {Value: "Silane", Status: StatusOriginal},
				"cas_number": {Value: "7803-62-5", Status: StatusOriginal}, "molecular_weight": filled("32.12", StatusApproved, 0.9, "sds-silane"),
				"lel_vol_pct": lel("1.37", StatusReview, 0.45)}},
			{ID: 3, Cells: map[string]Cell{"chemical_name": {Value: "Phosphine", Status: StatusOriginal},
				"cas_number": {Value: "7803-51-2", Status: StatusOriginal}, "molecular_weight": filled("34", StatusFilled, 0.85, "sds-phosphine"),
				"lel_vol_pct": lel("1.6", StatusReview, 0.5)}},
			{ID: 4, Cells: map[string]Cell{"chemical_name": {Value: "Arsine", Status: StatusOriginal},
				"cas_number": {Value: "7784-42-1", Status: StatusOriginal}, "molecular_weight": filled("77.95", StatusApproved, 0.8, "sds-arsine"),
				"lel_vol_pct": lel("5.1", StatusFilled, 0.8)}},
			{ID: 5, Cells: map[string]Cell{"chemical_name": {Value: "Germane", Status: StatusOriginal},
				"molecular_weight": filled("76.64", StatusApproved, 0.9, "sds-germane")}},
		},
	}
}

// analystEdits does to an export what an analyst did in LibreOffice Calc: a row of units under
// the header with the header's first cells merged down over it, the molecular weights and the
// confidences formatted "0.0", a lower explosive limit typed as a percentage, two chemicals
// renamed (one of them without a CAS number), and three new columns: "Boiling Pt", a date and
// a yes/no.
func analystEdits(t *testing.T, path string) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.InsertRows(SheetHMIS, 2, 1))
	for cell, v := range map[string]any{"C1": "Molecular Weight", "C2": "g/mol", "D1": "LEL", "D2": "vol %",
		"E1": "Boiling Pt", "F1": "Checked", "G1": "Leak tested", "A6": "Arsine (AsH3)", "A7": "Germane (GeH4)",
		"E3": -252.9, "E4": -111.9, "F3": time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "G3": true, "G4": false} {
		must(f.SetCellValue(SheetHMIS, cell, v))
	}
	for _, r := range []string{"A1:A2", "B1:B2", "E1:E2", "F1:F2", "G1:G2"} {
		from, to, _ := strings.Cut(r, ":")
		must(f.MergeCell(SheetHMIS, from, to))
	}
	oneDecimal, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptrTo("0.0")})
	must(err)
	must(f.SetCellStyle(SheetHMIS, "C3", "C7", oneDecimal))
	isoDate, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptrTo("yyyy-mm-dd")})
	must(err)
	must(f.SetCellStyle(SheetHMIS, "F3", "F3", isoDate))
	percent, err := f.NewStyle(&excelize.Style{NumFmt: 10}) // 0.00%
	must(err)
	must(f.SetCellValue(SheetHMIS, "D5", 0.016)) // phosphine's 1.6, typed as 1.6 %
	must(f.SetCellStyle(SheetHMIS, "D5", "D5", percent))
	prov, err := f.GetRows(SheetProvenance)
	must(err)
	must(f.SetCellStyle(SheetProvenance, "I2", "I"+strconv.Itoa(len(prov)), oneDecimal))
	must(f.Save())
}

func ptrTo[T any](v T) *T { return &v }

func TestXLSXRoundTripThroughTheAnalystsSpreadsheet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fab3.xlsx")
	want := reportTable()
	if err := ExportXLSX(want, path); err != nil {
		t.Fatal(err)
	}
	analystEdits(t, path)
	// What the cells show is not what they store: the check would be void otherwise.
	if f, err := excelize.OpenFile(path); err == nil {
		if shown, _ := f.GetCellValue(SheetHMIS, "C3"); shown != "2.0" {
			t.Fatalf("the 0.0 format shows 2.016 as %q", shown)
		}
		f.Close()
	}

	got, rep, err := ImportXLSXWithReport(path)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"Chemical Name", "CAS No.", "Molecular Weight (g/mol)", "LEL (vol %)", "Boiling Pt", "Checked", "Leak tested"}
	if !reflect.DeepEqual(got.Columns, wantCols) || len(got.Rows) != 5 {
		t.Fatalf("columns %q, %d rows; want %q and 5 rows (the units are no data row)", got.Columns, len(got.Rows), wantCols)
	}
	want.Rows[3].Cells["chemical_name"] = Cell{Value: "Arsine (AsH3)", Status: StatusOriginal}
	want.Rows[4].Cells["chemical_name"] = Cell{Value: "Germane (GeH4)", Status: StatusOriginal}
	// Germane's record matches no row: its approved value reads as the sheet's.
	want.Rows[4].Cells["molecular_weight"] = Cell{Value: "76.64", Unit: "g/mol", Status: StatusOriginal}
	for i, w := range want.Rows {
		g := got.Rows[i]
		if g.ID != w.ID {
			t.Errorf("row %d has ID %d", w.ID, g.ID)
		}
		for _, f := range Fields() {
			if gc, wc := g.Cells[f.Name], w.Cells[f.Name]; !sameCell(gc, wc) {
				t.Errorf("row %d %s:\n got %+v\nwant %+v", w.ID, f.Name, gc, wc)
			}
		}
	}
	wantExtra := map[string]string{"Boiling Pt": "-252.9", "Checked": "2026-03-01", "Leak tested": "TRUE"}
	if e := got.Rows[0].Extra; !reflect.DeepEqual(e, wantExtra) {
		t.Errorf("hydrogen's extra columns %q, want %q", e, wantExtra)
	}
	if e := got.Rows[1].Extra; e["Leak tested"] != "FALSE" || e["Boiling Pt"] != "-111.9" {
		t.Errorf("silane's extra columns %q", e)
	}

	if !reflect.DeepEqual(rep.HeaderRows, []int{1, 2}) {
		t.Errorf("header rows %v, want [1 2]", rep.HeaderRows)
	}
	wantHeaders := []UnmatchedHeader{
		{Column: "E", Header: "Boiling Pt", Field: "boiling_point_c", Suggestion: "Boiling Point (°C)"},
		{Column: "F", Header: "Checked"},
		{Column: "G", Header: "Leak tested"},
	}
	if !reflect.DeepEqual(rep.UnmatchedHeaders, wantHeaders) {
		t.Errorf("unmatched headers\n got %+v\nwant %+v", rep.UnmatchedHeaders, wantHeaders)
	}
	wantRenamed := []RenamedRow{{SheetRow: 6, Was: "Arsine", Now: "Arsine (AsH3)", CAS: "7784-42-1", Records: 2}}
	if !reflect.DeepEqual(rep.RenamedRows, wantRenamed) {
		t.Errorf("renamed rows %+v, want %+v", rep.RenamedRows, wantRenamed)
	}
	if len(rep.UnmatchedProvenance) != 1 {
		t.Fatalf("unmatched provenance %+v, want germane's record", rep.UnmatchedProvenance)
	}
	if p := rep.UnmatchedProvenance[0]; p.Chemical != "Germane" || p.Field != "molecular_weight" || p.SheetRow != 6 ||
		!sameCell(p.Cell, reportTable().Rows[4].Cells["molecular_weight"]) {
		t.Errorf("germane's record %+v", p)
	}
	cellsOf := func(cs []ReportCell) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Chemical+" "+c.Field+" "+c.Value)
		}
		return out
	}
	if got := cellsOf(rep.InvalidCells); !reflect.DeepEqual(got, []string{"Hydrogen lel_vol_pct ca. 4"}) {
		t.Errorf("invalid cells %q", got)
	}
	if got := cellsOf(rep.ReviewPending); !reflect.DeepEqual(got, []string{"Silane lel_vol_pct 1.37", "Phosphine lel_vol_pct 1.6"}) {
		t.Errorf("cells awaiting review %q", got)
	}
	if len(rep.ChangedAfterExport) != 0 {
		t.Errorf("values read as changed after the export: %+v", rep.ChangedAfterExport)
	}

	text := strings.Join(rep.Lines(), "\n")
	for _, s := range []string{
		"sheet rows 1–2",
		`Column E "Boiling Pt" → not matched; did you mean Boiling Point (°C)?`,
		`Column F "Checked" matches no field: kept as an extra column.`,
		`Sheet row 6 was "Arsine" when exported and is "Arsine (AsH3)" now: 2 Provenance records found by CAS number 7784-42-1.`,
		`1 Provenance record matches no row`, `Provenance row`, `"Germane" (sheet row 6), Molecular Weight (g/mol) "76.64", approved, from sds-germane`,
		`1 value of the sheet doesn't validate, kept as written and flagged for review:`,
		`row 1 "Hydrogen": LEL (vol %): "ca. 4" isn't a number`,
		`2 valid values await your review`, `row 2 "Silane", LEL (vol %) "1.37"`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the report doesn't say %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "2 values") || strings.Contains(text, "changed in the workbook") {
		t.Errorf("the report counts valid values as invalid or sees changes:\n%s", text)
	}
}

// The CSV importer reports unmatched headers as the xlsx importer does.
func TestCSVReportsUnmatchedHeaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gases.csv")
	csv := "Chemical Name;CAS No.;Boiling Pt;Checked;Leak tested;CAS\nHydrogen;1333-74-0;-252,9;2026-03-01;TRUE;1333-74-0\n" +
		"Silane;7803-62-5;-111,9;;FALSE;\nBad;1333-74-1;;;;\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, rep, err := ImportCSVWithReport(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []UnmatchedHeader{
		{Column: "C", Header: "Boiling Pt", Field: "boiling_point_c", Suggestion: "Boiling Point (°C)"},
		{Column: "D", Header: "Checked"},
		{Column: "E", Header: "Leak tested"},
		{Column: "F", Header: "CAS", Field: "cas_number", Duplicate: "CAS No."},
	}
	if !reflect.DeepEqual(rep.UnmatchedHeaders, want) {
		t.Errorf("unmatched headers\n got %+v\nwant %+v", rep.UnmatchedHeaders, want)
	}
	if tab.Rows[0].Extra["Boiling Pt"] != "-252,9" || tab.Rows[0].Extra["Checked"] != "2026-03-01" {
		t.Errorf("extra %q", tab.Rows[0].Extra)
	}
	if len(rep.InvalidCells) != 1 || rep.InvalidCells[0].Field != "cas_number" || len(rep.ReviewPending) != 0 {
		t.Errorf("invalid %+v, awaiting review %+v", rep.InvalidCells, rep.ReviewPending)
	}
	text := strings.Join(rep.Lines(), "\n")
	for _, s := range []string{`Column C "Boiling Pt" → not matched; did you mean Boiling Point (°C)?`,
		`Column F "CAS" names CAS No. like column "CAS No." before it: kept as an extra column.`,
		`1 value of the sheet doesn't validate`} {
		if !strings.Contains(text, s) {
			t.Errorf("the report doesn't say %q:\n%s", s, text)
		}
	}
	if rep.RenamedRows == nil || rep.UnmatchedProvenance == nil || rep.ChangedAfterExport == nil {
		t.Error("empty lists must be empty, not null, in --json")
	}
}

func TestSuggestField(t *testing.T) {
	for header, want := range map[string]string{
		"Boiling Pt": "boiling_point_c", "Mol Wt": "molecular_weight", "Molecualr Weight": "molecular_weight",
		"Auto Ignition Temp": "autoignition_c", "Crit. Temp (K)": "critical_temperature_c", "Vap. Press.": "vapour_pressure_bar",
		"Checked": "", "Remarks": "", "Cabinet": "", "Supplier": "", "Hazard": "", "Leak tested": "",
	} {
		f, ok := SuggestField(header)
		if got := f.Name; got != want || ok != (want != "") {
			t.Errorf("SuggestField(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}

func TestFormatCodeClass(t *testing.T) {
	for code, want := range map[string]fmtClass{
		"0.0": fmtPlain, "#,##0.00": fmtPlain, "0.00E+00": fmtPlain, "General": fmtPlain, "@": fmtPlain,
		`0.0 "mg/m³"`: fmtPlain, `[$€-407] #,##0.00`: fmtPlain, `0.0;[Red]-0.0`: fmtPlain,
		"0%": fmtPercent, "0.00 %": fmtPercent, `"%"0`: fmtPlain,
		"yyyy-mm-dd": fmtDate, "DD.MM.YYYY": fmtDate, "h:mm AM/PM": fmtDate, "[h]:mm": fmtDate, `[$-F800]dddd\, mmmm dd\, yyyy`: fmtDate,
	} {
		if got := formatCodeClass(code); got != want {
			t.Errorf("formatCodeClass(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestCombineHeaderCell(t *testing.T) {
	for _, c := range [][3]string{
		{"Molecular Weight", "g/mol", "Molecular Weight (g/mol)"},
		{"NFPA", "Health", "NFPA (Health)"},
		{"Physical", "Boiling Point", "Boiling Point"},
		{"Chemical Name", "", "Chemical Name"},
		{"", "vol %", "vol %"},
		{"Storage", "Cabinet", "Storage Cabinet"},
	} {
		if got := combineHeaderCell(c[0], c[1]); got != c[2] {
			t.Errorf("combineHeaderCell(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

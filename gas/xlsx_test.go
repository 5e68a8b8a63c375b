package gas

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"warren/kb/chunk"
)

var at = time.Date(2026, 3, 1, 12, 30, 15, 123456789, time.UTC)

// exportOpen exports tab to a temporary workbook and opens it; the file is closed at cleanup.
func exportOpen(t *testing.T, tab *Table) (*excelize.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "export.xlsx")
	if err := ExportXLSX(tab, path); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

// sampleTable has one cell of every status, an invalid sheet value, a not-applicable value
// and two unknown columns.
func sampleTable() *Table {
	return &Table{
		Name: "fab2 process gases",
		Columns: []string{"Chemical Name", "CAS-Nr.", "Boiling point [C]", "Cabinet", "LEL (%)", "HMIS Health",
			"GHS02 Flammable", "H-Statements", "Flash Point (°C)", "Molecular Weight (g/mol)", "IDLH (ppm)", "Remarks", "UEL (%)"},
		Rows: []*Row{
			{ID: 1, Cells: map[string]Cell{
				"chemical_name":    {Value: "Silane", Status: StatusOriginal},
				"cas_number":       {Value: "7803-62-5", Status: StatusOriginal},
				"boiling_point_c":  {Value: "-111.9", Unit: "°C", Status: StatusFilled, Confidence: 0.85, Method: "extract", SourceDoc: "sds-silane", SourceSection: "9.1 Physical properties", SourceChunk: "sds-silane#12", SourcePage: chunk.PageRef{Page: 4, Kind: chunk.KindPage}, Excerpt: "Boiling point: -111.9 °C", UpdatedAt: at},
				"lel_vol_pct":      {Value: "1.37", Unit: "vol %", Status: StatusReview, Confidence: 0.5, Method: "extract", SourceDoc: "gas-handbook", SourceSection: "Silane", SourceChunk: "gas-handbook#88", SourcePage: chunk.PageRef{Page: 2, Kind: chunk.KindPage, OCR: true, OCRConfidence: 87.25}, Excerpt: "LEL 1.37 % (some sources: pyrophoric, no LEL)", UpdatedAt: at},
				"hmis_health":      {Value: "2", Status: StatusApproved, Confidence: 0.75, Method: "lookup", SourceDoc: "hmis-ratings", SourceSection: "Table 3", UpdatedAt: at, By: "alice"},
				"ghs02_flammable":  {Value: "yes", Status: StatusEdited, Note: "pyrophoric gas; flame pictogram applies", UpdatedAt: at, By: "bob"},
				"h_statements":     {Status: StatusRejected, Note: "the excerpt was about disilane", UpdatedAt: at},
				"flash_point_c":    {Value: NotApplicable, Status: StatusOriginal},
				"molecular_weight": {Value: "32.12", Unit: "g/mol", Status: StatusOriginal},
				"idlh_ppm":         {Value: "0.00005", Unit: "ppm", Status: StatusFilled, Confidence: 0.9, Method: "extract", SourceDoc: "niosh", UpdatedAt: at},
			}, Extra: map[string]string{"Cabinet": "GC-3", "Remarks": "=dangerous; \"keep\" dry"}},
			{ID: 2, Cells: map[string]Cell{
				"chemical_name":   {Value: "Hydrogen", Status: StatusOriginal},
				"cas_number":      {Value: "1333-74-0", Status: StatusOriginal},
				"boiling_point_c": {Value: "ca. -253", Status: StatusReview, Method: MethodSheet, Note: "invalid in the sheet: Boiling Point (°C): \"ca. -253\" isn't a number; write a number from -273.15 to 3000 °C"},
				"lel_vol_pct":     {Value: "4", Unit: "vol %", Status: StatusOriginal},
				"hmis_health":     {Value: "0", Status: StatusOriginal},
				// Not in canonical form (a proposal nobody normalised): the sheet shows 75.0.
				"uel_vol_pct": {Value: "75.0", Unit: "vol %", Status: StatusFilled, Confidence: 0.8, Method: "extract", UpdatedAt: at},
			}, Extra: map[string]string{"Cabinet": "GC-1"}},
			{ID: 3, Cells: map[string]Cell{
				"chemical_name": {Value: "Nitrogen trifluoride", Status: StatusOriginal},
			}},
		},
	}
}

func assertSameTable(t *testing.T, got, want *Table) {
	t.Helper()
	if got.Name != want.Name {
		t.Errorf("name %q, want %q", got.Name, want.Name)
	}
	if !reflect.DeepEqual(got.Columns, want.Columns) {
		t.Errorf("columns\n got %q\nwant %q", got.Columns, want.Columns)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		g := got.Rows[i]
		if g.ID != w.ID {
			t.Errorf("row %d has ID %d, want %d", i, g.ID, w.ID)
		}
		if len(g.Extra) != len(w.Extra) || (len(w.Extra) > 0 && !reflect.DeepEqual(g.Extra, w.Extra)) {
			t.Errorf("row %d extra %q, want %q", w.ID, g.Extra, w.Extra)
		}
		for _, f := range Fields() {
			gc, wc := g.Cells[f.Name], w.Cells[f.Name]
			if !sameCell(gc, wc) {
				t.Errorf("row %d %s:\n got %+v\nwant %+v", w.ID, f.Name, gc, wc)
			}
		}
	}
}

func TestXLSXRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "export.xlsx")
	want := sampleTable()
	for i := range 2 { // the second pass exports an imported table
		if err := ExportXLSX(want, path); err != nil {
			t.Fatal(err)
		}
		got, err := ImportXLSX(path)
		if err != nil {
			t.Fatal(err)
		}
		assertSameTable(t, got, want)
		if t.Failed() {
			t.Fatalf("pass %d failed", i+1)
		}
		want = got
	}
}

func TestExportLayout(t *testing.T) {
	tab := sampleTable()
	// A field without a column gets one when a row has a value for it; one without doesn't.
	tab.Rows[2].Set("autoignition_c", Cell{Value: "-15", Unit: "°C", Status: StatusReview, Confidence: 0.4, Method: "extract", UpdatedAt: at})
	f, path := exportOpen(t, tab)
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{SheetHMIS, SheetProvenance, SheetOriginals}) {
		t.Errorf("sheets %q", got)
	}
	rows, _ := f.GetRows(SheetHMIS)
	wantHeader := append(append([]string(nil), tab.Columns...), "Autoignition Temperature (°C)")
	if !reflect.DeepEqual(rows[0], wantHeader) {
		t.Errorf("header\n got %q\nwant %q", rows[0], wantHeader)
	}
	if rows[1][2] != "-111.9" || rows[1][3] != "GC-3" || rows[1][8] != "n/a" || rows[3][13] != "-15" {
		t.Errorf("values %q / %q", rows[1], rows[3])
	}
	// Numbers are numbers, so that the analyst can sort and compute.
	if typ, _ := f.GetCellType(SheetHMIS, "C2"); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("boiling point is stored as %v", typ)
	}
	fillOf := func(cell string) string {
		id, _ := f.GetCellStyle(SheetHMIS, cell)
		st, _ := f.GetStyle(id)
		if st == nil || len(st.Fill.Color) == 0 {
			return ""
		}
		return strings.ToUpper(st.Fill.Color[0])
	}
	for cell, want := range map[string]string{"A2": "", "B2": "", "C2": statusFill[StatusFilled], "E2": statusFill[StatusReview],
		"F2": statusFill[StatusApproved], "G2": statusFill[StatusEdited], "H2": statusFill[StatusRejected], "C3": statusFill[StatusReview]} {
		if got := fillOf(cell); got != want {
			t.Errorf("fill of %s = %q, want %q", cell, got, want)
		}
	}
	comments, _ := f.GetComments(SheetHMIS)
	byCell := map[string]string{}
	for _, c := range comments {
		byCell[c.Cell] = c.Text
		for _, p := range c.Paragraph {
			byCell[c.Cell] += p.Text
		}
	}
	if c := byCell["C2"]; !strings.Contains(c, "filled") || !strings.Contains(c, "0.85") || !strings.Contains(c, "extract") ||
		!strings.Contains(c, "sds-silane, 9.1 Physical properties") {
		t.Errorf("comment of C2 = %q", c)
	}
	if c := byCell["F2"]; !strings.Contains(c, "approved") || !strings.Contains(c, "hmis-ratings") {
		t.Errorf("comment of F2 = %q", c)
	}
	if _, ok := byCell["A2"]; ok {
		t.Error("an original value has a comment")
	}
	prov, _ := f.GetRows(SheetProvenance)
	if !reflect.DeepEqual(prov[0], provenanceHeaders) {
		t.Errorf("provenance header %q", prov[0])
	}
	// Silane: bp, lel, hmis, ghs02, h, idlh; hydrogen: the invalid bp, uel; NF3: autoignition.
	if len(prov) != 1+9 {
		t.Errorf("%d provenance rows, want 9", len(prov)-1)
	}
	if r := prov[1]; r[0] != "1" || r[1] != "2" || r[2] != "Silane" || r[3] != "7803-62-5" || r[4] != "Boiling point [C]" || r[7] != "filled" || r[8] != "0.85" {
		t.Errorf("first provenance row %q", r)
	}
	// No temporary files are left next to the export.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files next to the export: %v", entries)
	}
}

// A workbook the analyst changed after the export: a filled value overwritten, another
// deleted, and the rows sorted.
func TestImportXLSXAfterAnalystChanges(t *testing.T) {
	f, path := exportOpen(t, sampleTable())
	rows, _ := f.GetRows(SheetHMIS)
	silane, hydrogen := rows[1], rows[2]
	silane[2] = "-112"                               // boiling point, filled by warren
	silane[10] = ""                                  // IDLH, filled by warren
	for i, r := range [][]string{hydrogen, silane} { // sorted: hydrogen first
		vals := make([]any, len(rows[0]))
		for j := range vals {
			vals[j] = cellAt(r, j)
		}
		if err := f.SetSheetRow(SheetHMIS, "A"+strconv.Itoa(i+2), &vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := ImportXLSX(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows[0].Name() != "Hydrogen" || got.Rows[1].Name() != "Silane" || got.Rows[1].ID != 2 {
		t.Fatalf("rows %q %q", got.Rows[0].Name(), got.Rows[1].Name())
	}
	s := got.Rows[1]
	if c := s.Cells["boiling_point_c"]; c.Status != StatusEdited || c.Value != "-112" || !strings.Contains(c.Note, `warren had "-111.9" (filled)`) {
		t.Errorf("changed value: %+v", c)
	}
	if c := s.Cells["idlh_ppm"]; c.Status != StatusRejected || c.Value != "" || !strings.Contains(c.Note, "deleted in the workbook") {
		t.Errorf("deleted value: %+v", c)
	}
	if c := s.Cells["hmis_health"]; c.Status != StatusApproved || c.SourceDoc != "hmis-ratings" {
		t.Errorf("untouched value lost its provenance after sorting: %+v", c)
	}
	if c := got.Rows[0].Cells["boiling_point_c"]; c.Method != MethodSheet || c.Value != "ca. -253" {
		t.Errorf("hydrogen's invalid value: %+v", c)
	}
}

// A sheet as an analyst keeps it: a title above the header, the table on a sheet named HMIS
// after another one, units in the headers, a duplicate and a headerless column.
func TestImportXLSXAnalystSheet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gases.xlsx")
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "Notes")
	f.SetCellValue("Notes", "A1", "not the table")
	f.NewSheet("hmis")
	grid := [][]any{
		{"Fab 2 gas list, rev. 7"},
		{},
		{"Gas", "CAS No.", "Boiling point [K]", "Vapour pressure (kPa)", "LEL (mole fraction)", "HMIS H", "CAS", "", "Pyrophoric (Y/N)", "Flash point (°F)"},
		{"Silane", "7803-62-5", 161.0, 2500, 0.0137, 5, "7803-62-5", "shelf 3", "Y", "n/a"},
		{},
		{"Arsine", "7784-42-1", "210.7 K", "1.5 MPa", "5.1 %", 4, "", "", "no", 32},
		{"Bad", "7803-62-6", "warm", "", "", "", "", "", "perhaps", ""},
	}
	for i, r := range grid {
		if err := f.SetSheetRow("hmis", "A"+strconv.Itoa(i+1), &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	tab, err := ImportXLSX(path)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"Gas", "CAS No.", "Boiling point [K]", "Vapour pressure (kPa)", "LEL (mole fraction)", "HMIS H", "CAS", "Column H", "Pyrophoric (Y/N)", "Flash point (°F)"}
	if tab.Name != "gases" || !reflect.DeepEqual(tab.Columns, wantCols) || len(tab.Rows) != 3 {
		t.Fatalf("name %q, columns %q, %d rows", tab.Name, tab.Columns, len(tab.Rows))
	}
	silane, arsine, bad := tab.Rows[0], tab.Rows[1], tab.Rows[2]
	if arsine.ID != 2 || bad.ID != 3 {
		t.Errorf("IDs %d %d: the blank row must not count", arsine.ID, bad.ID)
	}
	want := map[string]string{"chemical_name": "Silane", "cas_number": "7803-62-5", "boiling_point_c": "-112.2", "vapour_pressure_bar": "25",
		"lel_vol_pct": "1.37", "pyrophoric": "yes", "flash_point_c": NotApplicable}
	for fn, v := range want {
		if c := silane.Cells[fn]; c.Value != v || c.Status != StatusOriginal {
			t.Errorf("silane %s = %+v, want %q original", fn, c, v)
		}
	}
	if c := silane.Cells["boiling_point_c"]; c.Unit != "°C" {
		t.Errorf("unit %q", c.Unit)
	}
	if c := silane.Cells["hmis_health"]; c.Status != StatusReview || c.Value != "5" || c.Method != MethodSheet || !strings.Contains(c.Note, "invalid in the sheet: HMIS Health") {
		t.Errorf("rating 5: %+v", c)
	}
	if !reflect.DeepEqual(silane.Extra, map[string]string{"CAS": "7803-62-5", "Column H": "shelf 3"}) {
		t.Errorf("extra %q", silane.Extra)
	}
	for fn, v := range map[string]string{"boiling_point_c": "-62.5", "vapour_pressure_bar": "15", "lel_vol_pct": "5.1", "hmis_health": "4", "pyrophoric": "no", "flash_point_c": "0"} {
		if c := arsine.Cells[fn]; c.Value != v || c.Status != StatusOriginal {
			t.Errorf("arsine %s = %+v, want %q", fn, c, v)
		}
	}
	for _, fn := range []string{"cas_number", "boiling_point_c", "pyrophoric"} {
		if c := bad.Cells[fn]; c.Status != StatusReview || !strings.HasPrefix(c.Note, "invalid in the sheet: ") {
			t.Errorf("bad %s = %+v", fn, c)
		}
	}
	if n := len(tab.EmptyCells()); n != 3*46-(7+7+3) {
		t.Errorf("%d empty cells", n)
	}
	// Exported, the values are in °C, bar and vol %: headers that declare other units give way
	// to the field's label, and importing the export gives the same values.
	out := filepath.Join(t.TempDir(), "export.xlsx")
	if err := ExportXLSX(tab, out); err != nil {
		t.Fatal(err)
	}
	back, err := ImportXLSX(out)
	if err != nil {
		t.Fatal(err)
	}
	wantCols = []string{"Gas", "CAS No.", "Boiling Point (°C)", "Vapour Pressure @ 20 °C (bar)", "LEL (vol %)", "HMIS H", "CAS", "Column H", "Pyrophoric (Y/N)", "Flash Point (°C)"}
	if !reflect.DeepEqual(back.Columns, wantCols) {
		t.Errorf("exported columns %q", back.Columns)
	}
	back.Name, back.Columns = tab.Name, tab.Columns
	assertSameTable(t, back, tab)
}

func TestImportMalformedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noName := filepath.Join(dir, "noname.xlsx")
	f := excelize.NewFile()
	f.SetSheetRow("Sheet1", "A1", &[]any{"CAS", "Formula"})
	f.SetSheetRow("Sheet1", "A2", &[]any{"7803-62-5", "SiH4"})
	if err := f.SaveAs(noName); err != nil {
		t.Fatal(err)
	}
	badProv := filepath.Join(dir, "badprov.xlsx")
	if err := ExportXLSX(sampleTable(), badProv); err != nil {
		t.Fatal(err)
	}
	if f, err := excelize.OpenFile(badProv); err == nil {
		f.SetCellValue(SheetProvenance, "H2", "maybe")
		f.Save()
		f.Close()
	}
	empty := filepath.Join(dir, "empty.xlsx")
	if err := excelize.NewFile().SaveAs(empty); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		path   string
		isCSV  bool
		substr string
	}{
		{"not a zip", write("garbage.xlsx", "this is not a workbook"), false, "couldn't open"},
		{"truncated zip", write("truncated.xlsx", "PK\x03\x04\x14\x00\x00\x00"), false, "couldn't open"},
		{"missing", filepath.Join(dir, "missing.xlsx"), false, "couldn't open"},
		{"no name column", noName, false, "no column holds the chemical name"},
		{"empty sheet", empty, false, "no header row"},
		{"bad provenance", badProv, false, `Provenance row 2: unknown status "maybe"`},
		{"csv not UTF-8", write("latin1.csv", "Chemical Name;Geruch\nOzon;stechend \xfc\n"), true, "isn't UTF-8 text (line 2)"},
		{"csv without name", write("noname.csv", "CAS,Formula\n7803-62-5,SiH4\n"), true, "no column holds the chemical name"},
		{"csv empty", write("empty.csv", "\n\n"), true, "no header row"},
		{"csv bad quotes", write("quotes.csv", "Chemical Name,CAS\n\"Silane,7803-62-5\nArsine,7784-42-1\n"), true, "couldn't read"},
		{"csv missing", filepath.Join(dir, "missing.csv"), true, "couldn't read"},
	}
	for _, c := range cases {
		var err error
		if c.isCSV {
			_, err = ImportCSV(c.path)
		} else {
			_, err = ImportXLSX(c.path)
		}
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: error %v; want one naming %s and saying %q", c.name, err, c.path, c.substr)
		}
	}
}

func TestExportXLSXFailsCleanly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "out.xlsx")
	if err := ExportXLSX(sampleTable(), path); err == nil || !strings.Contains(err.Error(), "missing-dir") {
		t.Errorf("error %v", err)
	}
}

// Every part of an export must be one well-formed XML document; the comments and their
// drawing are written by warren, not excelize (see comments.go).
func TestExportPartsAreWellFormed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "export.xlsx")
	tab := benchTable(30)
	tab.Rows[0].Set("odour", Cell{Value: "garlic", Status: StatusReview, Confidence: 0.4, Note: "a <b> & \"c\"\x01", UpdatedAt: at})
	if err := ExportXLSX(tab, path); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	counts := map[string]int{}
	for _, zf := range zr.File {
		if !strings.HasSuffix(zf.Name, ".xml") && !strings.HasSuffix(zf.Name, ".vml") && !strings.HasSuffix(zf.Name, ".rels") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(rc)
		depth, roots := 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", zf.Name, err)
			}
			switch el := tok.(type) {
			case xml.StartElement:
				if depth == 0 {
					roots++
				}
				depth++
				counts[zf.Name+" "+el.Name.Local]++
			case xml.EndElement:
				depth--
			}
		}
		rc.Close()
		if roots != 1 {
			t.Errorf("%s has %d root elements", zf.Name, roots)
		}
	}
	notes := 0
	for _, r := range tab.Rows {
		for _, f := range fields {
			if c, ok := r.Cells[f.Name]; ok && !plain(f, c) {
				notes++
			}
		}
	}
	if got := counts["xl/comments1.xml comment"]; got != notes || notes < 500 {
		t.Errorf("%d comments, want %d", got, notes)
	}
	if got := counts["xl/drawings/vmlDrawing1.vml shape"]; got != notes {
		t.Errorf("%d note shapes, want %d", got, notes)
	}
}

// The Provenance sheet's Field column holds the sheet's header ("Boiling point [C]"); an import
// takes that, a field's label, or a field's id (as exports before wrote), and reports a record
// whose field it doesn't know instead of dropping it without a word.
func TestProvenanceFieldByHeaderOrName(t *testing.T) {
	f, path := exportOpen(t, sampleTable())
	prov, err := f.GetRows(SheetProvenance)
	if err != nil {
		t.Fatal(err)
	}
	rowOf := func(chem, header string) int {
		for i, r := range prov {
			if len(r) > 4 && r[2] == chem && r[4] == header {
				return i + 1
			}
		}
		t.Fatalf("no Provenance row of %s / %s: %q", chem, header, prov)
		return 0
	}
	set := func(row int, v string) {
		if err := f.SetCellValue(SheetProvenance, "E"+strconv.Itoa(row), v); err != nil {
			t.Fatal(err)
		}
	}
	set(rowOf("Silane", "LEL (%)"), "lel_vol_pct")           // an id, as older exports wrote
	set(rowOf("Silane", "HMIS Health"), "HMIS Health (0-4)") // a label the sheet didn't write
	unknown := rowOf("Silane", "IDLH (ppm)")
	set(unknown, "Colour of the cylinder")
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	got, rep, err := ImportXLSXWithReport(path)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Rows[0].Cells
	if c := s["boiling_point_c"]; c.Status != StatusFilled || c.SourceDoc != "sds-silane" {
		t.Errorf("by the sheet's header: %+v", c)
	}
	if c := s["lel_vol_pct"]; c.Status != StatusReview || c.SourceDoc != "gas-handbook" {
		t.Errorf("by the field's id: %+v", c)
	}
	if c := s["hmis_health"]; c.Status != StatusApproved || c.By != "alice" {
		t.Errorf("by the field's label: %+v", c)
	}
	if len(rep.UnknownProvenanceFields) != 1 || rep.UnknownProvenanceFields[0].ProvenanceRow != unknown ||
		rep.UnknownProvenanceFields[0].Field != "Colour of the cylinder" {
		t.Fatalf("unknown fields reported: %+v", rep.UnknownProvenanceFields)
	}
	if lines := strings.Join(rep.Lines(), "\n"); !strings.Contains(lines, `"Colour of the cylinder"`) || !strings.Contains(lines, "no known field") {
		t.Errorf("the report does not name the unknown field:\n%s", lines)
	}
}

// What an analyst adds to an exported workbook comes back: comments added or extended as
// attributed notes (warren's own comment text not repeated), a comment on an extra column in
// the report, and an original value edited or deleted as edited or rejected, with the old value
// in the note and in the report. A second export and import changes nothing more.
func TestXLSXRoundTripKeepsWhatTheAnalystAdds(t *testing.T) {
	f, path := exportOpen(t, sampleTable())
	if visible, err := f.GetSheetVisible(SheetOriginals); err != nil || visible {
		t.Errorf("the Originals sheet is visible (%v)", err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	existing := map[string]excelize.Comment{}
	cs, err := f.GetComments(SheetHMIS)
	must(err)
	for _, c := range cs {
		existing[c.Cell] = c
	}
	extend := func(cell, author, add string) {
		c, ok := existing[cell]
		if !ok || !strings.HasPrefix(c.Text, "warren: ") {
			t.Fatalf("no comment of warren's on %s: %+v", cell, c)
		}
		must(f.DeleteComment(SheetHMIS, cell))
		must(f.AddComment(SheetHMIS, excelize.Comment{Cell: cell, Author: author, Text: c.Text + add}))
	}
	// Silane (row 2): HMIS Health F2 approved by alice, GHS02 G2 edited by bob with a note.
	extend("F2", "alice", "\nAlso on the 2025 cylinder label.")
	extend("G2", "bob", " (confirmed)") // typed on after warren's last line, the note
	for cell, text := range map[string]string{
		"J2": "32.12 per the 2024 SDS",              // Silane's original molecular weight
		"C4": "No boiling point in any SDS we hold", // Nitrogen trifluoride's empty cell
		"E3": "4 was a typo",                        // Hydrogen's LEL, edited below
		"D2": "moved to GC-4 in May",                // Cabinet, an extra column
	} {
		if _, ok := existing[cell]; ok {
			t.Fatalf("%s already has a comment", cell)
		}
		must(f.AddComment(SheetHMIS, excelize.Comment{Cell: cell, Author: "carol", Text: text}))
	}
	must(f.SetCellValue(SheetHMIS, "E3", 4.1)) // Hydrogen's original LEL 4
	must(f.SetCellValue(SheetHMIS, "B3", nil)) // Hydrogen's original CAS number, deleted
	must(f.Save())
	f.Close()

	got, rep, err := ImportXLSXWithReport(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTable()
	silane, hydrogen, nf3 := want.Rows[0], want.Rows[1], want.Rows[2]
	withNote := func(r *Row, field, note string) {
		c := r.Cells[field]
		c.Note = note
		r.Set(field, c)
	}
	withNote(silane, "hmis_health", "comment by alice in the workbook: Also on the 2025 cylinder label.")
	withNote(silane, "ghs02_flammable", "pyrophoric gas; flame pictogram applies; comment by bob in the workbook: (confirmed)")
	withNote(silane, "molecular_weight", "comment by carol in the workbook: 32.12 per the 2024 SDS")
	withNote(nf3, "boiling_point_c", "comment by carol in the workbook: No boiling point in any SDS we hold")
	for _, w := range []struct{ field, value string }{{"lel_vol_pct", "4.1"}, {"cas_number", ""}} {
		c := got.Rows[1].Cells[w.field]
		if w.value == "" && (c.Status != StatusRejected || !strings.Contains(c.Note, `deleted in the workbook after export; the original value was "1333-74-0"`)) {
			t.Errorf("deleted original value: %+v", c)
		}
		if w.value != "" && (c.Status != StatusEdited || c.Value != w.value ||
			c.Note != `changed in the workbook after export; the original value was "4"; comment by carol in the workbook: 4 was a typo`) {
			t.Errorf("edited original value: %+v", c)
		}
		if c.UpdatedAt.IsZero() {
			t.Errorf("%s: no time of the change", w.field)
		}
		hydrogen.Set(w.field, c) // checked here; the rest of the table below
	}
	assertSameTable(t, got, want)

	changed := map[string]string{}
	for _, c := range rep.ChangedAfterExport {
		changed[c.Chemical+" "+c.Field] = c.Value
	}
	if !reflect.DeepEqual(changed, map[string]string{"Hydrogen lel_vol_pct": "4.1", "Hydrogen cas_number": ""}) {
		t.Errorf("changed after export: %+v", rep.ChangedAfterExport)
	}
	kept := map[string]string{}
	for _, c := range rep.CommentsKept {
		kept[c.Cell] = c.Author + ": " + c.Text
	}
	wantKept := map[string]string{"F2": "alice: Also on the 2025 cylinder label.", "G2": "bob: (confirmed)",
		"J2": "carol: 32.12 per the 2024 SDS", "C4": "carol: No boiling point in any SDS we hold", "E3": "carol: 4 was a typo"}
	if !reflect.DeepEqual(kept, wantKept) {
		t.Errorf("comments kept\n got %q\nwant %q", kept, wantKept)
	}
	if n := rep.CommentsNotKept; len(n) != 1 || n[0].Cell != "D2" || n[0].Text != "moved to GC-4 in May" || n[0].Chemical != "Silane" {
		t.Errorf("comments not kept: %+v", n)
	}
	text := strings.Join(rep.Lines(), "\n")
	for _, s := range []string{
		`row 2 "Hydrogen", LEL (vol %): changed in the workbook after export; the original value was "4"`,
		`5 comments in the workbook kept in the cells' notes:`,
		`J2, row 1 "Silane", Molecular Weight (g/mol): comment by carol in the workbook: 32.12 per the 2024 SDS`,
		`1 comment in the workbook is on no cell of the table, so it is kept only here:`,
		`D2 (on an extra column, whose values keep no notes): comment by carol in the workbook: moved to GC-4 in May`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the report doesn't say %q:\n%s", s, text)
		}
	}

	// Exported again, the notes are warren's own comment text: nothing is added twice.
	again := filepath.Join(t.TempDir(), "again.xlsx")
	if err := ExportXLSX(got, again); err != nil {
		t.Fatal(err)
	}
	got2, rep2, err := ImportXLSXWithReport(again)
	if err != nil {
		t.Fatal(err)
	}
	assertSameTable(t, got2, got)
	if len(rep2.CommentsKept)+len(rep2.CommentsNotKept)+len(rep2.ChangedAfterExport) != 0 {
		t.Errorf("the second import found comments or changes: %+v %+v %+v", rep2.CommentsKept, rep2.CommentsNotKept, rep2.ChangedAfterExport)
	}
}

// Comment text: warren's lines are left out wherever they are; lines the analyst added above,
// between or after them, and text typed on after one of them, are kept.
func TestAnalystText(t *testing.T) {
	warren := "warren: filled, confidence 0.85\nSource: sds-silane\nNote: check"
	for _, c := range []struct{ text, author, want string }{
		{warren, "warren", ""},
		{strings.ReplaceAll(warren, "\n", "\r\n"), "", ""},
		{"carol:\n" + warren + "\nSee the 2024 SDS.", "carol", "See the 2024 SDS."},
		{"Too high?\n" + warren, "", "Too high?"},
		{"warren: filled, confidence 0.85\nSource: sds-silane\nNote: check done", "", "done"},
		{"my own comment", "carol", "my own comment"},
		{"carol:\nmine", "carol", "mine"},
		{"carol:", "dave", "carol:"},
	} {
		if got := analystText(c.text, warren, c.author); got != c.want {
			t.Errorf("analystText(%q, %q) = %q, want %q", c.text, c.author, got, c.want)
		}
	}
}

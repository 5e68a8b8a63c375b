package gas

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// Sheet names warren reads and writes.
const (
	SheetHMIS       = "HMIS"
	SheetProvenance = "Provenance"
)

// ImportXLSX reads a gas table from the sheet named "HMIS", or else the first sheet, of an xlsx
// workbook (see tableFromGrid for how the grid becomes a table). Cells are read as stored, not
// as their number format shows them (see xlsxread.go), and a header whose cells are merged
// over two rows is read as one header. When the workbook has a Provenance sheet written by
// ExportXLSX, the statuses, confidences, methods, sources and notes recorded there are
// restored, so that importing an export gives back the exported table. A value the analyst
// changed in the workbook after the export becomes an edited cell, one they deleted a rejected
// cell, each with a note saying what warren had; original values are compared with the hidden
// Originals sheet the export wrote. Text the analyst wrote in cell comments is appended to the
// cells' notes (see applyComments).
func ImportXLSX(path string) (*Table, error) {
	t, _, err := ImportXLSXWithReport(path)
	return t, err
}

// ImportXLSXWithReport is ImportXLSX with the report of what the import noticed (see
// ImportReport).
func ImportXLSXWithReport(path string) (*Table, *ImportReport, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't open %s as an xlsx workbook: %w", path, err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, nil, fmt.Errorf("%s has no sheets", path)
	}
	sheet := sheets[0]
	hasProvenance, hasOriginals := false, false
	for _, s := range sheets {
		if strings.EqualFold(s, SheetHMIS) {
			sheet = s
		}
		hasProvenance = hasProvenance || s == SheetProvenance
		hasOriginals = hasOriginals || s == SheetOriginals
	}
	if sheet == SheetProvenance || sheet == SheetOriginals {
		for _, s := range sheets {
			if s != SheetProvenance && s != SheetOriginals {
				sheet = s
				break
			}
		}
	}
	grid, sr, err := readSheet(f, sheet)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't read sheet %q of %s: %w", sheet, path, err)
	}
	grid, headerRows, err := mergedHeader(f, sheet, grid)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't read the merged cells of sheet %q of %s: %w", sheet, path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	st, err := tableFromGrid(name, path, grid, sr.fix)
	if err != nil {
		return nil, nil, err
	}
	if headerRows != nil {
		st.report.HeaderRows = headerRows
	}
	if hasProvenance {
		if props, err := f.GetDocProps(); err == nil && props.Title != "" {
			st.Name = props.Title
		}
		prov, err := f.GetRows(SheetProvenance, excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, nil, fmt.Errorf("couldn't read the Provenance sheet of %s: %w", path, err)
		}
		if err := applyProvenance(st, prov); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if hasOriginals {
			orig, err := f.GetRows(SheetOriginals, excelize.Options{RawCellValue: true})
			if err != nil {
				return nil, nil, fmt.Errorf("couldn't read the Originals sheet of %s: %w", path, err)
			}
			applyOriginals(st, orig)
		}
	}
	if err := applyComments(st, f, sheet); err != nil {
		return nil, nil, fmt.Errorf("couldn't read the comments of sheet %q of %s: %w", sheet, path, err)
	}
	return st.Table, st.finishReport(), nil
}

// applyProvenance restores the cells recorded in a Provenance sheet. A record finds its row by
// the sheet row it names when the chemical name there agrees, else by the chemical name (the
// rows were sorted since), else by the CAS number (the chemical was renamed). A record that
// finds no row is not applied but kept in the report, with every cell it carried.
func applyProvenance(st *sheetTable, grid [][]string) error {
	if len(grid) == 0 {
		return nil
	}
	col := map[string]int{}
	for j, h := range grid[0] {
		col[strings.TrimSpace(h)] = j
	}
	for _, need := range []string{"Sheet Row", "Field", "Value", "Status"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("the Provenance sheet has no %q column", need)
		}
	}
	get := func(r []string, h string) string {
		if j, ok := col[h]; ok {
			return cellAt(r, j)
		}
		return ""
	}
	renamed := map[*Row]int{} // row → index in report.RenamedRows
	for i, r := range grid[1:] {
		if blankRow(r) {
			continue
		}
		f, ok := provenanceField(st, strings.TrimSpace(get(r, "Field")))
		if !ok { // reported, not dropped without a word
			st.report.UnknownProvenanceFields = append(st.report.UnknownProvenanceFields, UnknownProvenanceField{
				ProvenanceRow: i + 2, Field: strings.TrimSpace(get(r, "Field")), Chemical: strings.TrimSpace(get(r, "Chemical Name"))})
			continue
		}
		sheetRow, _ := strconv.Atoi(strings.TrimSpace(get(r, "Sheet Row")))
		chem := strings.TrimSpace(get(r, "Chemical Name"))
		cas := strings.TrimSpace(get(r, "CAS No."))
		c := Cell{
			Value:         get(r, "Value"),
			Unit:          get(r, "Unit"),
			Status:        Status(strings.TrimSpace(get(r, "Status"))),
			Method:        get(r, "Method"),
			SourceDoc:     get(r, "Source Document"),
			SourceSection: get(r, "Section"),
			SourceChunk:   get(r, "Chunk"),
			Excerpt:       get(r, "Excerpt"),
			Note:          get(r, "Note"),
		}
		if by := strings.TrimSpace(get(r, "Decided By")); by != noName {
			c.By = by
		}
		if !c.Status.Valid() {
			return fmt.Errorf("Provenance row %d: unknown status %q", i+2, c.Status)
		}
		if s := strings.TrimSpace(get(r, "Confidence")); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("Provenance row %d: confidence %q isn't a number", i+2, s)
			}
			c.Confidence = x
		}
		if s := strings.TrimSpace(get(r, "Page")); s != "" { // absent from exports before pages were recorded
			p, err := parsePageText(s)
			if err != nil {
				return fmt.Errorf("Provenance row %d: %w", i+2, err)
			}
			c.SourcePage = p
		}
		if s := strings.TrimSpace(get(r, "Updated")); s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return fmt.Errorf("Provenance row %d: time %q isn't RFC 3339", i+2, s)
			}
			c.UpdatedAt = t
		}
		row, byCAS := findRecordRow(st, sheetRow, chem, cas)
		if byCAS {
			k, ok := renamed[row]
			if !ok {
				k = len(st.report.RenamedRows)
				renamed[row] = k
				st.report.RenamedRows = append(st.report.RenamedRows, RenamedRow{
					SheetRow: sheetRowOf(st, row), Was: chem, Now: row.Name(), CAS: row.Cells["cas_number"].Value})
			}
			st.report.RenamedRows[k].Records++
		}
		if row == nil {
			st.report.UnmatchedProvenance = append(st.report.UnmatchedProvenance, ProvenanceRecord{
				ProvenanceRow: i + 2, SheetRow: sheetRow, Chemical: chem, CAS: cas, Field: f.Name, Cell: c})
			continue
		}
		if st.recorded[row] == nil {
			st.recorded[row] = map[string]Cell{}
		}
		st.recorded[row][f.Name] = c
		got := reconcile(f, row.Cells[f.Name], c)
		if got.Status != c.Status || got.Value != c.Value {
			st.report.ChangedAfterExport = append(st.report.ChangedAfterExport,
				ReportCell{Row: row.ID, Chemical: row.Name(), Field: f.Name, Value: got.Value, Note: got.Note})
		}
		row.Set(f.Name, got)
	}
	return nil
}

// findRecordRow finds the row a record of the Provenance or Originals sheet belongs to: by the
// sheet row it names when the chemical name there agrees, else by the chemical name (the rows
// were sorted since), else by the CAS number (the chemical was renamed; byCAS is then true).
// nil when none matches.
func findRecordRow(st *sheetTable, sheetRow int, chem, cas string) (row *Row, byCAS bool) {
	row = st.bySheetRow[sheetRow]
	if row != nil && (chem == "" || strings.EqualFold(strings.TrimSpace(row.Name()), chem)) {
		return row, false
	}
	if row = uniqueRowByName(st.Table, chem); row != nil {
		return row, false
	}
	row = uniqueRowByCAS(st.Table, cas)
	return row, row != nil
}

// provenanceField finds the field a Provenance record names: by the header the sheet writes
// for it ("Molecular Weight (g/mol)"), by a header of the workbook's own sheet, or by the
// field's id (molecular_weight), which exports before the header names wrote.
func provenanceField(st *sheetTable, name string) (Field, bool) {
	if name == "" {
		return Field{}, false
	}
	// Matching a header is slow and a sheet names each field thousands of times.
	if r, ok := st.fieldOf[name]; ok {
		return r.f, r.ok
	}
	f, ok := findProvenanceField(st, name)
	if st.fieldOf == nil {
		st.fieldOf = map[string]fieldMatch{}
	}
	st.fieldOf[name] = fieldMatch{f, ok}
	return f, ok
}

type fieldMatch struct {
	f  Field
	ok bool
}

func findProvenanceField(st *sheetTable, name string) (Field, bool) {
	if f, ok := FieldByName(name); ok {
		return f, true
	}
	for i, h := range st.Columns {
		if strings.EqualFold(strings.TrimSpace(h), name) {
			if fn := columnFields(st.Columns)[i]; fn != "" {
				return FieldByName(fn)
			}
		}
	}
	return MatchHeader(name)
}

// reconcile combines the cell read from the main sheet with the one the Provenance sheet
// recorded. They agree unless the analyst changed the workbook after the export.
func reconcile(f Field, inSheet, recorded Cell) Cell {
	if inSheet.Value == recorded.Value {
		return recorded
	}
	// A recorded value that isn't in canonical form is written to the sheet as it is and
	// normalised when read back; that is no change either.
	if v, err := Normalize(f, recorded.Value, ""); err == nil && v == inSheet.Value && inSheet.Method != MethodSheet {
		return recorded
	}
	was := fmt.Sprintf("warren had %q (%s)", recorded.Value, recorded.Status)
	if recorded.Status == StatusOriginal {
		was = fmt.Sprintf("the original value was %q", recorded.Value)
	}
	if recorded.Value == "" {
		was = fmt.Sprintf("warren had no value (%s)", recorded.Status)
	}
	now := time.Now().UTC()
	switch {
	case inSheet.Value == "":
		return Cell{Status: StatusRejected, Note: "deleted in the workbook after export; " + was, UpdatedAt: now}
	case inSheet.Method == MethodSheet: // typed in, but invalid
		inSheet.Note += "; changed in the workbook after export, " + was
		inSheet.UpdatedAt = now
		return inSheet
	default:
		return Cell{Value: inSheet.Value, Unit: inSheet.Unit, Status: StatusEdited,
			Note: "changed in the workbook after export; " + was, UpdatedAt: now}
	}
}

func uniqueRowByName(t *Table, name string) *Row {
	if name == "" {
		return nil
	}
	var found *Row
	for _, r := range t.Rows {
		if strings.EqualFold(strings.TrimSpace(r.Name()), name) {
			if found != nil {
				return nil
			}
			found = r
		}
	}
	return found
}

// uniqueRowByCAS returns the one row whose CAS number is cas, or nil.
func uniqueRowByCAS(t *Table, cas string) *Row {
	if cas == "" {
		return nil
	}
	var found *Row
	for _, r := range t.Rows {
		if strings.EqualFold(strings.TrimSpace(r.Cells["cas_number"].Value), cas) {
			if found != nil {
				return nil
			}
			found = r
		}
	}
	return found
}

// sheetRowOf returns the 1-based sheet row a table row was read from.
func sheetRowOf(st *sheetTable, row *Row) int {
	for n, r := range st.bySheetRow {
		if r == row {
			return n
		}
	}
	return 0
}

package gas

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file turns a grid of text (an xlsx sheet or a CSV file) into a Table; xlsx.go and csv.go
// only read the grid.

// sheetTable is a table read from a grid, with the grid row each table row came from, so that
// the Provenance sheet can find its rows.
type sheetTable struct {
	*Table
	bySheetRow map[int]*Row // 1-based grid row → table row
	report     ImportReport
	// fieldAt maps each 0-based grid column the table reads to its field, "" for an extra
	// column; comments find their cell through it.
	fieldAt map[int]string
	// recorded holds the cells the Provenance sheet restored, as recorded at the export: the
	// comment warren wrote on each is computed from them.
	recorded map[*Row]map[string]Cell
	// warrenTexts indexes the comments warren wrote by field and first line (see warrenComment).
	warrenTexts map[string][]string
	fieldOf     map[string]fieldMatch // provenanceField's answers by name
}

// cellFixer may replace the text of a data cell before it is read: grid row and column
// (0-based), whether the column holds a field, the text. xlsx.go uses it to read dates as shown.
type cellFixer func(i, j int, isField bool, v string) string

// tableFromGrid builds a table from rows of cells. The header row is the first non-empty row;
// headers are matched with MatchHeader and each known value is normalised. A value that
// doesn't validate is kept as written and flagged for review. Headers that match no field
// are kept as extra columns and named in the report. fix may be nil.
func tableFromGrid(name, path string, grid [][]string, fix cellFixer) (*sheetTable, error) {
	h := headerRow(grid)
	if h < 0 {
		return nil, fmt.Errorf("%s has no header row: the sheet is empty", path)
	}
	width := 0
	for _, r := range grid[h:] {
		for j := len(r) - 1; j >= width; j-- {
			if strings.TrimSpace(r[j]) != "" {
				width = j + 1
				break
			}
		}
	}
	// Columns: every header, and every headerless column that has data under it.
	var (
		columns []string
		gridCol []int // column index in the grid of each table column
		used    = map[string]bool{}
	)
	for j := 0; j < width; j++ {
		head := strings.Join(strings.Fields(xmlText(cellAt(grid[h], j))), " ")
		if head == "" {
			hasData := false
			for _, r := range grid[h+1:] {
				if strings.TrimSpace(cellAt(r, j)) != "" {
					hasData = true
					break
				}
			}
			if !hasData {
				continue
			}
			head = "Column " + columnLetters(j+1)
		}
		unique := head
		for n := 2; used[strings.ToLower(unique)]; n++ {
			unique = fmt.Sprintf("%s (%d)", head, n)
		}
		used[strings.ToLower(unique)] = true
		columns = append(columns, unique)
		gridCol = append(gridCol, j)
	}
	colField := columnFields(columns)
	unmatched := unmatchedHeaders(columns, gridCol, colField)
	hasName := false
	units := make([]string, len(columns))
	for i, fn := range colField {
		if fn == "chemical_name" {
			hasName = true
		}
		if fn != "" {
			f, _ := FieldByName(fn)
			units[i] = HeaderUnit(f, columns[i])
		}
	}
	if !hasName {
		return nil, fmt.Errorf("%s: no column holds the chemical name (the header row %d has %s); name it \"Chemical Name\"",
			path, h+1, quoteList(columns, 8))
	}
	st := &sheetTable{Table: &Table{Name: name, Columns: columns}, bySheetRow: map[int]*Row{},
		report:  ImportReport{HeaderRows: []int{h + 1}, UnmatchedHeaders: unmatched},
		fieldAt: map[int]string{}, recorded: map[*Row]map[string]Cell{}}
	for c, j := range gridCol {
		st.fieldAt[j] = colField[c]
	}
	for i := h + 1; i < len(grid); i++ {
		if blankRow(grid[i]) {
			continue
		}
		row := &Row{ID: len(st.Rows) + 1, Cells: map[string]Cell{}}
		for c, j := range gridCol {
			raw := strings.TrimSpace(xmlText(cellAt(grid[i], j)))
			if fix != nil && raw != "" {
				raw = strings.TrimSpace(fix(i, j, colField[c] != "", raw))
			}
			if raw == "" {
				continue
			}
			if colField[c] == "" {
				if row.Extra == nil {
					row.Extra = map[string]string{}
				}
				row.Extra[columns[c]] = raw
				continue
			}
			f, _ := FieldByName(colField[c])
			row.Set(f.Name, sheetCell(f, raw, units[c]))
		}
		st.Rows = append(st.Rows, row)
		st.bySheetRow[i+1] = row
	}
	return st, nil
}

// unmatchedHeaders lists the columns that hold no field: headers that name none (with the
// field they may mean), headers that name a field an earlier column holds, headerless columns.
func unmatchedHeaders(columns []string, gridCol []int, colField []string) []UnmatchedHeader {
	holder := map[string]string{} // field → the header of the column that holds it
	for i, fn := range colField {
		if fn != "" {
			holder[fn] = columns[i]
		}
	}
	var out []UnmatchedHeader
	for i, fn := range colField {
		if fn != "" {
			continue
		}
		u := UnmatchedHeader{Column: columnLetters(gridCol[i] + 1), Header: columns[i]}
		if f, ok := MatchHeader(columns[i]); ok {
			u.Field, u.Duplicate = f.Name, holder[f.Name]
		} else if columns[i] != "Column "+u.Column {
			if f, ok := SuggestField(columns[i]); ok {
				u.Field, u.Suggestion = f.Name, f.Label
			}
		}
		out = append(out, u)
	}
	return out
}

// headerRowScan is how far down headerRow looks for a row naming the chemical.
const headerRowScan = 30

// headerRow finds the header: the first row with a chemical-name header among the first
// rows (a title or a revision note often sits above the table), else the first non-empty row.
func headerRow(grid [][]string) int {
	first := -1
	for i, r := range grid {
		if blankRow(r) {
			continue
		}
		if first < 0 {
			first = i
		}
		if i-first >= headerRowScan {
			break
		}
		for _, c := range r {
			if f, ok := MatchHeader(c); ok && f.Name == "chemical_name" {
				return i
			}
		}
	}
	return first
}

// sheetCell makes the cell of a value read from a sheet.
func sheetCell(f Field, raw, unit string) Cell {
	v, err := Normalize(f, raw, unit)
	if err != nil {
		return Cell{Value: raw, Status: StatusReview, Method: MethodSheet, Note: "invalid in the sheet: " + err.Error()}
	}
	return Cell{Value: v, Unit: unitFor(f, v), Status: StatusOriginal}
}

// unitFor is the unit a canonical value of the field is in: the field's unit, none for an
// empty or not-applicable value.
func unitFor(f Field, value string) string {
	if value == "" || value == NotApplicable {
		return ""
	}
	return f.Unit
}

// plain reports whether the sheet value alone describes the cell, so it needs no Provenance row.
func plain(f Field, c Cell) bool {
	return (c.Status == StatusOriginal || (c.Status == StatusEmpty && c.Value != "")) &&
		c.Unit == unitFor(f, c.Value) && c.Confidence == 0 && c.Method == "" && c.SourceDoc == "" &&
		c.SourceSection == "" && c.SourceChunk == "" && c.SourcePage.IsZero() && c.Excerpt == "" && c.Note == "" && c.UpdatedAt.IsZero()
}

var bracketed = regexp.MustCompile(`[(\[{]([^)\]}]*)[)\]}]`)

// HeaderUnit returns the unit a header declares for a field's values ("Boiling point [K]" →
// "K", "Vapour Pressure (kPa, 20 °C)" → "kPa"), or "" when it declares none that the field's
// kind knows. A mass concentration on a ppm field is returned too, so that its values fail
// validation instead of being read as ppm.
func HeaderUnit(f Field, header string) string {
	switch f.Kind {
	case KindNumber, KindTemperature, KindPressure, KindPercent, KindPPM:
	default:
		return ""
	}
	var cands []string
	for _, m := range bracketed.FindAllStringSubmatch(header, -1) {
		cands = append(cands, m[1])
		cands = append(cands, strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ';' || r == '@' || r == ' ' })...)
	}
	if ws := strings.Fields(bracketed.ReplaceAllString(header, " ")); len(ws) > 1 {
		cands = append(cands, ws[len(ws)-1])
	}
	for _, c := range cands {
		k := unitKey(c)
		if k == "" {
			continue
		}
		if f.Kind == KindPPM && strings.HasPrefix(k, "mg/") {
			return strings.TrimSpace(c)
		}
		known := false
		switch f.Kind {
		case KindNumber:
			_, known = numberUnits[f.Unit][k]
		case KindPercent:
			_, known = units[f.Kind][k]
			known = known || fractionUnits[k]
		default:
			_, known = units[f.Kind][k]
		}
		if known {
			return strings.TrimSpace(c)
		}
	}
	return ""
}

// headerUnitIsCanonical reports whether a header declares no unit or the field's own, so that
// values in the field's unit may be written under it.
func headerUnitIsCanonical(f Field, header string) bool {
	u := HeaderUnit(f, header)
	if u == "" {
		return true
	}
	k := unitKey(u)
	var conv unitConv
	known := false
	switch f.Kind {
	case KindNumber:
		conv, known = numberUnits[f.Unit][k]
	default:
		conv, known = units[f.Kind][k]
	}
	return known && conv == nil
}

// xmlText replaces the characters an xlsx workbook cannot hold (control characters other than
// tab and line breaks, U+FFFE, U+FFFF) with U+FFFD, as an export would, so that an imported
// table is one its export gives back.
func xmlText(s string) string {
	bad := func(r rune) bool {
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF
	}
	if strings.IndexFunc(s, bad) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if bad(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func blankRow(r []string) bool {
	for _, c := range r {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func cellAt(r []string, j int) string {
	if j < len(r) {
		return r[j]
	}
	return ""
}

// columnLetters turns a 1-based column number into its spreadsheet letters (28 → "AB").
func columnLetters(n int) string {
	s := ""
	for n > 0 {
		n--
		s = string(rune('A'+n%26)) + s
		n /= 26
	}
	return s
}

func quoteList(xs []string, max int) string {
	if len(xs) == 0 {
		return "no headers"
	}
	var q []string
	for i, x := range xs {
		if i == max {
			q = append(q, "… ("+strconv.Itoa(len(xs)-max)+" more)")
			break
		}
		q = append(q, strconv.Quote(x))
	}
	return strings.Join(q, ", ")
}

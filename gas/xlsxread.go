package gas

import (
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Reading a worksheet. A cell stores a value and shows it through its number format: a
// molecular weight of 2.016 formatted "0.0" shows "2.0", a confidence of 0.85 shows "0.9".
// Import reads what the cell stores (excelize's RawCellValue), except where the display is
// what the analyst means: outside the field columns dates and times read as shown and booleans
// as TRUE or FALSE, and everywhere a percentage (0.04 shown as "4%") reads as "4%".
//
// Telling those cells apart needs each cell's type and style, which excelize only gives after
// parsing the whole worksheet; sheetReader asks only about cells that may need it, so that a
// sheet without such formats is read in one streaming pass.

// fmtClass is what a number format does to a stored number, as far as import cares.
type fmtClass int

const (
	fmtPlain   fmtClass = iota // shows the number (perhaps rounded): read the stored number
	fmtDate                    // a date or time: read as shown
	fmtPercent                 // ×100 with a % sign: read as the stored number × 100 and "%"
)

// maxStyles bounds the scan of a workbook's cell styles (excelize's own limit).
const maxStyles = 65430

// sheetReader adjusts the raw text of cells that a format or type makes mean something else.
type sheetReader struct {
	f       *excelize.File
	sheet   string
	special map[int]fmtClass // style ID → class, for the styles that aren't plain
}

// readSheet reads the stored values of a sheet, and a reader for cells that need a second look.
func readSheet(f *excelize.File, sheet string) ([][]string, *sheetReader, error) {
	grid, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, nil, err
	}
	sr := &sheetReader{f: f, sheet: sheet, special: map[int]fmtClass{}}
	for id := 0; id < maxStyles; id++ {
		st, err := f.GetStyle(id)
		if err != nil || st == nil {
			break
		}
		if c := numFmtClass(st); c != fmtPlain {
			sr.special[id] = c
		}
	}
	return grid, sr, nil
}

// fix is the cellFixer of the sheet (see tableFromGrid).
func (sr *sheetReader) fix(i, j int, isField bool, v string) string {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v // text, or a date cell excelize gives as ISO text
	}
	long := significantDigits(v) > 15
	if len(sr.special) == 0 && (isField || (v != "0" && v != "1" && !long)) {
		return v
	}
	ref, err := excelize.CoordinatesToCellName(j+1, i+1)
	if err != nil {
		return v
	}
	typ, err := sr.f.GetCellType(sr.sheet, ref)
	if err != nil {
		return v
	}
	switch typ {
	case excelize.CellTypeBool:
		if isField { // 1 and 0 read as yes and no
			return v
		}
		return sr.shown(ref, v)
	case excelize.CellTypeNumber, excelize.CellTypeUnset:
	default:
		return v
	}
	style, err := sr.f.GetCellStyle(sr.sheet, ref)
	if err != nil {
		return v
	}
	switch sr.special[style] {
	case fmtPercent:
		return formatNumber(roundSignificant(x*100, 12)) + "%"
	case fmtDate:
		if !isField { // no field holds a date: a date format on a number column is a slip
			return sr.shown(ref, v)
		}
	}
	if long && !isField { // binary noise (0.30000000000000004), as the cell shows it
		return formatNumber(roundSignificant(x, 15))
	}
	return v
}

// shown is the text a cell displays.
func (sr *sheetReader) shown(ref, v string) string {
	s, err := sr.f.GetCellValue(sr.sheet, ref)
	if err != nil || strings.TrimSpace(s) == "" {
		return v
	}
	return s
}

// significantDigits counts the digits of a number's mantissa without leading zeros.
func significantDigits(v string) int {
	n, leading := 0, true
	for _, r := range v {
		switch {
		case r == 'e' || r == 'E':
			return n
		case r == '0' && leading:
		case r >= '0' && r <= '9':
			n++
			leading = false
		}
	}
	return n
}

// numFmtClass classifies a cell style's number format.
func numFmtClass(st *excelize.Style) fmtClass {
	if st.CustomNumFmt != nil {
		return formatCodeClass(*st.CustomNumFmt)
	}
	switch id := st.NumFmt; {
	case id == 9 || id == 10:
		return fmtPercent
	case id >= 14 && id <= 22, id >= 27 && id <= 36, id >= 45 && id <= 47, id >= 50 && id <= 58, id >= 71 && id <= 81:
		return fmtDate
	}
	return fmtPlain
}

// formatCodeClass classifies a format code by its first section: a date or time has y, m, d,
// h or s outside quotes and brackets (or an elapsed [h], [m], [s]); a percentage has %.
func formatCodeClass(code string) fmtClass {
	rs := []rune(code)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case ';':
			return fmtPlain
		case '"':
			for i++; i < len(rs) && rs[i] != '"'; i++ {
			}
		case '\\', '_', '*':
			i++ // the next character is literal, or padding
		case '[':
			end := i + 1
			for end < len(rs) && rs[end] != ']' {
				end++
			}
			if inner := strings.ToLower(string(rs[i+1 : min(end, len(rs))])); strings.Trim(inner, "hms") == "" && inner != "" {
				return fmtDate
			}
			i = end
		case '%':
			return fmtPercent
		default:
			switch r {
			case 'y', 'Y', 'm', 'M', 'd', 'D', 'h', 'H', 's', 'S':
				return fmtDate
			}
		}
	}
	return fmtPlain
}

// maxHeaderRows bounds a header made of merged rows.
const maxHeaderRows = 4

// mergedHeader finds a header that spans rows: when a cell of the header row is merged with
// cells above or below it ("Chemical Name" over two rows, units in the second), the rows the
// merges cover are one header. It returns the grid with those rows read as one (the first
// holds the combined headers, the others are blank, so that row numbers stay) and the 1-based
// sheet rows of the header; the grid unchanged and nil when the header is one row.
func mergedHeader(f *excelize.File, sheet string, grid [][]string) ([][]string, []int, error) {
	h := headerRow(grid)
	if h < 0 || !headerMayContinue(grid, h) {
		return grid, nil, nil
	}
	cells, err := f.GetMergeCells(sheet, true)
	if err != nil {
		return nil, nil, err
	}
	type span struct{ r1, c1, r2, c2 int } // 0-based, inclusive
	var spans []span
	top, bottom := h, h
	for _, m := range cells {
		c1, r1, err1 := excelize.CellNameToCoordinates(m.GetStartAxis())
		c2, r2, err2 := excelize.CellNameToCoordinates(m.GetEndAxis())
		if err1 != nil || err2 != nil {
			continue
		}
		s := span{min(r1, r2) - 1, min(c1, c2) - 1, max(r1, r2) - 1, max(c1, c2) - 1}
		spans = append(spans, s)
		if s.r1 < s.r2 && s.r1 <= h && h <= s.r2 {
			top, bottom = min(top, s.r1), max(bottom, s.r2)
		}
	}
	bottom = min(bottom, top+maxHeaderRows-1, len(grid)-1)
	if top == bottom {
		return grid, nil, nil
	}
	rows := make([][]string, 0, bottom-top+1)
	width := 0
	for r := top; r <= bottom; r++ {
		width = max(width, len(grid[r]))
	}
	for r := top; r <= bottom; r++ {
		row := make([]string, width)
		copy(row, grid[r])
		rows = append(rows, row)
	}
	// A name merged across columns (a group over its sub-headers) heads each of them.
	for _, s := range spans {
		if s.c1 == s.c2 || s.r1 < top || s.r1 > bottom || s.c1 >= width {
			continue
		}
		row := rows[s.r1-top]
		for c := s.c1 + 1; c <= s.c2 && c < width; c++ {
			if strings.TrimSpace(row[c]) == "" {
				row[c] = row[s.c1]
			}
		}
	}
	combined := make([]string, width)
	for j := range combined {
		for _, row := range rows {
			combined[j] = combineHeaderCell(combined[j], row[j])
		}
	}
	out := append([][]string(nil), grid...)
	out[top] = combined
	var sheetRows []int
	for r := top; r <= bottom; r++ {
		if r > top {
			out[r] = nil
		}
		sheetRows = append(sheetRows, r+1)
	}
	return out, sheetRows, nil
}

// headerMayContinue reports whether the header row may be part of a header of several rows,
// so that the merged cells are worth reading: the row below has no chemical name, or the row
// above isn't blank.
func headerMayContinue(grid [][]string, h int) bool {
	if h > 0 && !blankRow(grid[h-1]) {
		return true
	}
	if h+1 >= len(grid) || blankRow(grid[h+1]) {
		return false
	}
	for j, c := range grid[h] {
		if f, ok := MatchHeader(c); ok && f.Name == "chemical_name" {
			return strings.TrimSpace(cellAt(grid[h+1], j)) == ""
		}
	}
	return false
}

// combineHeaderCell joins a header with the text below it: "Molecular Weight" over "g/mol" is
// "Molecular Weight (g/mol)", "NFPA" over "Health" is "NFPA (Health)", a group over a field
// ("Physical" over "Boiling Point") is the field's header. Text that names no field either way
// is joined with a space.
func combineHeaderCell(above, below string) string {
	above, below = strings.Join(strings.Fields(above), " "), strings.Join(strings.Fields(below), " ")
	switch {
	case above == "" || above == below:
		return below
	case below == "":
		return above
	}
	for _, c := range []string{above + " (" + below + ")", above + " " + below, below} {
		if _, ok := MatchHeader(c); ok {
			return c
		}
	}
	return above + " " + below
}

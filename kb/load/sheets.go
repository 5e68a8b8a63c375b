package load

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"warren/internal/delimiter"

	"github.com/xuri/excelize/v2"
)

// Spreadsheets (XLSX, ODS, CSV) become one or more sections per sheet, each a Markdown table
// that starts with the sheet's header row. Chunks never cross a section, so a sheet is cut
// into sections small enough to be one chunk each: every chunk of rows then has its header.
const (
	sheetRowsPerSection  = 40     // data rows in one section at most
	sheetSectionBytes    = 1000   // below the default chunk size, so a section is one chunk
	maxSheetRows         = 100000 // non-empty rows read per file; the rest is left out
	maxSheetCols         = 256    // columns kept per row
	maxSheetRepeat       = 1000   // copies of a repeated non-empty ODS row or cell
	maxSheetEmptyColumns = 16384  // the widest sheet XLSX allows
)

// sheetRow is one non-empty row and its row number in the sheet (its line, for CSV).
type sheetRow struct {
	n     int
	cells []string
}

type sheet struct {
	name string
	rows []sheetRow
}

// sheetReader gathers the rows of a workbook within maxSheetRows.
type sheetReader struct {
	sheets    []sheet
	rows      int
	truncated bool
}

// add keeps a row that has text, trimmed of trailing empty cells; false when the budget of
// rows is spent.
func (r *sheetReader) add(n int, cells []string) bool {
	if r.rows >= maxSheetRows {
		r.truncated = true
		return false
	}
	for i := range cells {
		cells[i] = strings.Join(strings.Fields(cells[i]), " ")
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 {
		return true
	}
	if len(cells) > maxSheetCols {
		cells = cells[:maxSheetCols]
	}
	r.rows++
	s := &r.sheets[len(r.sheets)-1]
	s.rows = append(s.rows, sheetRow{n: n, cells: cells})
	return true
}

func (r *sheetReader) start(name string) { r.sheets = append(r.sheets, sheet{name: name}) }

func tableLine(cells []string, cols int) string {
	out := make([]string, cols)
	for i := range out {
		if i < len(cells) {
			out[i] = strings.ReplaceAll(cells[i], "|", `\|`)
		}
	}
	return "| " + strings.Join(out, " | ") + " |"
}

// tableText renders the header and rows as a Markdown table.
func tableText(header []string, rows []sheetRow) string {
	cols := len(header)
	for _, r := range rows {
		cols = max(cols, len(r.cells))
	}
	var b strings.Builder
	b.WriteString(tableLine(header, cols))
	b.WriteString("\n|" + strings.Repeat(" --- |", cols))
	for _, r := range rows {
		b.WriteString("\n" + tableLine(r.cells, cols))
	}
	return b.String()
}

// sheetSections cuts each sheet into sections of rows under its header row: the sheet's name
// as the heading, with the rows a section holds when the sheet needs more than one.
func sheetSections(doc *Document, r *sheetReader, title string) error {
	var sections []Section
	for _, s := range r.sheets {
		if len(s.rows) == 0 {
			continue
		}
		header, data := s.rows[0].cells, s.rows[1:]
		var groups [][]sheetRow
		for len(data) > 0 {
			n, size := 0, len(tableText(header, nil))
			for n < len(data) && n < sheetRowsPerSection {
				size += len(tableLine(data[n].cells, max(len(header), len(data[n].cells)))) + 1
				if n > 0 && size > sheetSectionBytes {
					break
				}
				n++
			}
			groups = append(groups, data[:n])
			data = data[n:]
		}
		if len(groups) == 0 {
			groups = [][]sheetRow{nil} // a header alone is still the sheet's text
		}
		name := strings.Join(strings.Fields(s.name), " ")
		for _, g := range groups {
			heading := name
			if len(groups) > 1 {
				heading = fmt.Sprintf("%s (rows %d–%d)", name, g[0].n, g[len(g)-1].n)
			}
			sections = append(sections, Section{Heading: heading, Path: []string{heading}, Text: tableText(header, g)})
		}
	}
	if len(sections) == 0 {
		return &SkipError{Path: doc.Source, Reason: "no cells with text in any sheet"}
	}
	text := placeSections(sections)
	doc.Sections = sections
	if t := strings.Join(strings.Fields(title), " "); t != "" {
		doc.Title = t
	}
	if r.truncated {
		doc.Meta["truncated"] = fmt.Sprintf("only the first %d rows with text were read", maxSheetRows)
	}
	doc.Language = languageOf(nil, text)
	return nil
}

// placeSections sets the offsets of sections in a rendering where each is its heading line,
// a blank line, then its text, and returns that rendering.
func placeSections(sections []Section) string {
	var all strings.Builder
	for i := range sections {
		if all.Len() > 0 {
			all.WriteString("\n\n")
		}
		all.WriteString(sections[i].Heading + "\n\n")
		sections[i].Offset = all.Len()
		all.WriteString(sections[i].Text)
	}
	return all.String()
}

func loadCSVFile(doc *Document, f io.Reader) error {
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("couldn't read %s: %w", doc.Source, err)
	}
	return loadCSV(doc, data)
}

func loadCSV(doc *Document, data []byte) error {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	comma := delimiter.Sniff(data)
	r := &sheetReader{}
	r.start(strings.TrimSuffix(filepath.Base(doc.Source), filepath.Ext(doc.Source)))
	err := readCSVRows(r, data, comma, false)
	if errors.Is(err, csv.ErrBareQuote) {
		// A stray quote inside a field (12" cylinder) is common and harmless.
		*r = sheetReader{sheets: []sheet{{name: r.sheets[0].name}}}
		err = readCSVRows(r, data, comma, true)
	}
	if err != nil {
		return &SkipError{Path: doc.Source, Reason: "not readable as CSV: " + err.Error()}
	}
	return sheetSections(doc, r, "")
}

func readCSVRows(r *sheetReader, data []byte, comma rune, lazy bool) error {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = lazy
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		if !r.add(line, rec) {
			return nil
		}
	}
}

func loadXLSXFile(doc *Document, f io.Reader, limit int64) (err error) {
	defer func() {
		// A malformed workbook must cost the ingest one file, not the process.
		if p := recover(); p != nil {
			err = &SkipError{Path: doc.Source, Reason: fmt.Sprintf("not a readable XLSX workbook (%v)", p)}
		}
	}()
	// Both limits bound the unpacked parts by kb.max_file_mb; parts stay in memory, so no
	// temporary files are left behind.
	x, err := excelize.OpenReader(f, excelize.Options{UnzipSizeLimit: limit, UnzipXMLSizeLimit: limit})
	if err != nil {
		if strings.Contains(err.Error(), "unzip size") {
			return &SkipError{Path: doc.Source, Reason: fmt.Sprintf("it expands past the %.0f MB limit when unpacked (a zip bomb?; raise kb.max_file_mb to ingest it)", float64(limit)/(1<<20))}
		}
		return &SkipError{Path: doc.Source, Reason: "not a readable XLSX workbook: " + err.Error()}
	}
	defer x.Close()
	r := &sheetReader{}
	for _, name := range x.GetSheetList() {
		r.start(name)
		if err := readXLSXSheet(x, name, r); err != nil {
			return &SkipError{Path: doc.Source, Reason: fmt.Sprintf("sheet %q is unreadable: %v", name, err)}
		}
	}
	title := ""
	if props, err := x.GetDocProps(); err == nil && props != nil {
		title = props.Title
	}
	return sheetSections(doc, r, title)
}

func readXLSXSheet(x *excelize.File, name string, r *sheetReader) error {
	rows, err := x.Rows(name)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Rows yields every row up to the last, empty ones too, so counting gives the number.
	for n := 1; rows.Next(); n++ {
		cells, err := rows.Columns()
		if err != nil {
			return err
		}
		if !r.add(n, cells) {
			return nil
		}
	}
	return rows.Error()
}

func loadODSFile(doc *Document, f *os.File, size, limit int64) error {
	p, _, book, err := openODF(f, size, limit, doc.Source, "OpenDocument spreadsheet", ".ods", "spreadsheet")
	if err != nil {
		return err
	}
	title, _, err := coreProps(p, "meta.xml")
	if err != nil {
		return err
	}
	r := &sheetReader{}
	for _, t := range book.kids {
		if t.name != "table" {
			continue
		}
		r.start(t.attr("name"))
		n := 1
		if !odsRows(t, r, &n) {
			break
		}
	}
	return sheetSections(doc, r, title)
}

// repeat reads an ODF repeat count; absent or invalid means once.
func repeat(n *xnode, attr string) int {
	c, err := strconv.Atoi(n.attr(attr))
	if err != nil || c < 1 {
		return 1
	}
	return c
}

// odsRows adds the rows under n, counting row numbers in *next; false when the budget of rows
// is spent. Writers repeat empty rows and cells to the sheet's edge, so only repeats with
// text are expanded, and those at most maxSheetRepeat times.
func odsRows(n *xnode, r *sheetReader, next *int) bool {
	for _, k := range n.kids {
		switch k.name {
		case "table-header-rows", "table-rows", "table-row-group":
			if !odsRows(k, r, next) {
				return false
			}
		case "table-row":
			cells := odsCells(k)
			rep := repeat(k, "number-rows-repeated")
			if len(cells) == 0 {
				*next += rep
				continue
			}
			for i := range min(rep, maxSheetRepeat) {
				if !r.add(*next+i, append([]string(nil), cells...)) {
					return false
				}
			}
			*next += rep
		}
	}
	return true
}

func odsCells(row *xnode) []string {
	var cells []string
	empty := 0 // empty cells not yet written: only kept when text follows them
	for _, c := range row.kids {
		if c.name != "table-cell" && c.name != "covered-table-cell" {
			continue
		}
		text := strings.TrimSpace(odsCellText(c))
		rep := repeat(c, "number-columns-repeated")
		if text == "" {
			empty = min(empty+rep, maxSheetEmptyColumns)
			continue
		}
		for ; empty > 0 && len(cells) < maxSheetCols; empty-- {
			cells = append(cells, "")
		}
		empty = 0
		for range min(rep, maxSheetRepeat) {
			if len(cells) >= maxSheetCols {
				break
			}
			cells = append(cells, text)
		}
	}
	return cells
}

// odsCellText is a cell's displayed text: its paragraphs, annotations left out.
func odsCellText(n *xnode) string {
	var b strings.Builder
	var walk func(n *xnode)
	walk = func(n *xnode) {
		for _, k := range n.kids {
			switch k.name {
			case "":
				b.WriteString(k.text)
			case "s", "tab", "line-break":
				b.WriteString(" ")
			case "annotation":
			case "p", "h":
				walk(k)
				b.WriteString(" ")
			default:
				walk(k)
			}
		}
	}
	walk(n)
	return b.String()
}

package gas

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"warren/internal/atomicfile"
	"warren/kb/chunk"
)

// provenanceHeaders are the columns of the Provenance sheet, one row per cell that the sheet's
// value alone doesn't describe (anything but a plain original value).
// The CAS number finds the record's row when the analyst renamed the chemical in the workbook.
// "Decided By" names the analyst who approved, edited or rejected the cell (noName when the
// decision predates recorded names).
var provenanceHeaders = []string{"Row", "Sheet Row", "Chemical Name", "CAS No.", "Field", "Value", "Unit", "Status",
	"Confidence", "Method", "Source Document", "Section", "Page", "Chunk", "Excerpt", "Note", "Updated", "Decided By"}

// noName stands for an analyst whom an older decision did not record.
const noName = "—"

// statusFill is the background of a cell per status; original and empty cells keep none.
var statusFill = map[Status]string{
	StatusFilled:   "C6EFCE", // light green
	StatusReview:   "FFE699", // light yellow-orange
	StatusApproved: "70C17A", // green
	StatusEdited:   "BDD7EE", // light blue
	StatusRejected: "FFC7CE", // light red
	// An unsupported cell shows no value, only its colour and the comment saying why.
	StatusUnsupported: "D9D2E9", // light purple
}

// ExportXLSX writes the table to an xlsx workbook: the sheet "HMIS" with the table's columns in
// their order (fields without a column are appended, in schema order, when any row has a cell
// for them), each cell coloured by status with its source, confidence and method in a comment,
// a "Provenance" sheet with one row per cell that isn't a plain original value, and a hidden
// "Originals" sheet with the plain ones (see analyst.go). The file is replaced atomically.
func ExportXLSX(t *Table, path string) error {
	f := excelize.NewFile()
	defer f.Close()
	cw, err := writeWorkbook(f, t)
	if err != nil {
		return fmt.Errorf("couldn't export %s: %w", path, err)
	}
	if cw != nil {
		f.SetZipWriter(cw.zipWriter)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return fmt.Errorf("couldn't export %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// writeWorkbook fills the workbook. Both sheets are written with excelize's stream writer; the
// comments are written by commentWriter (see comments.go), which returns nil when there are none.
func writeWorkbook(f *excelize.File, t *Table) (*commentWriter, error) {
	if err := f.SetSheetName(f.GetSheetName(0), SheetHMIS); err != nil {
		return nil, err
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: t.Name, Creator: "warren"}); err != nil {
		return nil, err
	}
	headers, colField := exportColumns(t)
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, err
	}
	styles := map[Status]int{}
	for s, color := range statusFill {
		id, err := f.NewStyle(&excelize.Style{Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}})
		if err != nil {
			return nil, err
		}
		styles[s] = id
	}
	colFields := make([]Field, len(colField))
	headerOf := map[string]string{} // field → the header the sheet writes for it
	for j, fn := range colField {
		colFields[j], _ = FieldByName(fn)
		if fn != "" {
			headerOf[fn] = headers[j]
		}
	}

	// Comments first: the first one goes in through excelize so that the sheet gets its
	// drawing, relationships and content types before the stream writer takes the sheet over.
	var notes []note
	for i, r := range t.Rows {
		for j, fn := range colField {
			if c, ok := r.Cells[fn]; ok && fn != "" && !plain(colFields[j], c) {
				if text := commentText(exportCell(c)); text != "" {
					notes = append(notes, note{row: i + 1, col: j, text: text, author: commentAuthor(c)})
				}
			}
		}
	}
	var cw *commentWriter
	if len(notes) > 0 {
		if cw, err = newCommentWriter(f, SheetHMIS, notes); err != nil {
			return nil, err
		}
	}

	sw, err := f.NewStreamWriter(SheetHMIS)
	if err != nil {
		return nil, err
	}
	widths := newColumnWidths(headers, headerWidthMax)
	for _, r := range t.Rows {
		for j, fn := range colField {
			if fn == "" {
				widths.fit(j, r.Extra[headers[j]])
			} else {
				widths.fit(j, r.Cells[fn].Value)
			}
		}
	}
	if err := widths.set(sw); err != nil {
		return nil, err
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	line := make([]any, len(headers))
	for j, h := range headers {
		line[j] = excelize.Cell{StyleID: bold, Value: h}
	}
	if err := sw.SetRow("A1", line); err != nil {
		return nil, err
	}
	var prov, orig [][]any
	for i, r := range t.Rows {
		sheetRow := i + 2
		for j, fn := range colField {
			if fn == "" {
				line[j] = nil // no cell at all for an empty value
				if v := r.Extra[headers[j]]; v != "" {
					line[j] = v
				}
				continue
			}
			c := exportCell(r.Cells[fn])
			v := sheetValue(colFields[j], c.Value)
			if id, ok := styles[c.Status]; ok && !plain(colFields[j], c) {
				v = excelize.Cell{StyleID: id, Value: v}
			}
			line[j] = v
		}
		if err := sw.SetRow("A"+strconv.Itoa(sheetRow), line); err != nil {
			return nil, err
		}
		// Provenance in schema order, including cells whose field has no column.
		for _, field := range fields {
			c, ok := r.Cells[field.Name]
			// The Field column names the field as the sheet's header does, not by its id.
			head := headerOf[field.Name]
			if head == "" {
				head = field.Label
			}
			if ok && tracksOriginal(field, c) {
				orig = append(orig, []any{r.ID, sheetRow, r.Name(), r.Cells["cas_number"].Value, head, c.Value})
			}
			if !ok || plain(field, c) {
				continue
			}
			c = exportCell(c)
			var conf any = ""
			if c.Confidence != 0 {
				conf = c.Confidence
			}
			updated := ""
			if !c.UpdatedAt.IsZero() {
				updated = c.UpdatedAt.Format(time.RFC3339Nano)
			}
			prov = append(prov, []any{r.ID, sheetRow, r.Name(), r.Cells["cas_number"].Value, head, c.Value, c.Unit, string(c.Status),
				conf, c.Method, c.SourceDoc, c.SourceSection, pageText(c.SourcePage), c.SourceChunk, c.Excerpt, c.Note, updated, decidedBy(c)})
		}
	}
	if err := sw.Flush(); err != nil {
		return nil, err
	}

	if _, err := f.NewSheet(SheetProvenance); err != nil {
		return nil, err
	}
	pw, err := f.NewStreamWriter(SheetProvenance)
	if err != nil {
		return nil, err
	}
	pwidths := newColumnWidths(provenanceHeaders, provenanceWidthMax)
	for _, rec := range prov {
		for j, v := range rec {
			pwidths.fit(j, fmt.Sprint(v))
		}
	}
	if err := pwidths.set(pw); err != nil {
		return nil, err
	}
	if err := pw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	head := make([]any, len(provenanceHeaders))
	for j, h := range provenanceHeaders {
		head[j] = excelize.Cell{StyleID: bold, Value: h}
	}
	if err := pw.SetRow("A1", head); err != nil {
		return nil, err
	}
	for i, rec := range prov {
		// Values go in as text, so that "4.10" or "UN1234" come back exactly as written.
		if err := pw.SetRow("A"+strconv.Itoa(i+2), rec); err != nil {
			return nil, err
		}
	}
	if err := pw.Flush(); err != nil {
		return nil, err
	}
	return cw, writeOriginals(f, orig)
}

// writeOriginals writes the hidden Originals sheet (see analyst.go): the original values as
// exported, for the import to tell which the analyst changed.
func writeOriginals(f *excelize.File, orig [][]any) error {
	if _, err := f.NewSheet(SheetOriginals); err != nil {
		return err
	}
	ow, err := f.NewStreamWriter(SheetOriginals)
	if err != nil {
		return err
	}
	head := make([]any, len(originalsHeaders))
	for j, h := range originalsHeaders {
		head[j] = h
	}
	if err := ow.SetRow("A1", head); err != nil {
		return err
	}
	for i, rec := range orig {
		if err := ow.SetRow("A"+strconv.Itoa(i+2), rec); err != nil {
			return err
		}
	}
	if err := ow.Flush(); err != nil {
		return err
	}
	return f.SetSheetVisible(SheetOriginals, false)
}

// exportColumns returns the columns an export writes: the table's own, then unknown headers
// that rows carry but Columns lacks, then, in schema order, fields that no column holds but
// some row has a cell for.
func exportColumns(t *Table) (headers, colField []string) {
	headers = append([]string(nil), t.Columns...)
	seen := map[string]bool{}
	for _, h := range headers {
		seen[h] = true
	}
	var extra []string
	for _, r := range t.Rows {
		for h := range r.Extra {
			if !seen[h] {
				seen[h] = true
				extra = append(extra, h)
			}
		}
	}
	slices.Sort(extra)
	headers = append(headers, extra...)
	colField = columnFields(headers)
	// Extra headers that happen to match a field stay unknown: their values live in Extra.
	for i := len(t.Columns); i < len(headers); i++ {
		colField[i] = ""
	}
	// Values are written in the field's unit, so a header that declares another unit
	// ("Boiling point [K]") would mislabel them: it becomes the field's label.
	for i, fn := range colField {
		if f, ok := FieldByName(fn); ok && !headerUnitIsCanonical(f, headers[i]) {
			headers[i] = f.Label
		}
	}
	have := map[string]bool{}
	for _, fn := range colField {
		have[fn] = true
	}
	for _, f := range fields {
		if have[f.Name] {
			continue
		}
		for _, r := range t.Rows {
			if _, ok := r.Cells[f.Name]; ok {
				headers = append(headers, f.Label)
				colField = append(colField, f.Name)
				break
			}
		}
	}
	return headers, colField
}

// sheetValue is what a cell of the HMIS sheet holds: a number for numeric fields, so that the
// analyst can sort and compute, the text otherwise, and nothing for an empty value.
func sheetValue(f Field, value string) any {
	if value == "" {
		return nil
	}
	switch f.Kind {
	case KindNumber, KindTemperature, KindPressure, KindPercent, KindPPM, KindRating:
		if x, err := strconv.ParseFloat(value, 64); err == nil && formatNumber(x) == value {
			return x
		}
	}
	return value
}

// commentText is the note on a cell: status, confidence, method, source and note.
func commentText(c Cell) string {
	var b strings.Builder
	b.WriteString("warren: " + string(c.Status))
	if c.Confidence != 0 {
		fmt.Fprintf(&b, ", confidence %.2f", c.Confidence)
	}
	if c.Method != "" {
		b.WriteString(", method " + c.Method)
	}
	if c.SourceDoc != "" {
		b.WriteString("\nSource: " + c.SourceDoc)
		if place := chunk.Place(c.SourceSection, c.SourcePage); place != "" {
			b.WriteString(", " + place)
		}
	}
	if c.Excerpt != "" {
		ex := []rune(c.Excerpt)
		if len(ex) > 300 {
			ex = append(ex[:300], '…')
		}
		b.WriteString("\n“" + string(ex) + "”")
	}
	if c.Note != "" {
		b.WriteString("\nNote: " + c.Note)
	}
	return b.String()
}

// commentAuthor is the author of a cell's comment: the analyst for a value they decided
// (approved, edited, rejected), warren for what warren filled or flagged.
func commentAuthor(c Cell) string {
	if by := decidedBy(c); by != "" {
		return by
	}
	return "warren"
}

// decidedBy names the analyst who decided a cell: "" for a cell nobody decided (original,
// filled, flagged), noName for a decision that recorded no name.
func decidedBy(c Cell) string {
	switch c.Status {
	case StatusApproved, StatusEdited, StatusRejected:
		if c.By == "" {
			return noName
		}
		return c.By
	}
	return ""
}

// Column widths, in characters of the default font. A column is as wide as its header, so that
// names and units stay readable, and as its longest value up to a cap, so that one long excerpt
// doesn't push the rest of the sheet out of sight.
const (
	headerWidthMax     = 40  // values of the HMIS sheet
	provenanceWidthMax = 60  // excerpts and notes of the Provenance sheet
	minColumnWidth     = 8   // a column of one-digit ratings
	maxColumnWidth     = 100 // a header of any length (excelize allows 255)
)

type columnWidths struct {
	w          []float64
	contentMax float64
}

func newColumnWidths(headers []string, contentMax int) *columnWidths {
	cw := &columnWidths{w: make([]float64, len(headers)), contentMax: float64(contentMax)}
	for j, h := range headers {
		cw.w[j] = max(minColumnWidth, textWidth(h)*1.1+2) // the header is bold
	}
	return cw
}

// fit widens column j for a value.
func (cw *columnWidths) fit(j int, v string) {
	if j < len(cw.w) && v != "" {
		cw.w[j] = max(cw.w[j], min(textWidth(v), cw.contentMax)+2)
	}
}

// set gives a stream writer the widths; it must come before the first row.
func (cw *columnWidths) set(sw *excelize.StreamWriter) error {
	for j, w := range cw.w {
		if err := sw.SetColWidth(j+1, j+1, math.Round(min(w, maxColumnWidth))); err != nil {
			return err
		}
	}
	return nil
}

// textWidth is the length in characters of the longest line of a text.
func textWidth(s string) float64 {
	n := 0
	for line := range strings.SplitSeq(s, "\n") {
		n = max(n, len([]rune(line)))
	}
	return float64(n)
}

package gas

import (
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// What the analyst adds to an exported workbook: original values they change and comments they
// write. An original value has no Provenance record (the sheet's value describes it), so the
// export keeps the values as they were in a hidden Originals sheet; the import compares the
// sheet with it as it compares filled values with the Provenance sheet.

// SheetOriginals is the hidden sheet of the original values an export wrote.
const SheetOriginals = "Originals"

// originalsHeaders are its columns, named as the Provenance sheet's so that a record finds its
// row the same way.
var originalsHeaders = []string{"Row", "Sheet Row", "Chemical Name", "CAS No.", "Field", "Value"}

// tracksOriginal reports whether the Originals sheet records a cell: a plain value of any
// field but the chemical name, which is the row's key (a renamed chemical is found by CAS
// number, see findRecordRow).
func tracksOriginal(f Field, c Cell) bool {
	return f.Name != "chemical_name" && c.Value != "" && plain(f, c)
}

// applyOriginals compares the original values an export recorded with the sheet: one the
// analyst changed becomes edited (deleted: rejected) with the old value in its note, and is
// reported as changed after the export. A record whose row is gone, or whose cell the
// Provenance sheet already restored, is passed over.
func applyOriginals(st *sheetTable, grid [][]string) {
	if len(grid) == 0 {
		return
	}
	col := map[string]int{}
	for j, h := range grid[0] {
		col[strings.TrimSpace(h)] = j
	}
	for _, need := range []string{"Sheet Row", "Field", "Value"} {
		if _, ok := col[need]; !ok {
			return // not the sheet an export writes
		}
	}
	get := func(r []string, h string) string {
		if j, ok := col[h]; ok {
			return cellAt(r, j)
		}
		return ""
	}
	for _, r := range grid[1:] {
		if blankRow(r) {
			continue
		}
		f, ok := provenanceField(st, strings.TrimSpace(get(r, "Field")))
		if !ok || f.Name == "chemical_name" {
			continue
		}
		sheetRow, _ := strconv.Atoi(strings.TrimSpace(get(r, "Sheet Row")))
		row, _ := findRecordRow(st, sheetRow, strings.TrimSpace(get(r, "Chemical Name")), strings.TrimSpace(get(r, "CAS No.")))
		if row == nil {
			continue
		}
		if _, ok := st.recorded[row][f.Name]; ok {
			continue
		}
		v := get(r, "Value")
		got := reconcile(f, row.Cells[f.Name], Cell{Value: v, Unit: unitFor(f, v), Status: StatusOriginal})
		if got.Status != StatusOriginal || got.Value != v {
			st.report.ChangedAfterExport = append(st.report.ChangedAfterExport,
				ReportCell{Row: row.ID, Chemical: row.Name(), Field: f.Name, Value: got.Value, Note: got.Note})
			row.Set(f.Name, got)
		}
	}
}

// SheetComment is a comment of the imported sheet with text warren did not write.
type SheetComment struct {
	Cell     string `json:"cell"`               // where it sits ("D4")
	Row      int    `json:"row,omitempty"`      // the row's ID; 0 off the table's rows
	Chemical string `json:"chemical,omitempty"` // the row's chemical
	Field    string `json:"field,omitempty"`    // the cell's field; "" off the field columns
	Author   string `json:"author,omitempty"`
	Text     string `json:"text"`          // what was added, without the lines warren wrote
	Why      string `json:"why,omitempty"` // why it couldn't be kept on a cell
}

// applyComments reads the comments of the imported sheet. What a comment holds beyond the
// text warren wrote into it on export (a new comment, or lines the analyst added to warren's)
// is appended to the cell's note, attributed; a comment on no field cell of a row (the header,
// an extra column) is listed in the report instead, so that none is dropped without a word.
func applyComments(st *sheetTable, f *excelize.File, sheet string) error {
	comments, err := f.GetComments(sheet)
	if err != nil {
		return err
	}
	for _, cm := range comments {
		text := cm.Text
		for _, run := range cm.Paragraph { // LibreOffice and Excel write rich-text runs
			text += run.Text
		}
		sc := SheetComment{Cell: cm.Cell, Author: cm.Author}
		col, sheetRow, err := excelize.CellNameToCoordinates(cm.Cell)
		var row *Row
		field, isColumn := "", false
		if err == nil {
			row = st.bySheetRow[sheetRow]
			field, isColumn = st.fieldAt[col-1]
		}
		if row != nil {
			sc.Row, sc.Chemical, sc.Field = row.ID, row.Name(), field
		}
		if sc.Text = analystText(text, warrenComment(st, row, field, text), cm.Author); sc.Text == "" {
			continue
		}
		switch {
		case row == nil:
			sc.Why = "not on a row of the table"
		case !isColumn:
			sc.Why = "outside the table's columns"
		case field == "":
			sc.Why = "on an extra column, whose values keep no notes"
		}
		if sc.Why != "" {
			st.report.CommentsNotKept = append(st.report.CommentsNotKept, sc)
			continue
		}
		c := row.Cells[field]
		if c.Note != "" {
			c.Note += "; "
		}
		c.Note += commentNote(sc)
		row.Set(field, c)
		st.report.CommentsKept = append(st.report.CommentsKept, sc)
	}
	return nil
}

// commentNote is the note a kept comment adds to its cell: attributed to its author unless
// that is warren, whose comment the analyst extended.
func commentNote(sc SheetComment) string {
	if a := strings.TrimSpace(sc.Author); a != "" && a != "warren" {
		return "comment by " + a + " in the workbook: " + sc.Text
	}
	return "comment in the workbook: " + sc.Text
}

// warrenComment is the comment warren wrote at the export on the cell a comment sits on: from
// the cell the Provenance sheet recorded for it. A comment that holds instead the whole of what
// warren wrote on another cell of the field (the comment didn't move with its cell, or its
// record found no row) is taken for that one. "" when warren wrote none.
func warrenComment(st *sheetTable, row *Row, field, text string) string {
	if field == "" {
		return ""
	}
	have := commentLines(text)
	holds := func(w string) bool {
		for l := range commentLines(w) {
			if !have[l] {
				return false
			}
		}
		return true
	}
	own := ""
	if rec, ok := st.recorded[row][field]; ok && row != nil {
		if own = commentText(exportCell(rec)); holds(own) {
			return own
		}
	}
	if st.warrenTexts == nil {
		st.warrenTexts = map[string][]string{}
		add := func(field string, c Cell) {
			w := commentText(exportCell(c))
			first, _, _ := strings.Cut(w, "\n")
			k := field + "\n" + strings.TrimSpace(first)
			st.warrenTexts[k] = append(st.warrenTexts[k], w)
		}
		for _, cells := range st.recorded {
			for fn, c := range cells {
				add(fn, c)
			}
		}
		for _, p := range st.report.UnmatchedProvenance {
			add(p.Field, p.Cell)
		}
	}
	for l := range have {
		for _, w := range st.warrenTexts[field+"\n"+l] {
			if holds(w) {
				return w
			}
		}
	}
	return own // edited within warren's text: its remaining lines are still warren's
}

// commentLines is the set of a comment's non-blank lines, trimmed.
func commentLines(s string) map[string]bool {
	out := map[string]bool{}
	for l := range strings.SplitSeq(strings.ReplaceAll(s, "\r", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out[l] = true
		}
	}
	return out
}

// analystText is what a comment holds beyond warren's text: its lines that aren't warren's,
// and what follows warren's text on a line the analyst typed on. Lines are compared, not the
// whole text, because a spreadsheet may change line breaks and the analyst may write above
// warren's text as well as below it. Excel's first line naming the author is left out.
func analystText(text, warren, author string) string {
	mine := commentLines(warren)
	var out []string
	first := true
	for l := range strings.SplitSeq(strings.ReplaceAll(text, "\r", "\n"), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		isFirst := first
		first = false
		if mine[l] || (isFirst && author != "" && l == strings.TrimSpace(author)+":") {
			continue
		}
		longest := ""
		for w := range mine {
			if len(w) > len(longest) && strings.HasPrefix(l, w) {
				longest = w
			}
		}
		if l = strings.TrimSpace(strings.TrimPrefix(l, longest)); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

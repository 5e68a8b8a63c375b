package gas

import (
	"fmt"
	"strconv"
	"strings"
)

// ImportReport is what an import noticed that the table alone doesn't show: headers it kept as
// extra columns, Provenance records it could not place, and the cells that wait for the
// analyst, told apart by why.
type ImportReport struct {
	// HeaderRows are the 1-based sheet rows the header was read from: two or more when cells
	// of the header are merged down over the row below (units under the names, say).
	HeaderRows []int `json:"header_rows"`
	// UnmatchedHeaders are the columns kept as extra columns because their header names no
	// field (or a field an earlier column holds), with the field they may mean.
	UnmatchedHeaders []UnmatchedHeader `json:"unmatched_headers"`
	// RenamedRows are rows whose chemical name changed in the workbook after the export; their
	// Provenance records were matched by CAS number.
	RenamedRows []RenamedRow `json:"renamed_rows"`
	// UnmatchedProvenance are Provenance records that match no row by sheet row and name, by
	// name, or by CAS number: the row was renamed without a CAS number, or deleted. Their cells
	// are kept here; the sheet's values for that row read as original values.
	UnmatchedProvenance []ProvenanceRecord `json:"unmatched_provenance"`
	// UnknownProvenanceFields are Provenance records whose Field column names no field (by
	// header or id): they are not applied.
	UnknownProvenanceFields []UnknownProvenanceField `json:"unknown_provenance_fields"`
	// InvalidCells are values of the sheet that don't validate, kept as written and flagged for
	// review.
	InvalidCells []ReportCell `json:"invalid_cells"`
	// ReviewPending are valid values whose status is review: a fill of low confidence that the
	// analyst hasn't approved, edited or rejected yet.
	ReviewPending []ReportCell `json:"review_pending"`
	// ChangedAfterExport are values the analyst changed or deleted in the workbook after the
	// export: they are now edited or rejected, with a note of what warren had.
	ChangedAfterExport []ReportCell `json:"changed_after_export"`
	// CommentsKept are cell comments with text warren didn't write (new ones, or lines added
	// to warren's): that text is now in the cell's note, attributed to the comment's author.
	CommentsKept []SheetComment `json:"comments_kept"`
	// CommentsNotKept are such comments on no field cell of a row (the header, an extra
	// column): listed here with their text, since no note holds them.
	CommentsNotKept []SheetComment `json:"comments_not_kept"`
}

// UnmatchedHeader is a column kept as an extra column.
type UnmatchedHeader struct {
	Column string `json:"column"` // the column's letters in the sheet ("F")
	Header string `json:"header"` // the header as the table keeps it
	// Duplicate is the header of an earlier column that holds the field this header names;
	// empty when the header names no field.
	Duplicate string `json:"duplicate,omitempty"`
	// Field is the field the header names (a duplicate) or probably means (a suggestion).
	Field string `json:"field,omitempty"`
	// Suggestion is that field's label, for a header that names none.
	Suggestion string `json:"suggestion,omitempty"`
}

// RenamedRow is a row found by its CAS number because its name changed.
type RenamedRow struct {
	SheetRow int    `json:"sheet_row"` // the row in the sheet now
	Was      string `json:"was"`       // the name the Provenance sheet recorded
	Now      string `json:"now"`       // the name in the sheet
	CAS      string `json:"cas"`
	Records  int    `json:"records"` // Provenance records restored through the CAS number
}

// ProvenanceRecord is one record of the Provenance sheet that found no row.
type ProvenanceRecord struct {
	ProvenanceRow int    `json:"provenance_row"` // its row in the Provenance sheet
	SheetRow      int    `json:"sheet_row"`      // the sheet row it was exported from
	Chemical      string `json:"chemical"`
	CAS           string `json:"cas,omitempty"`
	Field         string `json:"field"`
	Cell          Cell   `json:"cell"`
}

// UnknownProvenanceField is a Provenance record whose field is not known.
type UnknownProvenanceField struct {
	ProvenanceRow int    `json:"provenance_row"` // its row in the Provenance sheet
	Field         string `json:"field"`          // the Field column as written
	Chemical      string `json:"chemical"`
}

// ReportCell names a cell of the imported table.
type ReportCell struct {
	Row      int    `json:"row"` // the row's ID
	Chemical string `json:"chemical"`
	Field    string `json:"field"`
	Value    string `json:"value"`
	Note     string `json:"note,omitempty"`
}

// finishReport completes the report of an imported table: the cells that wait for the
// analyst, and empty lists rather than none, so that --json shows every key as a list.
func (st *sheetTable) finishReport() *ImportReport {
	r := &st.report
	r.collectCells(st.Table)
	for _, l := range []*[]ReportCell{&r.InvalidCells, &r.ReviewPending, &r.ChangedAfterExport} {
		if *l == nil {
			*l = []ReportCell{}
		}
	}
	if r.UnmatchedHeaders == nil {
		r.UnmatchedHeaders = []UnmatchedHeader{}
	}
	if r.RenamedRows == nil {
		r.RenamedRows = []RenamedRow{}
	}
	if r.UnmatchedProvenance == nil {
		r.UnmatchedProvenance = []ProvenanceRecord{}
	}
	if r.UnknownProvenanceFields == nil {
		r.UnknownProvenanceFields = []UnknownProvenanceField{}
	}
	for _, l := range []*[]SheetComment{&r.CommentsKept, &r.CommentsNotKept} {
		if *l == nil {
			*l = []SheetComment{}
		}
	}
	return r
}

// collectCells fills the lists of cells that wait for the analyst.
func (r *ImportReport) collectCells(t *Table) {
	for _, row := range t.Rows {
		for _, f := range fields {
			c, ok := row.Cells[f.Name]
			if !ok || c.Status != StatusReview {
				continue
			}
			rc := ReportCell{Row: row.ID, Chemical: row.Name(), Field: f.Name, Value: c.Value, Note: c.Note}
			if _, err := Normalize(f, c.Value, ""); c.Method == MethodSheet || err != nil {
				r.InvalidCells = append(r.InvalidCells, rc)
			} else {
				rc.Note = ""
				r.ReviewPending = append(r.ReviewPending, rc)
			}
		}
	}
}

// reportListMax is how many items of each list Lines spells out; --json has them all.
const reportListMax = 10

// Lines says the report in words, one line per finding (indented lines list the items), for
// the import command to print. An import that noticed nothing gives no lines.
func (r *ImportReport) Lines() []string {
	var out []string
	if n := len(r.HeaderRows); n > 1 {
		out = append(out, fmt.Sprintf("The header spans sheet rows %d–%d (merged cells); read as one header row.", r.HeaderRows[0], r.HeaderRows[n-1]))
	}
	for _, h := range r.UnmatchedHeaders {
		var s string
		switch {
		case h.Duplicate != "":
			s = fmt.Sprintf("Column %s %q names %s like column %q before it: kept as an extra column.", h.Column, h.Header, label(h.Field), h.Duplicate)
		case h.Suggestion != "":
			s = fmt.Sprintf("Column %s %q → not matched; did you mean %s? Kept as an extra column.", h.Column, h.Header, h.Suggestion)
		default:
			s = fmt.Sprintf("Column %s %q matches no field: kept as an extra column.", h.Column, h.Header)
		}
		out = append(out, s)
	}
	for _, rr := range r.RenamedRows {
		out = append(out, fmt.Sprintf("Sheet row %d was %q when exported and is %q now: %s found by CAS number %s.",
			rr.SheetRow, rr.Was, rr.Now, plural(rr.Records, "Provenance record", "Provenance records"), rr.CAS))
	}
	if n := len(r.UnmatchedProvenance); n > 0 {
		out = append(out, fmt.Sprintf("%s %s no row (renamed without a CAS number, or deleted); %s listed here and not applied, so the sheet's values read as original:",
			plural(n, "Provenance record", "Provenance records"), verb(n, "matches", "match"), verb(n, "its cell is", "their cells are")))
		out = append(out, listed(len(r.UnmatchedProvenance), func(i int) string {
			p := r.UnmatchedProvenance[i]
			s := fmt.Sprintf("Provenance row %d: %q (sheet row %d), %s %s, %s", p.ProvenanceRow, p.Chemical, p.SheetRow, label(p.Field), shownValue(p.Cell.Value), p.Cell.Status)
			if p.Cell.SourceDoc != "" {
				s += ", from " + p.Cell.SourceDoc
			}
			return s
		})...)
	}
	if n := len(r.UnknownProvenanceFields); n > 0 {
		out = append(out, fmt.Sprintf("%s %s no known field; not applied:", plural(n, "Provenance record", "Provenance records"), verb(n, "names", "name")))
		out = append(out, listed(n, func(i int) string {
			u := r.UnknownProvenanceFields[i]
			return fmt.Sprintf("Provenance row %d: %q, field %q", u.ProvenanceRow, u.Chemical, u.Field)
		})...)
	}
	if n := len(r.InvalidCells); n > 0 {
		out = append(out, fmt.Sprintf("%s of the sheet %s, kept as written and flagged for review:", plural(n, "value", "values"), verb(n, "doesn't validate", "don't validate")))
		out = append(out, listed(n, func(i int) string {
			c := r.InvalidCells[i]
			why := strings.TrimPrefix(c.Note, "invalid in the sheet: ")
			if strings.HasPrefix(why, label(c.Field)+": ") { // the note names field and value
				return fmt.Sprintf("row %d %q: %s", c.Row, c.Chemical, why)
			}
			return fmt.Sprintf("row %d %q, %s %s: %s", c.Row, c.Chemical, label(c.Field), shownValue(c.Value), why)
		})...)
	}
	if n := len(r.ReviewPending); n > 0 {
		out = append(out, fmt.Sprintf("%s %s your review (filled at low confidence, not yet approved, edited or rejected):",
			plural(n, "valid value", "valid values"), verb(n, "awaits", "await")))
		out = append(out, listed(n, func(i int) string {
			c := r.ReviewPending[i]
			return fmt.Sprintf("row %d %q, %s %s", c.Row, c.Chemical, label(c.Field), shownValue(c.Value))
		})...)
	}
	if n := len(r.ChangedAfterExport); n > 0 {
		out = append(out, fmt.Sprintf("%s changed in the workbook after the export:", plural(n, "value was", "values were")))
		out = append(out, listed(n, func(i int) string {
			c := r.ChangedAfterExport[i]
			return fmt.Sprintf("row %d %q, %s: %s", c.Row, c.Chemical, label(c.Field), c.Note)
		})...)
	}
	if n := len(r.CommentsKept); n > 0 {
		out = append(out, fmt.Sprintf("%s in the workbook kept in the cells' notes:", plural(n, "comment", "comments")))
		out = append(out, listed(n, func(i int) string {
			c := r.CommentsKept[i]
			return fmt.Sprintf("%s, row %d %q, %s: %s", c.Cell, c.Row, c.Chemical, label(c.Field), commentNote(c))
		})...)
	}
	if n := len(r.CommentsNotKept); n > 0 {
		out = append(out, fmt.Sprintf("%s in the workbook %s on no cell of the table, so %s kept only here:",
			plural(n, "comment", "comments"), verb(n, "is", "are"), verb(n, "it is", "they are")))
		out = append(out, listed(n, func(i int) string {
			c := r.CommentsNotKept[i]
			return fmt.Sprintf("%s (%s): %s", c.Cell, c.Why, commentNote(c))
		})...)
	}
	return out
}

// listed spells out the first reportListMax items, indented, and says how many more there are.
func listed(n int, item func(int) string) []string {
	var out []string
	for i := 0; i < n && i < reportListMax; i++ {
		out = append(out, "  "+item(i))
	}
	if n > reportListMax {
		out = append(out, fmt.Sprintf("  … and %d more (--json lists them all)", n-reportListMax))
	}
	return out
}

func label(field string) string {
	if f, ok := FieldByName(field); ok {
		return f.Label
	}
	return field
}

func shownValue(v string) string {
	if v == "" {
		return "(empty)"
	}
	return strconv.Quote(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

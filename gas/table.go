package gas

import (
	"strings"
	"time"

	"warren/kb/chunk"
)

// Status says where a cell's value came from and what the analyst did with it.
type Status string

// The statuses of a cell.
const (
	StatusEmpty    Status = ""         // no value yet
	StatusOriginal Status = "original" // value from the imported sheet
	StatusFilled   Status = "filled"   // filled from the knowledge base with high confidence
	StatusReview   Status = "review"   // filled with low confidence, or invalid in the sheet: review required
	StatusApproved Status = "approved" // a filled value the analyst approved
	StatusEdited   Status = "edited"   // a value the analyst typed
	StatusRejected Status = "rejected" // a filled value the analyst rejected: emptied, with a note
	// StatusUnsupported is a value a fill read that no passage it was offered states: kept
	// for the analyst to see, with the reason in the note, but never counted as filled,
	// exported as a value or approved as it stands; a later fill may replace it.
	StatusUnsupported Status = "unsupported"
)

// Statuses lists every status, empty first.
var Statuses = []Status{StatusEmpty, StatusOriginal, StatusFilled, StatusReview, StatusApproved, StatusEdited, StatusRejected, StatusUnsupported}

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool {
	for _, x := range Statuses {
		if s == x {
			return true
		}
	}
	return false
}

// MethodSheet marks a cell whose text came from the imported sheet but didn't validate; like
// an original value it is never overwritten by a fill (see Merge).
const MethodSheet = "sheet"

// Cell is one value of the table with its provenance.
type Cell struct {
	Value         string        `json:"value,omitempty"`          // canonical text (see Normalize)
	Unit          string        `json:"unit,omitempty"`           // unit of Value, the field's canonical unit
	Status        Status        `json:"status,omitempty"`         // where the value stands
	Confidence    float64       `json:"confidence,omitempty"`     // 0–1, of a filled value
	Method        string        `json:"method,omitempty"`         // how the value was found (e.g. "extract", "lookup", MethodSheet)
	SourceDoc     string        `json:"source_doc,omitempty"`     // knowledge-base document ID
	SourceSection string        `json:"source_section,omitempty"` // section within the document
	SourceChunk   string        `json:"source_chunk,omitempty"`   // chunk ID of the passage
	SourcePage    chunk.PageRef `json:"source_page,omitzero"`     // the passage's page or slide, and whether OCR read it
	Excerpt       string        `json:"excerpt,omitempty"`        // the passage the value was read from
	Note          string        `json:"note,omitempty"`           // analyst's or warren's remark (why rejected, why flagged)
	UpdatedAt     time.Time     `json:"updated_at,omitzero"`      // last change; zero for values from the sheet
	By            string        `json:"by,omitempty"`             // the analyst who approved, edited or rejected it; "" when unknown
}

// IsZero reports whether the cell holds nothing at all: no value, status or provenance.
func (c Cell) IsZero() bool {
	return c.Value == "" && c.Unit == "" && c.Status == StatusEmpty && c.Confidence == 0 && c.Method == "" &&
		c.SourceDoc == "" && c.SourceSection == "" && c.SourceChunk == "" && c.SourcePage.IsZero() && c.Excerpt == "" && c.Note == "" &&
		c.UpdatedAt.IsZero() && c.By == ""
}

// IsEmpty reports whether the cell has no value to show and may be filled: empty or rejected.
func (c Cell) IsEmpty() bool {
	return c.Value == "" && (c.Status == StatusEmpty || c.Status == StatusRejected)
}

// Fillable reports whether a fill may set the cell as if it were empty: an empty or rejected
// cell, or one holding a value no passage stated (StatusUnsupported).
func (c Cell) Fillable() bool {
	return c.IsEmpty() || c.Status == StatusUnsupported
}

// Row is one gas. Cells holds the schema fields that have anything (absent means empty);
// Extra holds the columns warren doesn't know, by their header.
type Row struct {
	ID    int               `json:"id"`
	Cells map[string]Cell   `json:"cells"`
	Extra map[string]string `json:"extra,omitempty"`
}

// Name returns the chemical name, the row's key.
func (r *Row) Name() string { return r.Cells["chemical_name"].Value }

// Cell returns the cell of a field, zero when it has none.
func (r *Row) Cell(field string) Cell { return r.Cells[field] }

// Set stores a cell, dropping it when it holds nothing.
func (r *Row) Set(field string, c Cell) {
	if c.IsZero() {
		delete(r.Cells, field)
		return
	}
	if r.Cells == nil {
		r.Cells = map[string]Cell{}
	}
	r.Cells[field] = c
}

// Table is a gas table. Row IDs are the 1-based positions of the rows in the imported sheet.
type Table struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"` // the sheet's headers in their order, unknown ones included
	Rows    []*Row   `json:"rows"`
}

// Row returns the row with the given ID, or nil.
func (t *Table) Row(id int) *Row {
	if id >= 1 && id <= len(t.Rows) && t.Rows[id-1].ID == id { // the usual layout
		return t.Rows[id-1]
	}
	for _, r := range t.Rows {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// RowByName returns the first row whose chemical name matches (ignoring case), or nil.
func (t *Table) RowByName(name string) *Row {
	for _, r := range t.Rows {
		if strings.EqualFold(strings.TrimSpace(r.Name()), strings.TrimSpace(name)) {
			return r
		}
	}
	return nil
}

// CellRef names one cell.
type CellRef struct {
	Row   int
	Field string
}

// EmptyCells lists the cells a fill run may fill, by row and then in schema order: every field
// without a value that is empty or rejected, and every unsupported one (see Cell.Fillable). The chemical name is left out: it is what a fill
// searches by. Rows without a name are skipped for the same reason.
func (t *Table) EmptyCells() []CellRef {
	var out []CellRef
	for _, r := range t.Rows {
		if strings.TrimSpace(r.Name()) == "" {
			continue
		}
		for _, f := range fields[1:] {
			if r.Cells[f.Name].Fillable() {
				out = append(out, CellRef{Row: r.ID, Field: f.Name})
			}
		}
	}
	return out
}

// Counts returns how many cells of the schema fields have each status, for a summary line;
// cells without a status count under StatusEmpty.
func (t *Table) Counts() map[Status]int {
	out := map[Status]int{}
	for _, r := range t.Rows {
		for _, f := range fields {
			out[r.Cells[f.Name].Status]++
		}
	}
	return out
}

// columnFields maps each of the table's columns to the field it holds, "" for an unknown
// column. A field claimed by an earlier column makes a later one unknown, so import and
// export agree on which column is which.
func columnFields(columns []string) []string {
	out := make([]string, len(columns))
	taken := map[string]bool{}
	for i, c := range columns {
		if f, ok := MatchHeader(c); ok && !taken[f.Name] {
			out[i] = f.Name
			taken[f.Name] = true
		}
	}
	return out
}

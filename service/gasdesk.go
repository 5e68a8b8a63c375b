package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"warren/agent/gasfill"
	"warren/gas"
	"warren/service/audit"
)

// Gas is the gas desk: the analyst's decisions on the cells of a gas table and the fills that
// set its empty cells. It owns the desk's rules (which cells may be approved, rejected or
// edited, what approving a row takes, the values a cell may hold, the notes a decision
// leaves, the rows a fill takes when none are named), so that the CLI and the workbench,
// calling the same methods, decide alike and are refused alike.
//
// A decision is made on seen, the cell as the analyst's view showed it: when the stored cell
// is another (someone decided it meanwhile) nothing is written and the error wraps gas.ErrStale
// (a *gas.StaleError says who changed it to what). A refusal of the desk's rules is a
// *GasRefusal.
type Gas struct{ s *Service }

// Gas is the gas desk of this view: its decisions are made in this view's analyst's name.
func (s *Service) Gas() *Gas { return &Gas{s: s} }

// The refusals of the gas desk, each carried by a *GasRefusal.
var (
	// ErrGasNotApprovable: the cell holds no filled value to approve, or a row has none of
	// high confidence.
	ErrGasNotApprovable = errors.New("nothing to approve")
	// ErrGasNotRejectable: the cell is empty, or it is the row's chemical name.
	ErrGasNotRejectable = errors.New("nothing to reject")
	// ErrGasInvalidValue: a value the field does not allow, or no value at all.
	ErrGasInvalidValue = errors.New("not a value of the field")
	// ErrGasNothingToFill: no row of the table has a cell a fill would ask for.
	ErrGasNothingToFill = errors.New("nothing to fill")
)

// GasFix names what the analyst may do instead of a refused decision; each front end words it
// in its own terms (a key, a command).
type GasFix int

// The ways out of a refused decision.
const (
	GasFixNone           GasFix = iota // nothing else to do: the reason says it all
	GasFixType                         // type a value for the cell
	GasFixTypeOrUndo                   // type a value, or undo the rejection
	GasFixCorrect                      // correct the value (the chemical name is never emptied)
	GasFixApproveOne                   // approve the cells one at a time
	GasFixRejectOrCancel               // reject the cell instead, or leave it as it is
	GasFixEditOrReject                 // correct the value, or reject it
)

// GasRefusal is a decision the desk's rules refuse; nothing is written. Why says why in words
// every front end shows as they are; Fix names the way out, which each front end words.
type GasRefusal struct {
	Err error  // the kind: ErrGasNotApprovable, ErrGasNotRejectable, ErrGasInvalidValue, ErrGasNothingToFill
	Why string // what the analyst reads
	Fix GasFix

	cause error // what the refusal comes from, when it is an error of its own
}

func (r *GasRefusal) Error() string { return r.Why }

// Unwrap gives the refusal's kind, and for an invalid value the *gas.ValueError too.
func (r *GasRefusal) Unwrap() []error {
	if r.cause != nil {
		return []error{r.Err, r.cause}
	}
	return []error{r.Err}
}

func refuse(kind error, fix GasFix, format string, args ...any) *GasRefusal {
	return &GasRefusal{Err: kind, Why: fmt.Sprintf(format, args...), Fix: fix}
}

// The reasons logged with the analyst's decisions.
const (
	GasReasonApprove    = "approved by the analyst"
	GasReasonApproveRow = "approved with the row's high-confidence cells"
	GasReasonEdit       = "edited by the analyst"
	GasReasonReject     = "rejected by the analyst"
)

// gasMethodAnalyst is the method of a value the analyst typed.
const gasMethodAnalyst = "analyst"

// GasNameField is the row's key: what a fill searches by and what the desk shows it as.
const GasNameField = "chemical_name"

// GasCanApprove says why a cell of field can't be approved (a *GasRefusal), nil when it can:
// only a value filled from the knowledge base, of any confidence, waits for approval, and only
// one the field allows is approved: an analyst's approval must not vouch for a CAS number with
// a wrong check digit.
func GasCanApprove(field string, c gas.Cell) error {
	switch c.Status {
	case gas.StatusFilled, gas.StatusReview:
		return gasValid(field, c)
	case gas.StatusOriginal:
		return refuse(ErrGasNotApprovable, GasFixNone, "the value comes from the imported sheet: there is nothing to approve")
	case gas.StatusApproved:
		return refuse(ErrGasNotApprovable, GasFixNone, "the value is approved already")
	case gas.StatusEdited:
		return refuse(ErrGasNotApprovable, GasFixNone, "you typed this value: it needs no approval")
	case gas.StatusRejected:
		return refuse(ErrGasNotApprovable, GasFixTypeOrUndo, "the value was rejected")
	case gas.StatusUnsupported:
		// Approving would vouch for a value no passage states: the analyst types it instead.
		why := "no passage states the value"
		if c.Note != "" {
			why += " (" + c.Note + ")"
		}
		return refuse(ErrGasNotApprovable, GasFixEditOrReject, "%s: correct it to keep it", why)
	}
	return refuse(ErrGasNotApprovable, GasFixType, "the cell is empty: nothing to approve")
}

// gasValid refuses a filled value its field does not allow, with the field's own words.
func gasValid(field string, c gas.Cell) error {
	f, ok := gas.FieldByName(field)
	if !ok {
		return refuse(ErrGasNotApprovable, GasFixNone, "unknown field %q", field)
	}
	if _, err := gas.Normalize(f, c.Value, c.Unit); err != nil {
		return &GasRefusal{Err: ErrGasInvalidValue, Why: err.Error(), Fix: GasFixEditOrReject, cause: err}
	}
	return nil
}

// GasCanReject says why a cell of field can't be rejected (a *GasRefusal), nil when it can.
// The chemical name is never emptied: the row would lose what a fill searches by and what the
// desk shows it as.
func GasCanReject(field string, c gas.Cell) error {
	switch {
	case field == GasNameField:
		return refuse(ErrGasNotRejectable, GasFixCorrect, "the chemical name is the row's key")
	case c.Value == "":
		return refuse(ErrGasNotRejectable, GasFixNone, "the cell is empty: nothing to reject")
	}
	return nil
}

// GasRowApprovals lists the fields of a row that "approve the row" approves, in field order:
// the values filled at high confidence (gas.HighConfidence and above) that the field allows.
// Values to review need a look each.
func GasRowApprovals(cells map[string]gas.Cell) []string {
	var out []string
	for _, f := range gas.Fields() {
		c := cells[f.Name]
		if c.Status == gas.StatusFilled && c.Confidence >= gas.HighConfidence && gasValid(f.Name, c) == nil {
			out = append(out, f.Name)
		}
	}
	return out
}

// GasNeedsFill reports whether a fill would ask for any of the row's cells: an empty, rejected
// or to-review cell other than the name.
func GasNeedsFill(r *gas.Row) bool { return gasfill.NeedsFill(r) }

// GasDefaultFillRows are the rows a fill takes when none are named, in table order: those with
// a cell a fill would ask for.
func GasDefaultFillRows(t *gas.Table) []int {
	var rows []int
	for _, r := range t.Rows {
		if GasNeedsFill(r) {
			rows = append(rows, r.ID)
		}
	}
	return rows
}

// GasFillRows are the rows a fill takes when none are named (GasDefaultFillRows); a table
// without any is refused with a *GasRefusal that wraps ErrGasNothingToFill.
func GasFillRows(t *gas.Table) ([]int, error) {
	rows := GasDefaultFillRows(t)
	if len(rows) == 0 {
		return nil, refuse(ErrGasNothingToFill, GasFixNone, "no empty cells to fill")
	}
	return rows, nil
}

// GasValueUnit is a cell's value with its unit, as the desk writes it ("-112 °C").
func GasValueUnit(c gas.Cell) string {
	if c.Unit == "" || c.Value == gas.NotApplicable {
		return c.Value
	}
	return c.Value + " " + c.Unit
}

// wasNote is a decision's note that keeps what the cell held: "<what>: was 100 vol % (source
// suppliers/x.md)".
func wasNote(what string, old gas.Cell) string {
	note := what + ": was " + GasValueUnit(old)
	if old.SourceDoc != "" {
		note += " (source " + old.SourceDoc + ")"
	}
	return note
}

// GasCellChange is one cell a decision stored, as it is stored now.
type GasCellChange struct {
	Row   int      `json:"row"`
	Field string   `json:"field"`
	Cell  gas.Cell `json:"cell"`
}

// GasDecided is what a decision stored: the cells it changed, in the order stored.
type GasDecided struct {
	Table string          `json:"table"`
	Cells []GasCellChange `json:"cells"`
	// Unchanged reports an edit to the value the analyst's own, approved or imported cell
	// holds already: nothing was stored.
	Unchanged bool `json:"unchanged,omitempty"`
}

// decide stores one cell decided on seen, in the analyst's name.
func (g *Gas) decide(ctx context.Context, out *GasDecided, row int, field string, seen, c gas.Cell, reason string) error {
	c.By = g.s.Owner // as the store records it: a view shows it before any reload
	_, err := g.s.GasStore().Decide(ctx, out.Table, row, field, seen, c, reason)
	g.s.record(ctx, audit.ActionGas, out.Table, map[string]any{"decision": reason, "row": row, "field": field,
		"value": c.Value, "was": seen.Value}, err)
	if err != nil {
		return err
	}
	out.Cells = append(out.Cells, GasCellChange{Row: row, Field: field, Cell: c})
	return nil
}

// Approve approves the value filled in a cell, keeping its value and source. Only a filled
// value (StatusFilled or StatusReview) is approved; any other is refused with a *GasRefusal
// that wraps ErrGasNotApprovable.
func (g *Gas) Approve(ctx context.Context, table string, row int, field string, seen gas.Cell) (GasDecided, error) {
	out := GasDecided{Table: table}
	if err := GasCanApprove(field, seen); err != nil {
		return out, err
	}
	if _, err := g.stored(ctx, table, row, field, seen, true); err != nil {
		return out, err
	}
	c := seen
	c.Status, c.UpdatedAt = gas.StatusApproved, time.Now().UTC()
	return out, g.decide(ctx, &out, row, field, seen, c, GasReasonApprove)
}

// ApproveRow approves the row's values filled at high confidence (see GasRowApprovals), each
// its own decision, decided on seen, the row's cells as the analyst's view showed them. A row
// with none is refused with a *GasRefusal that wraps ErrGasNotApprovable. When one cell is
// refused (it changed since), the cells stored before it stay stored and are in the result.
func (g *Gas) ApproveRow(ctx context.Context, table string, row int, seen map[string]gas.Cell) (GasDecided, error) {
	out := GasDecided{Table: table}
	fields := GasRowApprovals(seen)
	if len(fields) == 0 {
		return out, refuse(ErrGasNotApprovable, GasFixApproveOne, "%s has no filled cells of high confidence to approve", seen[GasNameField].Value)
	}
	for _, f := range fields {
		if _, err := g.stored(ctx, table, row, f, seen[f], true); err != nil {
			return out, err
		}
	}
	now := time.Now().UTC()
	for _, f := range fields {
		c := seen[f]
		c.Status, c.UpdatedAt = gas.StatusApproved, now
		if err := g.decide(ctx, &out, row, f, seen[f], c, GasReasonApproveRow); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Reject empties a cell, with a note that keeps what it held, so that a later fill does not
// propose the value again. The chemical name and an empty cell are refused with a *GasRefusal
// that wraps ErrGasNotRejectable.
func (g *Gas) Reject(ctx context.Context, table string, row int, field string, seen gas.Cell) (GasDecided, error) {
	out := GasDecided{Table: table}
	if err := GasCanReject(field, seen); err != nil {
		return out, err
	}
	seen, err := g.stored(ctx, table, row, field, seen, false)
	if err != nil {
		return out, err
	}
	c := gas.Cell{Status: gas.StatusRejected, Note: wasNote("rejected by the analyst", seen), UpdatedAt: time.Now().UTC()}
	return out, g.decide(ctx, &out, row, field, seen, c, GasReasonReject)
}

// Edit sets a cell to the analyst's value, normalised for its field (a quantity may carry its
// unit: "161 K" is stored as °C); a note keeps the value it replaces. A value the field does
// not allow, or none, is refused with a *GasRefusal that wraps ErrGasInvalidValue (and the
// *gas.ValueError that says what the field allows). The value the analyst's own, an approved
// or an imported cell holds already stores nothing: the result says Unchanged.
func (g *Gas) Edit(ctx context.Context, table string, row int, field, value string, seen gas.Cell) (GasDecided, error) {
	out := GasDecided{Table: table}
	f, ok := gas.FieldByName(field)
	if !ok {
		return out, fmt.Errorf("couldn't set a cell of gas table %q: unknown field %q", table, field)
	}
	v, err := gas.Normalize(f, value, "")
	if err != nil {
		return out, &GasRefusal{Err: ErrGasInvalidValue, Why: err.Error(), cause: err}
	}
	if seen, err = g.stored(ctx, table, row, field, seen, false); err != nil {
		return out, err
	}
	if v == "" {
		return out, refuse(ErrGasInvalidValue, GasFixRejectOrCancel, "the value is empty")
	}
	if v == seen.Value && (seen.Status == gas.StatusEdited || seen.Status == gas.StatusOriginal || seen.Status == gas.StatusApproved) {
		out.Unchanged = true
		return out, nil
	}
	c := gas.Cell{Value: v, Unit: f.Unit, Status: gas.StatusEdited, Method: gasMethodAnalyst, UpdatedAt: time.Now().UTC()}
	if seen.Value != "" && seen.Value != v {
		c.Note = wasNote("edited by the analyst", seen)
	}
	return out, g.decide(ctx, &out, row, field, seen, c, GasReasonEdit)
}

// Undo takes back the analyst's own latest decision on a table and says which cell it
// restored; the error wraps gas.ErrNothingToUndo when there is none, and gas.ErrStale when
// that cell changed since.
func (g *Gas) Undo(ctx context.Context, table string) (row int, field string, err error) {
	row, field, err = g.s.GasStore().Undo(ctx, table)
	g.s.record(ctx, audit.ActionGas, table, map[string]any{"decision": "undo", "row": row, "field": field}, err)
	return row, field, err
}

// DefaultFillRows are the rows of the table a fill takes when none are named (see
// GasDefaultFillRows); the table is the one Resolve names.
func (g *Gas) DefaultFillRows(ctx context.Context, table string) ([]int, error) {
	t, err := g.Table(ctx, table)
	if err != nil {
		return nil, err
	}
	return GasDefaultFillRows(t), nil
}

// Tables lists the gas tables by name.
func (g *Gas) Tables(ctx context.Context) ([]string, error) { return g.s.GasStore().Tables(ctx) }

package gas

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The analyst's decisions on cells. Two analysts may work on one table at once: a decision is
// made on the cell as the analyst's view showed it, and the store refuses it, inside the
// transaction that would write it, when the stored cell is no longer that one. Nothing is
// overwritten that the analyst did not see.

// ErrStale is matched (errors.Is) by a *StaleError.
var ErrStale = errors.New("the cell changed since it was shown")

// StaleError refuses a decision made on a cell that changed since the analyst's view showed
// it, or an undo of a decision whose cell changed since.
type StaleError struct {
	Table string
	Row   int
	Field string
	Now   Cell      // the cell as it is stored
	Last  *Decision // the latest logged change of the cell; nil when none is logged
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("row %d · %s changed: %s; reload the table and decide again", e.Row, fieldLabel(e.Field), e.Change())
}

// Is makes errors.Is(err, ErrStale) true.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Change says who changed the cell, to what and when: "alice approved 1.2 ppm at 10:02".
func (e *StaleError) Change() string {
	if e.Last == nil || !sameCell(e.Last.After, e.Now) {
		return "it now holds " + valueText(e.Now) + " (" + statusText(e.Now.Status) + ")"
	}
	return e.Last.Describe()
}

// Describe says who made the decision, what it did and when: "alice approved 1.2 ppm at
// 10:02" (the time is local; a day other than today is written out).
func (d Decision) Describe() string {
	return AnalystName(d.By) + " " + d.What() + " at " + clock(d.At)
}

// What says what the decision did to its cell, without who or when: "approved 1.2 ppm".
func (d Decision) What() string {
	c := d.After
	switch {
	case d.Undoes != 0:
		return "undid a decision (now " + valueText(c) + ")"
	case c.Status == StatusApproved:
		return "approved " + valueText(c)
	case c.Status == StatusEdited:
		return "set " + valueText(c)
	case c.Status == StatusRejected:
		return "rejected " + valueText(d.Before)
	case c.Status == StatusFilled || c.Status == StatusReview:
		return "filled " + valueText(c)
	case c.Status == StatusUnsupported:
		return "kept " + valueText(c) + ", which no passage states, for review"
	case c.Value == "":
		return "emptied the cell"
	}
	return "set " + valueText(c)
}

// AnalystName is how a recorded analyst is named in a sentence: rows from before warren
// recorded names have none.
func AnalystName(by string) string {
	if by == "" {
		return "an unknown analyst"
	}
	return by
}

func clock(t time.Time) string {
	t = t.Local()
	if now := time.Now(); t.YearDay() != now.YearDay() || t.Year() != now.Year() {
		return t.Format("2006-01-02 15:04")
	}
	return t.Format("15:04")
}

func valueText(c Cell) string {
	switch {
	case c.Value == "":
		return "nothing"
	case c.Unit == "" || c.Value == NotApplicable:
		return c.Value
	}
	return c.Value + " " + c.Unit
}

func statusText(s Status) string {
	if s == StatusEmpty {
		return "empty"
	}
	return string(s)
}

func fieldLabel(field string) string {
	if f, ok := FieldByName(field); ok {
		return f.Label
	}
	return field
}

// SetCell changes one cell, whatever it holds now, and logs the change with its reason, in one
// transaction. The value should already be normalised (see Normalize); a zero cell empties the
// cell. Setting a cell to what it already is changes and logs nothing. A decision taken on a
// cell an analyst was shown goes through Decide, which refuses a stale one.
func (s *Store) SetCell(ctx context.Context, table string, row int, field string, c Cell, reason string) error {
	_, err := s.set(ctx, table, row, field, nil, c, reason)
	return err
}

// Decide stores the store's analyst's decision on one cell: c replaces the cell, in their name,
// when the stored cell is still seen, the cell as the analyst's view showed it. Otherwise the
// decision is refused with a *StaleError (errors.Is(err, ErrStale)) that says who changed the
// cell to what, and nothing is written. It returns the decision logged; deciding what the cell
// already is logs nothing and returns a zero Decision.
func (s *Store) Decide(ctx context.Context, table string, row int, field string, seen, c Cell, reason string) (Decision, error) {
	if !c.IsZero() {
		c.By = s.Analyst
	}
	return s.set(ctx, table, row, field, &seen, c, reason)
}

func (s *Store) set(ctx context.Context, table string, row int, field string, seen *Cell, c Cell, reason string) (Decision, error) {
	if _, ok := FieldByName(field); !ok {
		return Decision{}, fmt.Errorf("couldn't set a cell of gas table %q: unknown field %q", table, field)
	}
	if !c.Status.Valid() {
		return Decision{}, fmt.Errorf("couldn't set %s of row %d: unknown status %q", field, row, c.Status)
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Decision{}, fmt.Errorf("couldn't set %s of row %d: %w", field, row, err)
	}
	defer tx.Rollback()
	before, err := currentCell(ctx, tx, table, row, field)
	if err != nil {
		return Decision{}, err
	}
	if seen != nil && !sameCell(before, *seen) {
		return Decision{}, staleError(ctx, tx, table, row, field, before)
	}
	if sameCell(before, c) {
		return Decision{}, nil
	}
	if err := writeCell(ctx, tx, table, row, field, c); err != nil {
		return Decision{}, err
	}
	d, err := s.logDecision(ctx, tx, Decision{Table: table, Row: row, Field: field, Before: before, After: c, Reason: reason, At: time.Now().UTC()})
	if err != nil {
		return Decision{}, err
	}
	if err := tx.Commit(); err != nil {
		return Decision{}, fmt.Errorf("couldn't set %s of row %d: %w", field, row, err)
	}
	s.decided([]Decision{d})
	return d, nil
}

// staleError describes the stored cell with its latest logged change.
func staleError(ctx context.Context, tx *sql.Tx, table string, row int, field string, now Cell) error {
	e := &StaleError{Table: table, Row: row, Field: field, Now: now}
	ds, err := decisions(ctx, tx, table, `AND row_id = ? AND field = ? ORDER BY id DESC LIMIT 1`, row, field)
	if err != nil {
		return fmt.Errorf("couldn't read the changes of %s in row %d: %w", field, row, err)
	}
	if len(ds) == 1 {
		e.Last = &ds[0]
	}
	return e
}

// Undo reverts the latest decision of the store's analyst on the table that hasn't been undone
// yet (undos themselves aren't undone, so repeated calls walk back through their history), and
// logs the revert as a decision that names the one it undoes. Decisions logged without a name
// (before names were recorded) count as anyone's. It returns the cell it restored. When that
// cell changed since the decision (another analyst decided it, a fill wrote it) the undo is
// refused with a *StaleError and nothing is written; a decision on a row that a later SaveTable
// removed can't be undone either; the error says so.
func (s *Store) Undo(ctx context.Context, table string) (row int, field string, err error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, "", fmt.Errorf("couldn't undo: %w", err)
	}
	defer tx.Rollback()
	ds, err := decisions(ctx, tx, table, `AND undoes IS NULL AND analyst IN (?, '')
		AND NOT EXISTS (SELECT 1 FROM gas_decisions u WHERE u.undoes = d.id)
		ORDER BY id DESC LIMIT 1`, s.Analyst)
	if err != nil {
		return 0, "", fmt.Errorf("couldn't undo in gas table %q: %w", table, err)
	}
	if len(ds) == 0 {
		return 0, "", fmt.Errorf("couldn't undo in gas table %q: %w", table, ErrNothingToUndo)
	}
	last := ds[0]
	row, field = last.Row, last.Field
	current, err := currentCell(ctx, tx, table, row, field)
	if err != nil {
		return 0, "", fmt.Errorf("couldn't undo decision %d: %w", last.ID, err)
	}
	if !sameCell(current, last.After) {
		return 0, "", fmt.Errorf("couldn't undo decision %d: %w", last.ID, staleError(ctx, tx, table, row, field, current))
	}
	if err := writeCell(ctx, tx, table, row, field, last.Before); err != nil {
		return 0, "", err
	}
	d, err := s.logDecision(ctx, tx, Decision{Table: table, Row: row, Field: field, Before: current, After: last.Before,
		Reason: fmt.Sprintf("undo of decision %d (%s)", last.ID, last.Reason), At: time.Now().UTC(), Undoes: last.ID})
	if err != nil {
		return 0, "", err
	}
	if err := tx.Commit(); err != nil {
		return 0, "", fmt.Errorf("couldn't undo decision %d: %w", last.ID, err)
	}
	s.decided([]Decision{d})
	return row, field, nil
}

// Decisions returns the logged decisions of a table, oldest first; row 0 means every row and
// field "" every field.
func (s *Store) Decisions(ctx context.Context, table string, row int, field string) ([]Decision, error) {
	ds, err := decisions(ctx, s.DB, table, `AND (? = 0 OR row_id = ?) AND (? = '' OR field = ?) ORDER BY id`, row, row, field, field)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the decisions of gas table %q: %w", table, err)
	}
	return ds, nil
}

// decisions reads the decisions of table that match the rest of the query (aliased d).
func decisions(ctx context.Context, q querier, table, where string, args ...any) ([]Decision, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, row_id, field, before, after, reason, at, COALESCE(undoes, 0), analyst
		FROM gas_decisions d WHERE table_name = ? `+where, append([]any{table}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		d := Decision{Table: table}
		var before, after, at string
		if err := rows.Scan(&d.ID, &d.Row, &d.Field, &before, &after, &d.Reason, &at, &d.Undoes, &d.By); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(before), &d.Before); err != nil {
			return nil, fmt.Errorf("couldn't read decision %d: %w", d.ID, err)
		}
		if err := json.Unmarshal([]byte(after), &d.After); err != nil {
			return nil, fmt.Errorf("couldn't read decision %d: %w", d.ID, err)
		}
		if d.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

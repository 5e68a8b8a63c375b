package gas

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"warren/kb"
)

// The gas tables live in warren.db. Cells are one row each, so a single approval is a single
// small write; every change of a cell is also appended to gas_decisions with the cell before
// and after, which is what Undo and the audit trail read. SQL names use table_name and row_id
// because TABLE and ROW are SQL keywords.

var gasTablesMigration = kb.Migration{Version: 20, Name: "gas tables", SQL: `
CREATE TABLE gas_tables (
	name        TEXT PRIMARY KEY,
	columns     TEXT NOT NULL,
	imported_at TEXT NOT NULL
);
CREATE TABLE gas_rows (
	table_name TEXT NOT NULL REFERENCES gas_tables(name) ON DELETE CASCADE,
	id         INTEGER NOT NULL,
	seq        INTEGER NOT NULL,
	extra      TEXT NOT NULL,
	PRIMARY KEY (table_name, id)
);
CREATE TABLE gas_cells (
	table_name     TEXT NOT NULL,
	row_id         INTEGER NOT NULL,
	field          TEXT NOT NULL,
	value          TEXT NOT NULL,
	unit           TEXT NOT NULL,
	status         TEXT NOT NULL,
	confidence     REAL NOT NULL,
	method         TEXT NOT NULL,
	source_doc     TEXT NOT NULL,
	source_section TEXT NOT NULL,
	source_chunk   TEXT NOT NULL,
	excerpt        TEXT NOT NULL,
	note           TEXT NOT NULL,
	updated_at     TEXT NOT NULL,
	PRIMARY KEY (table_name, row_id, field),
	FOREIGN KEY (table_name, row_id) REFERENCES gas_rows(table_name, id) ON DELETE CASCADE
);
CREATE INDEX gas_cells_status ON gas_cells(table_name, status);`}

var gasDecisionsMigration = kb.Migration{Version: 21, Name: "gas decisions", SQL: `
CREATE TABLE gas_decisions (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	table_name TEXT NOT NULL,
	row_id     INTEGER NOT NULL,
	field      TEXT NOT NULL,
	before     TEXT NOT NULL,
	after      TEXT NOT NULL,
	reason     TEXT NOT NULL,
	at         TEXT NOT NULL,
	undoes     INTEGER REFERENCES gas_decisions(id)
);
CREATE INDEX gas_decisions_cell ON gas_decisions(table_name, row_id, field);`}

// gasAnalystMigration names who decided: the analyst of each logged decision, and of each cell
// the analyst who last approved, edited or rejected it. Older rows keep "" (unknown).
var gasAnalystMigration = kb.Migration{Version: 23, Name: "gas decisions name the analyst", SQL: `
ALTER TABLE gas_decisions ADD COLUMN analyst TEXT NOT NULL DEFAULT '';
ALTER TABLE gas_cells ADD COLUMN analyst TEXT NOT NULL DEFAULT '';`}

// gasSourcePageMigration keeps the page (or slide) of a cell's source passage and whether
// OCR read it; older cells keep none.
var gasSourcePageMigration = kb.Migration{Version: 24, Name: "gas cells name their source's page", SQL: `
ALTER TABLE gas_cells ADD COLUMN source_page INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gas_cells ADD COLUMN source_page_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE gas_cells ADD COLUMN source_ocr INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gas_cells ADD COLUMN source_ocr_confidence REAL NOT NULL DEFAULT 0;`}

// Migrations are the gas tables' schema steps in warren.db (versions 20 to 29).
var Migrations = []kb.Migration{gasTablesMigration, gasDecisionsMigration, gasFillsMigration, gasAnalystMigration, gasSourcePageMigration}

// ErrNoTable is returned for a table name the store doesn't hold.
var ErrNoTable = errors.New("no such gas table")

// ErrNothingToUndo is returned by Undo when every decision has been undone.
var ErrNothingToUndo = errors.New("nothing to undo")

// Store keeps gas tables in the workspace database (see kb.OpenDB).
type Store struct {
	DB *sql.DB
	// Analyst names who the store's writes are made for: every decision it logs records them,
	// and so does every cell they decide (see Decide). "" records no name.
	Analyst string
	// Decided, when set, is called after each commit that logged decisions, with them in
	// order; it must not block (the service hands them to its change feed).
	Decided func([]Decision)
}

// Decision is one change of a cell, as the append-only log records it.
type Decision struct {
	ID     int64     `json:"id"`
	Table  string    `json:"table"`
	Row    int       `json:"row"`
	Field  string    `json:"field"`
	Before Cell      `json:"before"`
	After  Cell      `json:"after"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	Undoes int64     `json:"undoes,omitempty"` // the decision this one reverted, for undos
	By     string    `json:"by,omitempty"`     // the analyst who made it; "" when unknown (older rows)
}

type cellKey struct {
	row   int
	field string
}

// SaveTable stores the table in one transaction, replacing a stored table of the same name.
// When it replaces one, every cell that differs from the stored version is logged as a
// decision (reason "save"), so that a fill run saved this way can be audited and undone; the
// first save of a table is the baseline and logs nothing.
func (s *Store) SaveTable(ctx context.Context, t *Table) error {
	if t.Name == "" {
		return errors.New("couldn't save a gas table without a name")
	}
	cols, err := json.Marshal(t.Columns)
	if err != nil {
		return err
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
	}
	defer tx.Rollback()
	var importedAt string
	existed := true
	if err := tx.QueryRowContext(ctx, `SELECT imported_at FROM gas_tables WHERE name = ?`, t.Name).Scan(&importedAt); errors.Is(err, sql.ErrNoRows) {
		existed = false
		importedAt = time.Now().UTC().Format(time.RFC3339Nano)
	} else if err != nil {
		return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
	}
	var old map[cellKey]Cell
	if existed {
		if old, err = loadCells(ctx, tx, t.Name); err != nil {
			return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
		}
	}
	for _, q := range []string{`DELETE FROM gas_cells WHERE table_name = ?`, `DELETE FROM gas_rows WHERE table_name = ?`, `DELETE FROM gas_tables WHERE name = ?`} {
		if _, err := tx.ExecContext(ctx, q, t.Name); err != nil {
			return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO gas_tables (name, columns, imported_at) VALUES (?, ?, ?)`, t.Name, string(cols), importedAt); err != nil {
		return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
	}
	insRow, err := tx.PrepareContext(ctx, `INSERT INTO gas_rows (table_name, id, seq, extra) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insRow.Close()
	insCell, err := tx.PrepareContext(ctx, insertCellSQL)
	if err != nil {
		return err
	}
	defer insCell.Close()
	now := time.Now().UTC()
	var logged []Decision
	seen := map[int]bool{}
	for seq, r := range t.Rows {
		if seen[r.ID] {
			return fmt.Errorf("couldn't save gas table %q: row ID %d occurs twice", t.Name, r.ID)
		}
		seen[r.ID] = true
		extra, err := json.Marshal(r.Extra)
		if err != nil {
			return err
		}
		if r.Extra == nil {
			extra = []byte("{}")
		}
		if _, err := insRow.ExecContext(ctx, t.Name, r.ID, seq, string(extra)); err != nil {
			return fmt.Errorf("couldn't save row %d of gas table %q: %w", r.ID, t.Name, err)
		}
		for field, c := range r.Cells {
			if c.IsZero() {
				continue
			}
			if _, err := insCell.ExecContext(ctx, cellArgs(t.Name, r.ID, field, c)...); err != nil {
				return fmt.Errorf("couldn't save cell %s of row %d of gas table %q: %w", field, r.ID, t.Name, err)
			}
			if existed {
				k := cellKey{r.ID, field}
				if before := old[k]; !sameCell(before, c) {
					d, err := s.logDecision(ctx, tx, Decision{Table: t.Name, Row: r.ID, Field: field, Before: before, After: c, Reason: "save", At: now})
					if err != nil {
						return err
					}
					logged = append(logged, d)
				}
				delete(old, k)
			}
		}
	}
	for k, before := range old { // cells that the new version no longer has
		d, err := s.logDecision(ctx, tx, Decision{Table: t.Name, Row: k.row, Field: k.field, Before: before, Reason: "save", At: now})
		if err != nil {
			return err
		}
		logged = append(logged, d)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("couldn't save gas table %q: %w", t.Name, err)
	}
	s.decided(logged)
	return nil
}

// decided hands committed decisions to the Decided hook.
func (s *Store) decided(ds []Decision) {
	if s.Decided != nil && len(ds) > 0 {
		s.Decided(ds)
	}
}

const insertCellSQL = `INSERT INTO gas_cells (table_name, row_id, field, value, unit, status, confidence, method,
	source_doc, source_section, source_chunk, excerpt, note, updated_at, analyst,
	source_page, source_page_kind, source_ocr, source_ocr_confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const cellColumns = `row_id, field, value, unit, status, confidence, method, source_doc, source_section, source_chunk, excerpt, note, updated_at, analyst,
	source_page, source_page_kind, source_ocr, source_ocr_confidence`

func cellArgs(table string, row int, field string, c Cell) []any {
	p := c.SourcePage
	return []any{table, row, field, c.Value, c.Unit, string(c.Status), c.Confidence, c.Method,
		c.SourceDoc, c.SourceSection, c.SourceChunk, c.Excerpt, c.Note, formatTime(c.UpdatedAt), c.By,
		p.Page, p.Kind, p.OCR, p.OCRConfidence}
}

type scanner interface{ Scan(...any) error }

func scanCell(sc scanner) (cellKey, Cell, error) {
	var (
		k              cellKey
		c              Cell
		status, update string
	)
	p := &c.SourcePage
	err := sc.Scan(&k.row, &k.field, &c.Value, &c.Unit, &status, &c.Confidence, &c.Method,
		&c.SourceDoc, &c.SourceSection, &c.SourceChunk, &c.Excerpt, &c.Note, &update, &c.By,
		&p.Page, &p.Kind, &p.OCR, &p.OCRConfidence)
	if err != nil {
		return k, c, err
	}
	c.Status = Status(status)
	c.UpdatedAt, err = parseTime(update)
	return k, c, err
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func loadCells(ctx context.Context, q querier, table string) (map[cellKey]Cell, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+cellColumns+` FROM gas_cells WHERE table_name = ?`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[cellKey]Cell{}
	for rows.Next() {
		k, c, err := scanCell(rows)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, rows.Err()
}

// LoadTable reads a stored table; the error wraps ErrNoTable when there is none by that name.
func (s *Store) LoadTable(ctx context.Context, name string) (*Table, error) {
	var cols string
	if err := s.DB.QueryRowContext(ctx, `SELECT columns FROM gas_tables WHERE name = ?`, name).Scan(&cols); errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("couldn't load gas table %q: %w", name, ErrNoTable)
	} else if err != nil {
		return nil, fmt.Errorf("couldn't load gas table %q: %w", name, err)
	}
	t := &Table{Name: name}
	if err := json.Unmarshal([]byte(cols), &t.Columns); err != nil {
		return nil, fmt.Errorf("couldn't read the columns of gas table %q: %w", name, err)
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT id, extra FROM gas_rows WHERE table_name = ? ORDER BY seq`, name)
	if err != nil {
		return nil, fmt.Errorf("couldn't load gas table %q: %w", name, err)
	}
	byID := map[int]*Row{}
	for rows.Next() {
		var (
			r     = &Row{Cells: map[string]Cell{}}
			extra string
		)
		if err := rows.Scan(&r.ID, &extra); err != nil {
			rows.Close()
			return nil, err
		}
		if err := json.Unmarshal([]byte(extra), &r.Extra); err != nil {
			rows.Close()
			return nil, fmt.Errorf("couldn't read row %d of gas table %q: %w", r.ID, name, err)
		}
		if len(r.Extra) == 0 {
			r.Extra = nil
		}
		t.Rows = append(t.Rows, r)
		byID[r.ID] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cells, err := loadCells(ctx, s.DB, name)
	if err != nil {
		return nil, fmt.Errorf("couldn't load the cells of gas table %q: %w", name, err)
	}
	for k, c := range cells {
		if r := byID[k.row]; r != nil {
			r.Cells[k.field] = c
		}
	}
	return t, nil
}

// Tables lists the stored tables by name.
func (s *Store) Tables(ctx context.Context) ([]string, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT name FROM gas_tables ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("couldn't list gas tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// currentCell reads a cell, checking that its row exists.
func currentCell(ctx context.Context, tx *sql.Tx, table string, row int, field string) (Cell, error) {
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM gas_rows WHERE table_name = ? AND id = ?`, table, row).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return Cell{}, fmt.Errorf("gas table %q has no row %d", table, row)
	} else if err != nil {
		return Cell{}, err
	}
	_, c, err := scanCell(tx.QueryRowContext(ctx, `SELECT `+cellColumns+` FROM gas_cells WHERE table_name = ? AND row_id = ? AND field = ?`, table, row, field))
	if errors.Is(err, sql.ErrNoRows) {
		return Cell{}, nil
	}
	return c, err
}

func writeCell(ctx context.Context, tx *sql.Tx, table string, row int, field string, c Cell) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM gas_cells WHERE table_name = ? AND row_id = ? AND field = ?`, table, row, field); err != nil {
		return fmt.Errorf("couldn't write %s of row %d: %w", field, row, err)
	}
	if c.IsZero() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, insertCellSQL, cellArgs(table, row, field, c)...); err != nil {
		return fmt.Errorf("couldn't write %s of row %d: %w", field, row, err)
	}
	return nil
}

// logDecision appends d to the log in tx, in the name of the store's analyst, and returns it
// as logged.
func (s *Store) logDecision(ctx context.Context, tx *sql.Tx, d Decision) (Decision, error) {
	b, err := json.Marshal(d.Before)
	if err != nil {
		return d, err
	}
	a, err := json.Marshal(d.After)
	if err != nil {
		return d, err
	}
	var u any
	if d.Undoes != 0 {
		u = d.Undoes
	}
	d.By = s.Analyst
	res, err := tx.ExecContext(ctx, `INSERT INTO gas_decisions (table_name, row_id, field, before, after, reason, at, undoes, analyst)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.Table, d.Row, d.Field, string(b), string(a), d.Reason, formatTime(d.At), u, d.By)
	if err != nil {
		return d, fmt.Errorf("couldn't log the change of %s in row %d: %w", d.Field, d.Row, err)
	}
	d.ID, err = res.LastInsertId()
	return d, err
}

// sameCell compares cells, times by instant.
func sameCell(a, b Cell) bool {
	ta, tb := a.UpdatedAt, b.UpdatedAt
	a.UpdatedAt, b.UpdatedAt = time.Time{}, time.Time{}
	return a == b && ta.Equal(tb)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("couldn't read the time %q: %w", s, err)
	}
	return t, nil
}

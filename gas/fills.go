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

// A fill run is recorded so that an interrupted one can go on where it stopped: each finished
// row is saved with its cells in one transaction, and marked done in the same one.

var gasFillsMigration = kb.Migration{Version: 22, Name: "gas fill runs", SQL: `
CREATE TABLE gas_fills (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	table_name TEXT NOT NULL,
	rows       TEXT NOT NULL,
	tiers      TEXT NOT NULL,
	started_at TEXT NOT NULL,
	finished_at TEXT
);
CREATE TABLE gas_fill_rows (
	fill   INTEGER NOT NULL REFERENCES gas_fills(id) ON DELETE CASCADE,
	row_id INTEGER NOT NULL,
	PRIMARY KEY (fill, row_id)
);`}

// Fill is a recorded fill run.
type Fill struct {
	ID       int64     `json:"id"`
	Table    string    `json:"table"`
	Rows     []int     `json:"rows"` // the rows asked for; empty means all
	Tiers    []string  `json:"tiers"`
	Started  time.Time `json:"started_at"`
	Finished bool      `json:"finished"`
	Done     []int     `json:"done"` // rows finished and saved
}

// FillChange is one cell a fill sets, with the cell it saw before.
type FillChange struct {
	Field  string
	Before Cell
	After  Cell
	Reason string
}

// StartFill records a new fill run.
func (s *Store) StartFill(ctx context.Context, table string, rows []int, tiers []string) (int64, error) {
	r, _ := json.Marshal(rows)
	t, _ := json.Marshal(tiers)
	res, err := s.DB.ExecContext(ctx, `INSERT INTO gas_fills (table_name, rows, tiers, started_at) VALUES (?, ?, ?, ?)`,
		table, string(r), string(t), formatTime(time.Now().UTC()))
	if err != nil {
		return 0, fmt.Errorf("couldn't record the fill of gas table %q: %w", table, err)
	}
	return res.LastInsertId()
}

// SaveFillRow writes one finished row of a fill and marks it done, in one transaction. A cell
// the analyst changed while the fill was working is left as the analyst set it: a change is
// written only when the stored cell is still the one the fill saw. It returns the changes
// written.
func (s *Store) SaveFillRow(ctx context.Context, fill int64, table string, row int, changes []FillChange) ([]FillChange, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("couldn't save row %d: %w", row, err)
	}
	defer tx.Rollback()
	var (
		written []FillChange
		logged  []Decision
	)
	for _, c := range changes {
		current, err := currentCell(ctx, tx, table, row, c.Field)
		if err != nil {
			return nil, err
		}
		if !sameCell(current, c.Before) {
			continue
		}
		if err := writeCell(ctx, tx, table, row, c.Field, c.After); err != nil {
			return nil, err
		}
		d, err := s.logDecision(ctx, tx, Decision{Table: table, Row: row, Field: c.Field, Before: current, After: c.After, Reason: c.Reason, At: time.Now().UTC()})
		if err != nil {
			return nil, err
		}
		written, logged = append(written, c), append(logged, d)
	}
	if fill != 0 {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO gas_fill_rows (fill, row_id) VALUES (?, ?)`, fill, row); err != nil {
			return nil, fmt.Errorf("couldn't mark row %d done: %w", row, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("couldn't save row %d: %w", row, err)
	}
	s.decided(logged)
	return written, nil
}

// FinishFill marks a fill run complete.
func (s *Store) FinishFill(ctx context.Context, fill int64) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE gas_fills SET finished_at = ? WHERE id = ?`, formatTime(time.Now().UTC()), fill)
	return err
}

// LastFill returns the latest fill run of a table; ok is false when there was none.
func (s *Store) LastFill(ctx context.Context, table string) (f Fill, ok bool, err error) {
	var rows, tiers, started string
	var finished sql.NullString
	err = s.DB.QueryRowContext(ctx, `SELECT id, rows, tiers, started_at, finished_at FROM gas_fills
		WHERE table_name = ? ORDER BY id DESC LIMIT 1`, table).Scan(&f.ID, &rows, &tiers, &started, &finished)
	if errors.Is(err, sql.ErrNoRows) {
		return f, false, nil
	} else if err != nil {
		return f, false, fmt.Errorf("couldn't read the fills of gas table %q: %w", table, err)
	}
	f.Table, f.Finished = table, finished.Valid
	if err := json.Unmarshal([]byte(rows), &f.Rows); err != nil {
		return f, false, fmt.Errorf("couldn't read fill %d: %w", f.ID, err)
	}
	if err := json.Unmarshal([]byte(tiers), &f.Tiers); err != nil {
		return f, false, fmt.Errorf("couldn't read fill %d: %w", f.ID, err)
	}
	if f.Started, err = parseTime(started); err != nil {
		return f, false, err
	}
	done, err := s.DB.QueryContext(ctx, `SELECT row_id FROM gas_fill_rows WHERE fill = ? ORDER BY row_id`, f.ID)
	if err != nil {
		return f, false, err
	}
	defer done.Close()
	for done.Next() {
		var id int
		if err := done.Scan(&id); err != nil {
			return f, false, err
		}
		f.Done = append(f.Done, id)
	}
	return f, true, done.Err()
}

// ClearHistory removes a table's decision log and fill runs, in one transaction: a table
// imported again under the same name starts a new history, so that a rejection or an undo never
// applies to whatever gas now has that row number.
func (s *Store) ClearHistory(ctx context.Context, table string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("couldn't clear the history of gas table %q: %w", table, err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM gas_fill_rows WHERE fill IN (SELECT id FROM gas_fills WHERE table_name = ?)`,
		`DELETE FROM gas_fills WHERE table_name = ?`,
		`DELETE FROM gas_decisions WHERE table_name = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, table); err != nil {
			return fmt.Errorf("couldn't clear the history of gas table %q: %w", table, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("couldn't clear the history of gas table %q: %w", table, err)
	}
	return nil
}

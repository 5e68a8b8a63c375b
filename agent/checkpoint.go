package agent

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"warren/kb"
)

var checkpointsMigration = kb.Migration{Version: 10, Name: "runs and checkpoints", SQL: `
CREATE TABLE runs (
	id         TEXT PRIMARY KEY,
	graph      TEXT NOT NULL,
	title      TEXT NOT NULL,
	status     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE TABLE checkpoints (
	run       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	step      INTEGER NOT NULL,
	parent    INTEGER NOT NULL,
	node      TEXT NOT NULL,
	next      TEXT NOT NULL,
	status    TEXT NOT NULL,
	state     TEXT NOT NULL,
	interrupt TEXT,
	error     TEXT NOT NULL DEFAULT '',
	saved_at  TEXT NOT NULL,
	PRIMARY KEY (run, step)
);
`}

// Migrations are the graph runtime's schema steps in warren.db (versions 10 to 19): runs and
// checkpoints, the call ledger and journal, and the host of each call.
var Migrations = []kb.Migration{checkpointsMigration, ledgerMigration, ledgerHostMigration}

// Run statuses.
const (
	StatusRunning     = "running"     // a node is in flight, or the process died during one
	StatusInterrupted = "interrupted" // waiting for the analyst
	StatusDone        = "done"
	StatusFailed      = "failed"   // a node returned an error; resumable from before it
	StatusCanceled    = "canceled" // cancelled by the analyst; resumable from before the node
)

// Checkpoint is the state of a run after one step.
type Checkpoint struct {
	Run       string          `json:"run"`
	Step      int             `json:"step"`
	Parent    int             `json:"parent"` // the step this one continued from (0 for the first)
	Node      string          `json:"node"`   // the node that just ran (or failed)
	Next      string          `json:"next"`   // where the run goes on from
	Status    string          `json:"status"`
	State     json.RawMessage `json:"state"`
	Interrupt *Interrupt      `json:"interrupt,omitempty"`
	Error     string          `json:"error,omitempty"`
	SavedAt   time.Time       `json:"saved_at"`
}

// RunInfo describes a run.
type RunInfo struct {
	ID        string    `json:"id"`
	Graph     string    `json:"graph"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	Steps     int       `json:"steps"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ErrNoRun means no run has that ID.
var ErrNoRun = errors.New("no such run")

// Store keeps runs and their checkpoints in warren.db. Each checkpoint is one transaction.
type Store struct{ DB *sql.DB }

// CreateRun records a new run. A run recorded before without a checkpoint (its process was
// killed before its first step ended) is started afresh under its id: it has nothing to
// resume from, and refusing it would leave it stuck forever.
func (s *Store) CreateRun(ctx context.Context, id, graph, title string) error {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	res, err := s.DB.ExecContext(ctx, `INSERT INTO runs (id, graph, title, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET graph = excluded.graph, title = excluded.title, status = excluded.status, updated_at = excluded.updated_at
WHERE NOT EXISTS (SELECT 1 FROM checkpoints WHERE run = excluded.id)`,
		id, graph, title, StatusRunning, now, now)
	if err != nil {
		return fmt.Errorf("couldn't record run %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("couldn't record run %s: a run with that id has checkpoints already; resume it instead", id)
	}
	return nil
}

// Save writes a checkpoint and the run's status together.
func (s *Store) Save(ctx context.Context, cp Checkpoint) error {
	var intr any
	if cp.Interrupt != nil {
		data, _ := json.Marshal(cp.Interrupt)
		intr = string(data)
	}
	now := time.Now().UTC()
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("couldn't checkpoint run %s: %w", cp.Run, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (run, step, parent, node, next, status, state, interrupt, error, saved_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, cp.Run, cp.Step, cp.Step-1, cp.Node, cp.Next, cp.Status, string(cp.State), intr, cp.Error,
		now.Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("couldn't checkpoint run %s: %w", cp.Run, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, updated_at = ? WHERE id = ?`, cp.Status,
		now.Format(time.RFC3339Nano), cp.Run); err != nil {
		return err
	}
	return tx.Commit()
}

// Latest returns a run's last checkpoint.
func (s *Store) Latest(ctx context.Context, run string) (Checkpoint, error) {
	var cp Checkpoint
	var intr sql.NullString
	var saved, state string
	err := s.DB.QueryRowContext(ctx, `SELECT run, step, parent, node, next, status, state, interrupt, error, saved_at FROM checkpoints
WHERE run = ? ORDER BY step DESC LIMIT 1`, run).Scan(&cp.Run, &cp.Step, &cp.Parent, &cp.Node, &cp.Next, &cp.Status, &state, &intr, &cp.Error, &saved)
	cp.State = json.RawMessage(state)
	if errors.Is(err, sql.ErrNoRows) {
		return cp, fmt.Errorf("%w %q: `warren sessions list` shows the runs there are", ErrNoRun, run)
	}
	if err != nil {
		return cp, fmt.Errorf("couldn't read run %s: %w", run, err)
	}
	if intr.Valid {
		cp.Interrupt = &Interrupt{}
		json.Unmarshal([]byte(intr.String), cp.Interrupt)
	}
	cp.SavedAt, _ = time.Parse(time.RFC3339Nano, saved)
	return cp, nil
}

// Runs lists runs, newest first.
func (s *Store) Runs(ctx context.Context) ([]RunInfo, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT r.id, r.graph, r.title, r.status, r.created_at, r.updated_at,
(SELECT count(*) FROM checkpoints c WHERE c.run = r.id) FROM runs r ORDER BY r.created_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("couldn't list runs: %w", err)
	}
	defer rows.Close()
	var out []RunInfo
	for rows.Next() {
		var r RunInfo
		var created, updated string
		if err := rows.Scan(&r.ID, &r.Graph, &r.Title, &r.Status, &created, &updated, &r.Steps); err != nil {
			return nil, err
		}
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		r.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Checkpoints lists a run's checkpoints in order, without their states.
func (s *Store) Checkpoints(ctx context.Context, run string) ([]Checkpoint, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT step, parent, node, next, status, error, saved_at FROM checkpoints WHERE run = ? ORDER BY step`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		cp := Checkpoint{Run: run}
		var saved string
		if err := rows.Scan(&cp.Step, &cp.Parent, &cp.Node, &cp.Next, &cp.Status, &cp.Error, &saved); err != nil {
			return nil, err
		}
		cp.SavedAt, _ = time.Parse(time.RFC3339Nano, saved)
		out = append(out, cp)
	}
	return out, rows.Err()
}

// DeleteRun removes a run with its checkpoints, ledger and call journal.
func (s *Store) DeleteRun(ctx context.Context, run string) (bool, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM checkpoints WHERE run = ?`, `DELETE FROM ledger WHERE run = ?`, `DELETE FROM call_journal WHERE run = ?`} {
		if _, err := tx.ExecContext(ctx, q, run); err != nil {
			return false, err
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, run)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, tx.Commit()
}

package agent

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"warren/kb"
	"warren/llm"
)

var ledgerMigration = kb.Migration{Version: 11, Name: "ledger and call journal", SQL: `
CREATE TABLE ledger (
	id                INTEGER PRIMARY KEY,
	run               TEXT NOT NULL,
	time              TEXT NOT NULL,
	node              TEXT NOT NULL,
	role              TEXT NOT NULL,
	model             TEXT NOT NULL,
	kind              TEXT NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	duration_ms       INTEGER NOT NULL,
	attempts          INTEGER NOT NULL,
	outcome           TEXT NOT NULL,
	error             TEXT NOT NULL,
	key               TEXT NOT NULL
);
CREATE INDEX ledger_run ON ledger(run, id);
CREATE TABLE call_journal (
	run    TEXT NOT NULL,
	key    TEXT NOT NULL,
	answer TEXT NOT NULL,
	PRIMARY KEY (run, key)
);
`}

// ledgerHostMigration records which host answered each call, since a role may have several.
var ledgerHostMigration = kb.Migration{Version: 12, Name: "ledger names the host", SQL: `
ALTER TABLE ledger ADD COLUMN host TEXT NOT NULL DEFAULT '';
`}

// RecordLedger stores a ledger entry.
func (s *Store) RecordLedger(ctx context.Context, e llm.LedgerEntry) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO ledger (run, time, node, role, model, host, kind, prompt_tokens, completion_tokens,
duration_ms, attempts, outcome, error, key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Run, e.Time.UTC().Format(time.RFC3339Nano), e.Node, e.Role, e.Model, e.Host, e.Kind, e.PromptTokens, e.CompletionTokens,
		e.Duration.Milliseconds(), e.Attempts, e.Outcome, e.Error, e.Key)
	if err != nil {
		return fmt.Errorf("couldn't record a ledger entry: %w", err)
	}
	return nil
}

// Ledger returns a run's ledger in order.
func (s *Store) Ledger(ctx context.Context, run string) ([]llm.LedgerEntry, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT time, node, role, model, host, kind, prompt_tokens, completion_tokens, duration_ms,
attempts, outcome, error, key FROM ledger WHERE run = ? ORDER BY id`, run)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the ledger of %s: %w", run, err)
	}
	defer rows.Close()
	var out []llm.LedgerEntry
	for rows.Next() {
		e := llm.LedgerEntry{Run: run}
		var t string
		var ms int64
		if err := rows.Scan(&t, &e.Node, &e.Role, &e.Model, &e.Host, &e.Kind, &e.PromptTokens, &e.CompletionTokens, &ms,
			&e.Attempts, &e.Outcome, &e.Error, &e.Key); err != nil {
			return nil, err
		}
		e.Time, _ = time.Parse(time.RFC3339Nano, t)
		e.Duration = time.Duration(ms) * time.Millisecond
		out = append(out, e)
	}
	return out, rows.Err()
}

// Usage sums a run's ledger: what a resumed run has already spent.
func (s *Store) Usage(ctx context.Context, run string) (llm.Usage, error) {
	var u llm.Usage
	err := s.DB.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
FROM ledger WHERE run = ?`, run).Scan(&u.Calls, &u.PromptTokens, &u.CompletionTokens)
	return u, err
}

// Journal returns the call journal of one run.
func (s *Store) Journal(run string) llm.Journal { return &journal{db: s.DB, run: run} }

type journal struct {
	db  *sql.DB
	run string
}

func (j *journal) Lookup(ctx context.Context, key string) (llm.JournalEntry, bool, error) {
	var data string
	err := j.db.QueryRowContext(ctx, `SELECT answer FROM call_journal WHERE run = ? AND key = ?`, j.run, key).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return llm.JournalEntry{}, false, nil
	}
	if err != nil {
		return llm.JournalEntry{}, false, err
	}
	var e llm.JournalEntry
	if err := json.Unmarshal([]byte(data), &e); err != nil {
		return llm.JournalEntry{}, false, err
	}
	return e, true, nil
}

func (j *journal) Record(ctx context.Context, key string, e llm.JournalEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	// A journal write must survive the caller's cancellation: the answer was paid for.
	_, err = j.db.ExecContext(context.WithoutCancel(ctx), `INSERT OR REPLACE INTO call_journal (run, key, answer) VALUES (?, ?, ?)`, j.run, key, string(data))
	return err
}

func (j *journal) Forget(ctx context.Context, key string, e llm.JournalEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = j.db.ExecContext(ctx, `DELETE FROM call_journal WHERE run = ? AND key = ? AND answer = ?`, j.run, key, string(data))
	return err
}

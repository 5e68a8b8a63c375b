// Package audit keeps warren's audit trail: who did what when (logins and refusals of `warren
// serve`, searches and research questions, ingests, exports, every desk decision), in a table
// of warren.db that triggers keep append-only, as the toxicology versions are.
package audit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"warren/kb"
)

var auditMigration = kb.Migration{Version: 60, Name: "audit trail", SQL: `
CREATE TABLE audit (
	seq     INTEGER PRIMARY KEY,
	at      TEXT NOT NULL,
	analyst TEXT NOT NULL,
	action  TEXT NOT NULL,
	target  TEXT NOT NULL DEFAULT '',
	detail  TEXT NOT NULL DEFAULT '',
	outcome TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit (at);
CREATE INDEX audit_analyst ON audit (analyst, at);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only: entries are never changed'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only: entries are never deleted'); END;`}

// Migrations are the audit trail's schema steps in warren.db (versions 60 to 69).
var Migrations = []kb.Migration{auditMigration}

// Actions recorded.
const (
	ActionLogin    = "login"
	ActionRefused  = "refused"
	ActionSearch   = "search"
	ActionResearch = "research"
	ActionIngest   = "ingest"
	ActionExport   = "export"
	ActionGas      = "gas"
	ActionTox      = "tox"
	ActionAccess   = "access" // a grant or revocation of access to a collection
	ActionRemove   = "remove" // documents removed from the knowledge base
	ActionOpen     = "open"   // a document opened whole (the Knowledge tab's passages of it)
)

// Outcomes.
const (
	OK      = "ok"
	Refused = "refused"
	Failed  = "failed"
)

// Entry is one thing an analyst did.
type Entry struct {
	Seq     int64     `json:"seq"`
	At      time.Time `json:"at"`
	Analyst string    `json:"analyst"`
	Action  string    `json:"action"`
	Target  string    `json:"target,omitempty"`
	Detail  string    `json:"detail,omitempty"` // JSON or text
	Outcome string    `json:"outcome"`
}

// Filter selects entries; the zero Filter selects every one.
type Filter struct {
	Since   time.Time // entries at or after it; zero: from the first
	Analyst string    // "": every analyst
	Limit   int       // the latest Limit entries; 0: all
}

// timeFormat has a fixed width, so that the text order of at is its time order (RFC3339Nano
// drops trailing zeros, which would sort .1 after .12); it still parses as RFC 3339.
const timeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// Store is the audit table of one warren.db.
type Store struct {
	DB  *sql.DB
	Now func() time.Time // nil: time.Now
}

// Record appends e, stamped now when e.At is zero, and returns it as stored.
func (s *Store) Record(ctx context.Context, e Entry) (Entry, error) {
	if e.Analyst == "" {
		return e, errors.New("an audit entry needs an analyst")
	}
	if e.Action == "" {
		return e, errors.New("an audit entry needs an action")
	}
	if e.At.IsZero() {
		if s.Now != nil {
			e.At = s.Now()
		} else {
			e.At = time.Now()
		}
	}
	if e.Outcome == "" {
		e.Outcome = OK
	}
	e.At = e.At.UTC()
	res, err := s.DB.ExecContext(ctx, `INSERT INTO audit (at, analyst, action, target, detail, outcome) VALUES (?, ?, ?, ?, ?, ?)`,
		e.At.Format(timeFormat), e.Analyst, e.Action, e.Target, e.Detail, e.Outcome)
	if err != nil {
		return e, fmt.Errorf("couldn't record the audit entry: %w", err)
	}
	e.Seq, _ = res.LastInsertId()
	return e, nil
}

// List returns the entries f selects, oldest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Entry, error) {
	q := `SELECT seq, at, analyst, action, target, detail, outcome FROM audit WHERE 1=1`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND at >= ?`
		args = append(args, f.Since.UTC().Format(timeFormat))
	}
	if f.Analyst != "" {
		q += ` AND analyst = ?`
		args = append(args, f.Analyst)
	}
	q += ` ORDER BY seq DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the audit trail: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at string
		if err := rows.Scan(&e.Seq, &at, &e.Analyst, &e.Action, &e.Target, &e.Detail, &e.Outcome); err != nil {
			return nil, err
		}
		if e.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("audit entry %d: %w", e.Seq, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Read newest first so that Limit keeps the latest; shown oldest first, as a log reads.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// HashQuery is the sha256 of a query with its case and spacing normalised, in hex: equal
// queries match in the trail without their text being kept.
func HashQuery(q string) string {
	norm := strings.Join(strings.Fields(strings.ToLower(q)), " ")
	sum := sha256.Sum256([]byte(norm))
	return "sha256:" + hex.EncodeToString(sum[:])
}

package tox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"warren/kb"
)

// Every saved profile is a new row of tox_versions; rows are never updated or deleted (triggers
// refuse it), so no version is ever lost. A save reads the latest version, checks the caller's
// base version against it and inserts the next one in a single transaction; OpenDB begins write
// transactions IMMEDIATE, so two savers of the same profile are serialised, and the unique
// (inci_key, version) pair is the last line of defence.

var toxVersionsMigration = kb.Migration{Version: 30, Name: "toxicology profile versions", SQL: `
CREATE TABLE tox_versions (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	inci       TEXT NOT NULL,
	inci_key   TEXT NOT NULL,
	cas        TEXT NOT NULL,
	version    INTEGER NOT NULL CHECK (version >= 1),
	data       TEXT NOT NULL,
	patch      TEXT NOT NULL,
	summary    TEXT NOT NULL,
	edit_type  TEXT NOT NULL,
	batch_id   TEXT NOT NULL,
	created_at TEXT NOT NULL,
	UNIQUE (inci_key, version)
);`}

var toxAppendOnlyMigration = kb.Migration{Version: 31, Name: "toxicology versions are append-only", SQL: `
CREATE TRIGGER tox_versions_no_update BEFORE UPDATE ON tox_versions
BEGIN SELECT RAISE(ABORT, 'tox_versions is append-only: save a new version instead'); END;
CREATE TRIGGER tox_versions_no_delete BEFORE DELETE ON tox_versions
BEGIN SELECT RAISE(ABORT, 'tox_versions is append-only: versions are never deleted'); END;`}

// toxAnalystMigration names who saved each version (approved the edit, imported the file,
// rolled back); older versions keep "" (unknown). Adding a column is no UPDATE: the
// append-only triggers don't fire.
var toxAnalystMigration = kb.Migration{Version: 32, Name: "toxicology versions name the analyst", SQL: `
ALTER TABLE tox_versions ADD COLUMN analyst TEXT NOT NULL DEFAULT '';`}

// Migrations are the toxicology store's schema steps in warren.db (versions 30 to 39).
var Migrations = []kb.Migration{toxVersionsMigration, toxAppendOnlyMigration, toxAnalystMigration}

// Edit types that this package writes itself; agent/toxedit writes its own (FORM_EDIT_STRUCTURED,
// FORM_EDIT_RAW, NLI_EDIT).
const (
	EditImport   = "import"
	EditRollback = "rollback"
)

var (
	// ErrStale is matched (errors.Is) by a *StaleError.
	ErrStale = errors.New("stale base version")
	// ErrNoProfile is returned for an INCI name the store has no profile for.
	ErrNoProfile = errors.New("no such profile")
	// ErrNoVersion is returned for a version number a profile doesn't have.
	ErrNoVersion = errors.New("no such version")
)

// StaleError refuses a save whose base version is not the profile's latest version: someone
// saved another version since the edit was proposed (or the rollback was asked for).
type StaleError struct {
	INCI   string
	Base   int // the version the edit was made from (0: a new profile)
	Latest int // the latest version in the store (0: none)
	// By and At say who saved the latest version and when (By "" when not recorded).
	By string
	At time.Time
}

func (e *StaleError) Error() string {
	const fix = "reload the profile and propose the edit again"
	switch {
	case e.Base == 0:
		return fmt.Sprintf("profile %s already exists (now at version %d%s): %s", e.INCI, e.Latest, e.savedBy(), fix)
	case e.Base > e.Latest:
		return fmt.Sprintf("profile %s has no version %d (latest is %d): %s", e.INCI, e.Base, e.Latest, fix)
	}
	return fmt.Sprintf("profile %s changed since version %d (now at version %d%s): %s", e.INCI, e.Base, e.Latest, e.savedBy(), fix)
}

// savedBy says who saved the latest version and when: ", saved by alice at 10:02".
func (e *StaleError) savedBy() string {
	if e.At.IsZero() {
		return ""
	}
	at := e.At.Local()
	when := at.Format("15:04")
	if now := time.Now(); at.YearDay() != now.YearDay() || at.Year() != now.Year() {
		when = at.Format("2006-01-02 15:04")
	}
	return ", saved by " + AnalystName(e.By) + " at " + when
}

// AnalystName is how a recorded analyst is named in a sentence: versions from before warren
// recorded names have none.
func AnalystName(by string) string {
	if by == "" {
		return "an unknown analyst"
	}
	return by
}

// Is makes errors.Is(err, ErrStale) true.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Store keeps toxicology profiles in the workspace database (see kb.OpenDB).
type Store struct {
	DB *sql.DB
	// Analyst names who the store's saves are made for: every version it saves records them.
	// "" records no name.
	Analyst string
	// Saved, when set, is called after each commit that saved versions, with them in order;
	// it must not block (the service hands them to its change feed).
	Saved func([]VersionInfo)
}

// VersionInfo describes one version without its data.
type VersionInfo struct {
	ID        int64     `json:"id"`
	INCI      string    `json:"inci"`
	Version   int       `json:"version"`
	Summary   string    `json:"summary"`
	EditType  string    `json:"edit_type"`
	BatchID   string    `json:"batch_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	By        string    `json:"by"` // the analyst who saved it; "" when not recorded (older versions)
}

// ProfileVersion is one stored version of a profile.
type ProfileVersion struct {
	VersionInfo
	Data  json.RawMessage `json:"data"`  // the canonical profile (see Profile.Canonical)
	Patch json.RawMessage `json:"patch"` // the JSON Patch operations that made it, as saved
}

// Profile decodes the version's data.
func (v ProfileVersion) Profile() (*Profile, error) { return Parse(v.Data) }

// ProfileInfo is one line of the ingredient list.
type ProfileInfo struct {
	INCI      string    `json:"inci"`
	CAS       string    `json:"cas,omitempty"`
	Version   int       `json:"version"`
	UpdatedAt time.Time `json:"updated_at"`
}

// testHookBeforeCommit, when set by a test, runs inside Save after the new version is written
// and before the commit; an error from it aborts the save.
var testHookBeforeCommit func(tx *sql.Tx) error

// writeTx is one write transaction of the store: it saves versions in the store's analyst's
// name and collects them for the Saved hook.
type writeTx struct {
	*sql.Tx
	by    string
	saved []VersionInfo
}

// Save validates data as a whole profile and stores it as the next version of the profile inci,
// in one transaction, and returns the new version number. base is the version the edit was made
// from (0 for a new profile); when it isn't the latest version the save is refused with a
// *StaleError and nothing is written. patch is the JSON Patch (an array of operations) that
// turned version base into data; it is kept as given ([] when empty). The data is stored in
// canonical form, and its INCI name must match inci (case-insensitively).
func (s *Store) Save(ctx context.Context, inci string, base int, data, patch []byte, summary, editType, batchID string) (int, error) {
	p, canon, err := prepare(inci, data)
	if err != nil {
		return 0, fmt.Errorf("couldn't save profile %s: %w", inci, err)
	}
	ops, err := checkPatch(patch)
	if err != nil {
		return 0, fmt.Errorf("couldn't save profile %s: %w", inci, err)
	}
	if strings.TrimSpace(editType) == "" {
		return 0, fmt.Errorf("couldn't save profile %s: the edit type is empty", inci)
	}
	var version int
	err = s.inTx(ctx, func(tx *writeTx) error {
		version, err = tx.save(ctx, p, canon, base, ops, summary, editType, batchID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("couldn't save profile %s: %w", inci, err)
	}
	return version, nil
}

// prepare parses the data and checks that it is the profile named inci.
func prepare(inci string, data []byte) (*Profile, []byte, error) {
	p, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	if Key(p.INCI) != Key(inci) {
		return nil, nil, fmt.Errorf("the data is the profile of %q, not %q; the INCI name can't be changed by an edit", p.INCI, inci)
	}
	canon, err := p.Canonical()
	return p, canon, err
}

func checkPatch(patch []byte) ([]byte, error) {
	if len(strings.TrimSpace(string(patch))) == 0 {
		return []byte("[]"), nil
	}
	var ops []json.RawMessage
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, fmt.Errorf("the patch isn't a JSON array of operations: %w", err)
	}
	return patch, nil
}

func (s *Store) inTx(ctx context.Context, f func(*writeTx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w := &writeTx{Tx: tx, by: s.Analyst}
	if err := f(w); err != nil {
		return err
	}
	if testHookBeforeCommit != nil {
		if err := testHookBeforeCommit(tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if s.Saved != nil && len(w.saved) > 0 {
		s.Saved(w.saved)
	}
	return nil
}

// staleError refuses a save made from version base when latest is the profile's latest version.
func staleError(ctx context.Context, q querier, inci string, base, latest int) error {
	e := &StaleError{INCI: inci, Base: base, Latest: latest}
	if latest > 0 {
		if v, err := loadVersion(ctx, q, inci, latest); err == nil {
			e.By, e.At = v.By, v.CreatedAt
		}
	}
	return e
}

// save inserts the next version after checking base; p and canon must be validated.
func (tx *writeTx) save(ctx context.Context, p *Profile, canon []byte, base int, patch []byte, summary, editType, batchID string) (int, error) {
	latest, err := latestVersion(ctx, tx, p.INCI)
	if err != nil {
		return 0, err
	}
	if base != latest {
		return 0, staleError(ctx, tx, p.INCI, base, latest)
	}
	version := latest + 1
	now := time.Now().UTC()
	res, err := tx.ExecContext(ctx, `INSERT INTO tox_versions
		(inci, inci_key, cas, version, data, patch, summary, edit_type, batch_id, created_at, analyst)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.INCI, Key(p.INCI), p.CAS, version, string(canon), string(patch), summary, editType, batchID,
		now.Format(time.RFC3339Nano), tx.by)
	if err != nil {
		return 0, fmt.Errorf("couldn't write version %d: %w", version, err)
	}
	id, _ := res.LastInsertId()
	tx.saved = append(tx.saved, VersionInfo{ID: id, INCI: p.INCI, Version: version, Summary: summary, EditType: editType,
		BatchID: batchID, CreatedAt: now, By: tx.by})
	return version, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func latestVersion(ctx context.Context, q querier, inci string) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM tox_versions WHERE inci_key = ?`, Key(inci)).Scan(&v)
	return v, err
}

const versionColumns = `id, inci, version, summary, edit_type, batch_id, created_at, analyst`

// Latest returns the newest version of a profile, or ErrNoProfile.
func (s *Store) Latest(ctx context.Context, inci string) (ProfileVersion, error) {
	v, err := loadVersion(ctx, s.DB, inci, 0)
	if err != nil {
		return ProfileVersion{}, fmt.Errorf("couldn't load profile %s: %w", inci, err)
	}
	return v, nil
}

// Version returns version n of a profile, or ErrNoProfile or ErrNoVersion.
func (s *Store) Version(ctx context.Context, inci string, n int) (ProfileVersion, error) {
	if n < 1 {
		return ProfileVersion{}, fmt.Errorf("couldn't load version %d of profile %s: %w (versions start at 1)", n, inci, ErrNoVersion)
	}
	v, err := loadVersion(ctx, s.DB, inci, n)
	if err != nil {
		return ProfileVersion{}, fmt.Errorf("couldn't load version %d of profile %s: %w", n, inci, err)
	}
	return v, nil
}

// loadVersion loads version n, or the latest when n is 0.
func loadVersion(ctx context.Context, q querier, inci string, n int) (ProfileVersion, error) {
	query := `SELECT ` + versionColumns + `, data, patch FROM tox_versions WHERE inci_key = ? `
	args := []any{Key(inci)}
	if n == 0 {
		query += `ORDER BY version DESC LIMIT 1`
	} else {
		query += `AND version = ?`
		args = append(args, n)
	}
	var v ProfileVersion
	var created, data, patch string
	err := q.QueryRowContext(ctx, query, args...).Scan(&v.ID, &v.INCI, &v.Version, &v.Summary, &v.EditType, &v.BatchID, &created, &v.By, &data, &patch)
	if errors.Is(err, sql.ErrNoRows) {
		if n == 0 {
			return v, ErrNoProfile
		}
		latest, lerr := latestVersion(ctx, q, inci)
		if lerr != nil {
			return v, lerr
		}
		if latest == 0 {
			return v, ErrNoProfile
		}
		return v, fmt.Errorf("%w (versions are 1 to %d)", ErrNoVersion, latest)
	}
	if err != nil {
		return v, err
	}
	v.CreatedAt, err = time.Parse(time.RFC3339Nano, created)
	v.Data, v.Patch = json.RawMessage(data), json.RawMessage(patch)
	return v, err
}

// History lists the versions of a profile, newest first, without their data.
func (s *Store) History(ctx context.Context, inci string) ([]VersionInfo, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+versionColumns+` FROM tox_versions WHERE inci_key = ? ORDER BY version DESC`, Key(inci))
	if err != nil {
		return nil, fmt.Errorf("couldn't read the history of profile %s: %w", inci, err)
	}
	defer rows.Close()
	var out []VersionInfo
	for rows.Next() {
		var v VersionInfo
		var created string
		if err := rows.Scan(&v.ID, &v.INCI, &v.Version, &v.Summary, &v.EditType, &v.BatchID, &created, &v.By); err != nil {
			return nil, fmt.Errorf("couldn't read the history of profile %s: %w", inci, err)
		}
		if v.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
			return nil, fmt.Errorf("couldn't read the history of profile %s: %w", inci, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("couldn't read the history of profile %s: %w", inci, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("couldn't read the history of profile %s: %w", inci, ErrNoProfile)
	}
	return out, nil
}

// List returns every profile at its latest version, ordered by INCI name.
func (s *Store) List(ctx context.Context) ([]ProfileInfo, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT v.inci, v.cas, v.version, v.created_at FROM tox_versions v
		JOIN (SELECT inci_key, MAX(version) AS version FROM tox_versions GROUP BY inci_key) l
		ON v.inci_key = l.inci_key AND v.version = l.version
		ORDER BY v.inci_key`)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the profiles: %w", err)
	}
	defer rows.Close()
	var out []ProfileInfo
	for rows.Next() {
		var p ProfileInfo
		var updated string
		if err := rows.Scan(&p.INCI, &p.CAS, &p.Version, &updated); err != nil {
			return nil, fmt.Errorf("couldn't list the profiles: %w", err)
		}
		if p.UpdatedAt, err = time.Parse(time.RFC3339Nano, updated); err != nil {
			return nil, fmt.Errorf("couldn't list the profiles: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("couldn't list the profiles: %w", err)
	}
	return out, nil
}

// Rollback saves a new version of a profile whose data equals version to, and returns its
// number; no version is removed. seen is the latest version the analyst saw when asking for
// the rollback: when another version was saved since, the rollback is refused with a
// *StaleError (errors.Is(err, ErrStale)) and nothing is written. Rolling back to the latest
// version is refused (there is nothing to undo). The data is validated again, so a version
// that today's rules refuse can't be restored. The patch of the new version replaces the
// whole document. An empty summary becomes "rollback to version N".
func (s *Store) Rollback(ctx context.Context, inci string, to, seen int, summary string) (int, error) {
	if summary == "" {
		summary = fmt.Sprintf("rollback to version %d", to)
	}
	var version int
	if to < 1 {
		return 0, fmt.Errorf("couldn't roll profile %s back to version %d: %w (versions start at 1)", inci, to, ErrNoVersion)
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		old, err := loadVersion(ctx, tx, inci, to)
		if err != nil {
			return err
		}
		latest, err := latestVersion(ctx, tx, inci)
		if err != nil {
			return err
		}
		if seen != latest {
			return staleError(ctx, tx, inci, seen, latest)
		}
		if to == latest {
			return fmt.Errorf("version %d is already the latest", to)
		}
		p, canon, err := prepare(inci, old.Data)
		if err != nil {
			return fmt.Errorf("version %d is no longer a valid profile: %w", to, err)
		}
		version, err = tx.save(ctx, p, canon, latest, replaceAll(canon), summary, EditRollback, "")
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("couldn't roll profile %s back to version %d: %w", inci, to, err)
	}
	return version, nil
}

// replaceAll is the JSON Patch that replaces the whole document by data.
func replaceAll(data []byte) []byte {
	return []byte(`[{"op":"replace","path":"","value":` + string(data) + `}]`)
}

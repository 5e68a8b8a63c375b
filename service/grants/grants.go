// Package grants keeps who may read or ingest into which collection, in a table of warren.db:
// one level (none, read, write) per analyst and collection, as soft-serve grants access per
// repository. An analyst and collection without a row take serve.default_access; the rule that
// combines them (admins, views outside `warren serve`) is the service's.
package grants

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"warren/kb"
)

var grantsMigration = kb.Migration{Version: 70, Name: "access grants", SQL: `
CREATE TABLE access_grants (
	analyst    TEXT NOT NULL,
	collection TEXT NOT NULL,
	level      TEXT NOT NULL CHECK (level IN ('none', 'read', 'write')),
	granted_by TEXT NOT NULL,
	at         TEXT NOT NULL,
	PRIMARY KEY (analyst, collection)
);`}

// Migrations are the access grants' schema steps in warren.db (versions 70 to 79).
var Migrations = []kb.Migration{grantsMigration}

// Level is what an analyst may do with a collection; each level includes the ones below it.
type Level string

// Levels, lowest first.
const (
	None  Level = "none"
	Read  Level = "read"
	Write Level = "write" // read, and ingest into it
)

// ParseLevel reads a level as an admin types it.
func ParseLevel(s string) (Level, error) {
	switch l := Level(strings.ToLower(strings.TrimSpace(s))); l {
	case None, Read, Write:
		return l, nil
	}
	return "", fmt.Errorf("access level %q: use none, read or write", s)
}

func (l Level) rank() int {
	switch l {
	case Read:
		return 1
	case Write:
		return 2
	}
	return 0 // none, and anything unknown: a damaged value denies
}

// Allows reports whether l includes want.
func (l Level) Allows(want Level) bool { return l.rank() >= want.rank() }

// Grant is one analyst's level on one collection.
type Grant struct {
	Analyst    string    `json:"analyst"`
	Collection string    `json:"collection"`
	Level      Level     `json:"level"`
	GrantedBy  string    `json:"granted_by"`
	At         time.Time `json:"at"`
}

// Store is the grants table of one warren.db.
type Store struct {
	DB  *sql.DB
	Now func() time.Time // nil: time.Now
}

// Set records g, replacing the analyst's earlier level on the collection, stamped now.
func (s *Store) Set(ctx context.Context, g Grant) (Grant, error) {
	if g.Analyst == "" || g.Collection == "" || g.GrantedBy == "" {
		return g, errors.New("a grant needs an analyst, a collection and who granted it")
	}
	if _, err := ParseLevel(string(g.Level)); err != nil {
		return g, err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	g.At = now().UTC().Truncate(time.Second)
	_, err := s.DB.ExecContext(ctx, `INSERT INTO access_grants (analyst, collection, level, granted_by, at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (analyst, collection) DO UPDATE SET level = excluded.level, granted_by = excluded.granted_by, at = excluded.at`,
		g.Analyst, g.Collection, string(g.Level), g.GrantedBy, g.At.Format(time.RFC3339))
	if err != nil {
		return g, fmt.Errorf("couldn't record the grant: %w", err)
	}
	return g, nil
}

// Remove drops the analyst's grant on the collection, if there is one, and returns it.
func (s *Store) Remove(ctx context.Context, analyst, collection string) (Grant, bool, error) {
	list, err := s.list(ctx, `WHERE analyst = ? AND collection = ?`, analyst, collection)
	if err != nil || len(list) == 0 {
		return Grant{}, false, err
	}
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM access_grants WHERE analyst = ? AND collection = ?`, analyst, collection); err != nil {
		return Grant{}, false, fmt.Errorf("couldn't remove the grant: %w", err)
	}
	return list[0], true, nil
}

// List returns the grants of one analyst ("" for everyone's), by analyst and collection.
func (s *Store) List(ctx context.Context, analyst string) ([]Grant, error) {
	if analyst == "" {
		return s.list(ctx, "")
	}
	return s.list(ctx, `WHERE analyst = ?`, analyst)
}

// Levels maps each collection the analyst has a grant on to its level.
func (s *Store) Levels(ctx context.Context, analyst string) (map[string]Level, error) {
	list, err := s.List(ctx, analyst)
	if err != nil {
		return nil, err
	}
	m := make(map[string]Level, len(list))
	for _, g := range list {
		m[g.Collection] = g.Level
	}
	return m, nil
}

func (s *Store) list(ctx context.Context, where string, args ...any) ([]Grant, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT analyst, collection, level, granted_by, at FROM access_grants `+where+
		` ORDER BY analyst, collection`, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the access grants: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var g Grant
		var level, at string
		if err := rows.Scan(&g.Analyst, &g.Collection, &level, &g.GrantedBy, &at); err != nil {
			return nil, err
		}
		g.Level = Level(level)
		if g.At, err = time.Parse(time.RFC3339, at); err != nil {
			return nil, fmt.Errorf("grant of %s on %s: %w", g.Analyst, g.Collection, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

package kb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DBFileName is the SQLite database inside a workspace.
const DBFileName = "warren.db"

// Migration is one step of the database schema. Each package that keeps tables in warren.db
// (the lexical index, sessions and checkpoints, the call ledger, gas provenance, toxicology
// versions, jobs) exports its steps as a value, and whoever opens the workspace composes the
// list (internal/schema); each step runs once, in version order, inside a transaction.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

var metaMigration = Migration{Version: 1, Name: "meta", SQL: `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`}

// Migrations are the knowledge base's own schema steps (versions below 10).
var Migrations = []Migration{metaMigration, knowledgeBaseMigration, lexicalStatsMigration, lexicalStampMigration, pagesMigration, fileStampMigration,
	indexVersionMigration}

// checkMigrations refuses a list that is not in strictly ascending version order: a version
// given twice is two packages claiming the same step.
func checkMigrations(migrations []Migration) error {
	for i := 1; i < len(migrations); i++ {
		prev, m := migrations[i-1], migrations[i]
		switch {
		case m.Version == prev.Version:
			return fmt.Errorf("schema step %d is given twice (%s, %s)", m.Version, prev.Name, m.Name)
		case m.Version < prev.Version:
			return fmt.Errorf("schema steps out of order: %d (%s) after %d (%s)", m.Version, m.Name, prev.Version, prev.Name)
		}
	}
	return nil
}

// OpenDB opens (creating if needed) the workspace database in WAL mode, so that the workbench
// can read while a run writes, and brings its schema up to date: every step of migrations
// (in ascending version order) that the database has not applied yet is applied.
func OpenDB(path string, migrations []Migration) (*sql.DB, error) {
	if err := checkMigrations(migrations); err != nil {
		return nil, fmt.Errorf("couldn't open %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	// Escape the path as a URI: a folder named "a#b" or "50% done" must not change which file
	// SQLite opens.
	// Write transactions take the write lock when they begin, so two processes writing at
	// once wait for each other (busy_timeout) instead of failing when a read turns into a write.
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("couldn't open %s: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("couldn't open %s as a SQLite database: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("couldn't switch %s to WAL mode (it is in %s mode); is it on a network file system?", path, mode)
	}
	if err := migrate(ctx, db, migrations); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func migrate(ctx context.Context, db *sql.DB, migrations []Migration) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("couldn't prepare the schema table: %w", err)
	}
	applied := map[int]bool{}
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("couldn't read the schema version: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return fmt.Errorf("couldn't apply schema step %d (%s): %w", m.Version, m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("couldn't commit schema step %d: %w", m.Version, err)
		}
	}
	return nil
}

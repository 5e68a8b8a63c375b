package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"warren/kb/lexical"
)

// Lexical statistics. FTS5 finds the chunks that contain a query's terms, but its bm25() fixes
// k1 and b, and it learns a term's document frequency by reading the term's whole posting
// list on every query, which is what makes a query of very common words slow. warren keeps
// the totals BM25 needs itself, in the same transaction as the index rows: the number of
// chunks and of heading and body terms. A term is a space-separated word of the heading and
// body columns, as the analyser wrote them. Store.Lexical ranks over its index in memory
// (package kb/lexical), which counts document frequencies itself; the totals tell it when to read
// that index again. The table lexical_terms, which once kept each term's document frequency,
// is no longer written (an older workspace keeps its rows, which nothing reads).

var lexicalStatsMigration = Migration{Version: 3, Name: "lexical statistics", SQL: `
CREATE TABLE lexical_terms (
	term TEXT PRIMARY KEY,
	df   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE lexical_totals (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	chunks  INTEGER NOT NULL,
	heading INTEGER NOT NULL,
	body    INTEGER NOT NULL
);
-- A workspace indexed before this step has no totals row yet: the first write or search
-- counts its index (rebuildLexicalStats).
INSERT INTO lexical_totals (id, chunks, heading, body) SELECT 1, 0, 0, 0 WHERE NOT EXISTS (SELECT 1 FROM chunks);
`}

// lexicalStampMigration adds the stamp that every change to the index draws anew, so that the
// index's snapshot (kb/lexical/lexsnapshot.go) is never taken for another state that reached
// the same generations and totals.
var lexicalStampMigration = Migration{Version: 4, Name: "lexical stamp", SQL: `
ALTER TABLE lexical_totals ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
`}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readLexicalTotals(ctx context.Context, q queryer) (lexical.Totals, bool, error) {
	var t lexical.Totals
	err := q.QueryRowContext(ctx, `SELECT chunks, heading, body FROM lexical_totals WHERE id = 1`).Scan(&t.Chunks, &t.Heading, &t.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return t, false, nil
	}
	if err != nil {
		return t, false, fmt.Errorf("couldn't read the lexical statistics: %w", err)
	}
	return t, true, nil
}

// lexicalTotalsNow returns the totals, counting the index first when no one has yet (a
// workspace indexed before the statistics existed).
func (s *Store) lexicalTotalsNow(ctx context.Context) (lexical.Totals, error) {
	t, ok, err := readLexicalTotals(ctx, s.db)
	if err != nil || ok {
		return t, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return t, fmt.Errorf("couldn't count the lexical index: %w", err)
	}
	defer tx.Rollback()
	if err := ensureLexicalStats(ctx, tx); err != nil {
		return t, err
	}
	if err := tx.Commit(); err != nil {
		return t, fmt.Errorf("couldn't count the lexical index: %w", err)
	}
	t, _, err = readLexicalTotals(ctx, s.db)
	return t, err
}

// ensureLexicalStats counts the whole index when the totals row is missing, so that the
// changes applied after it start from the truth.
func ensureLexicalStats(ctx context.Context, tx *sql.Tx) error {
	if _, ok, err := readLexicalTotals(ctx, tx); err != nil || ok {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO lexical_totals (id, chunks, heading, body) VALUES (1, 0, 0, 0)`); err != nil {
		return fmt.Errorf("couldn't reset the lexical statistics: %w", err)
	}
	return applyLexicalStats(ctx, tx, +1, `SELECT rowid, heading, body FROM chunks_fts`)
}

// addLexicalStats counts the index rows of a document's chunks into the statistics;
// removeLexicalStats takes them out again. Chunks are selected by a condition on the chunks
// table (doc = ?, collection = ?).
func addLexicalStats(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	return changeLexicalStats(ctx, tx, +1, where, args...)
}

func removeLexicalStats(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	return changeLexicalStats(ctx, tx, -1, where, args...)
}

func changeLexicalStats(ctx context.Context, tx *sql.Tx, sign int, where string, args ...any) error {
	if err := ensureLexicalStats(ctx, tx); err != nil {
		return err
	}
	return applyLexicalStats(ctx, tx, sign, `SELECT rowid, heading, body FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE `+where+`)`, args...)
}

func applyLexicalStats(ctx context.Context, tx *sql.Tx, sign int, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	var totals lexical.Totals
	for rows.Next() {
		var rowid int64
		var heading, body string
		if err := rows.Scan(&rowid, &heading, &body); err != nil {
			rows.Close()
			return err
		}
		totals.Chunks++
		totals.Heading += int64(len(strings.Fields(heading)))
		totals.Body += int64(len(strings.Fields(body)))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if totals.Chunks == 0 {
		return nil
	}
	s := int64(sign)
	if _, err := tx.ExecContext(ctx, `UPDATE lexical_totals SET chunks = chunks + ?, heading = heading + ?, body = body + ?, stamp = random() WHERE id = 1`,
		s*totals.Chunks, s*totals.Heading, s*totals.Body); err != nil {
		return fmt.Errorf("couldn't update the lexical statistics: %w", err)
	}
	return nil
}

package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Lexical statistics. FTS5 finds the chunks that contain a query's terms, but its bm25() fixes
// k1 and b, and it learns a term's document frequency by reading the term's whole posting
// list on every query, which is what makes a query of very common words slow. warren keeps
// the statistics BM25 needs itself, in the same transaction as the index rows: each term's
// document frequency (in how many chunks it appears, heading or body) and the number of
// chunks and of heading and body terms. A term is a space-separated word of the heading and
// body columns, as the analyser wrote them. Store.Lexical now ranks over its index in memory
// (lexindex.go), which counts document frequencies itself: the totals still tell it when to
// read that index again, while lexical_terms is read only by the tests' FTS5 reference
// (fts5ref_test.go).

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

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readLexicalTotals(ctx context.Context, q queryer) (LexicalTotals, bool, error) {
	var t LexicalTotals
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
func (s *Store) lexicalTotalsNow(ctx context.Context) (LexicalTotals, error) {
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
	if _, err := tx.ExecContext(ctx, `DELETE FROM lexical_terms`); err != nil {
		return fmt.Errorf("couldn't reset the lexical statistics: %w", err)
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
	df := map[string]int64{}
	var totals LexicalTotals
	seen := map[string]bool{}
	for rows.Next() {
		var rowid int64
		var heading, body string
		if err := rows.Scan(&rowid, &heading, &body); err != nil {
			rows.Close()
			return err
		}
		totals.Chunks++
		clear(seen)
		for _, part := range [2]struct {
			text string
			n    *int64
		}{{heading, &totals.Heading}, {body, &totals.Body}} {
			for _, t := range strings.Fields(part.text) {
				*part.n++
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if totals.Chunks == 0 {
		return nil
	}
	s := int64(sign)
	if _, err := tx.ExecContext(ctx, `UPDATE lexical_totals SET chunks = chunks + ?, heading = heading + ?, body = body + ? WHERE id = 1`,
		s*totals.Chunks, s*totals.Heading, s*totals.Body); err != nil {
		return fmt.Errorf("couldn't update the lexical statistics: %w", err)
	}
	var stmt *sql.Stmt
	if sign > 0 {
		stmt, err = tx.PrepareContext(ctx, `INSERT INTO lexical_terms (term, df) VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET df = df + excluded.df`)
	} else {
		// A term no chunk holds any more leaves the table.
		stmt, err = tx.PrepareContext(ctx, `UPDATE lexical_terms SET df = df - ? WHERE term = ? RETURNING df`)
	}
	if err != nil {
		return fmt.Errorf("couldn't update the lexical statistics: %w", err)
	}
	defer stmt.Close()
	var gone []string
	for t, n := range df {
		if sign > 0 {
			_, err = stmt.ExecContext(ctx, t, n)
		} else {
			var left int64
			err = stmt.QueryRowContext(ctx, n, t).Scan(&left)
			if errors.Is(err, sql.ErrNoRows) {
				err = nil
			} else if err == nil && left <= 0 {
				gone = append(gone, t)
			}
		}
		if err != nil {
			return fmt.Errorf("couldn't update the lexical statistics of %q: %w", t, err)
		}
	}
	for _, t := range gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lexical_terms WHERE term = ?`, t); err != nil {
			return fmt.Errorf("couldn't update the lexical statistics of %q: %w", t, err)
		}
	}
	return nil
}

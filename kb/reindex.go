package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// indexVersionKey is the meta row that says under which IndexVersion the lexical index was
// written. A workspace whose chunks were indexed before it existed is marked 1 by
// indexVersionMigration; the first write into a workspace without the row stamps the current
// version (its chunks are all written now).
const indexVersionKey = "lexical_index_version"

var indexVersionMigration = Migration{Version: 7, Name: "lexical index version", SQL: `
INSERT INTO meta (key, value) SELECT 'lexical_index_version', '1' WHERE EXISTS (SELECT 1 FROM chunks)
	AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'lexical_index_version');
`}

// stampIndexVersion records the current IndexVersion for a workspace written for the first
// time; a workspace that has the row keeps it (Reindex raises it).
func stampIndexVersion(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)`, indexVersionKey, strconv.Itoa(IndexVersion))
	return err
}

// IndexStale reports how many chunks were indexed under an older IndexVersion than this
// build's: 0 when the index is current.
func (s *Store) IndexStale(ctx context.Context) (int, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, indexVersionKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // never written, or written under this version
	}
	if err != nil {
		return 0, fmt.Errorf("couldn't read the index version: %w", err)
	}
	if n, err := strconv.Atoi(v); err == nil && n >= IndexVersion {
		return 0, nil
	}
	var chunks int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&chunks); err != nil {
		return 0, err
	}
	return chunks, nil
}

// reindexBatch is how many chunks Reindex reads, analyses and writes at a time.
const reindexBatch = 2000

// Reindex analyses every chunk again when the index was written under an older IndexVersion,
// and rewrites its heading and body terms, the totals and the stamp in one transaction: a
// search before it commits reads the old index whole, one after reads the new one, and a
// cancelled or failed re-index leaves the old one to be re-indexed at the next open. progress
// (may be nil) gets the chunks done of all. It returns the chunks re-indexed.
func (s *Store) Reindex(ctx context.Context, progress func(done, total int)) (int, error) {
	total, err := s.IndexStale(ctx)
	if err != nil || total == 0 {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	update, err := tx.PrepareContext(ctx, `UPDATE chunks_fts SET heading = ?, body = ? WHERE rowid = ?`)
	if err != nil {
		return 0, err
	}
	defer update.Close()
	var totals lexical.Totals
	done := 0
	docs := map[string]*load.Document{} // the documents of the batch's chunks, read once
	for last := int64(-1); ; {
		batch, err := reindexRows(ctx, tx, last, docs)
		if err != nil {
			return 0, err
		}
		if len(batch) == 0 {
			break
		}
		for _, r := range batch {
			heading, body := IndexedTerms(r.chunk, r.doc)
			if _, err := update.ExecContext(ctx, heading, body, r.rowid); err != nil {
				return 0, fmt.Errorf("couldn't re-index chunk %s: %w", r.chunk.ID, err)
			}
			totals.Chunks++
			totals.Heading += int64(len(strings.Fields(heading)))
			totals.Body += int64(len(strings.Fields(body)))
			last = r.rowid
		}
		done += len(batch)
		if progress != nil {
			progress(done, total)
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE lexical_totals SET chunks = ?, heading = ?, body = ?, stamp = random() WHERE id = 1`,
		totals.Chunks, totals.Heading, totals.Body); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		indexVersionKey, strconv.Itoa(IndexVersion)); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("couldn't save the re-indexed knowledge base: %w", err)
	}
	return done, nil
}

type reindexRow struct {
	rowid int64
	chunk chunk.Chunk
	doc   *load.Document
}

// reindexRows reads the next batch of chunks after rowid last, with their documents.
func reindexRows(ctx context.Context, tx *sql.Tx, last int64, docs map[string]*load.Document) ([]reindexRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.rowid, c.id, c.doc, c.collection, c.section, c.heading, c.text,
d.title, d.language, d.meta FROM chunks c JOIN documents d ON d.id = c.doc WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?`, last, reindexBatch)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the chunks to re-index: %w", err)
	}
	defer rows.Close()
	var out []reindexRow
	for rows.Next() {
		var r reindexRow
		var title, lang, meta string
		if err := rows.Scan(&r.rowid, &r.chunk.ID, &r.chunk.Doc, &r.chunk.Collection, &r.chunk.Section, &r.chunk.Heading, &r.chunk.Text,
			&title, &lang, &meta); err != nil {
			return nil, err
		}
		d, ok := docs[r.chunk.Doc]
		if !ok {
			d = &load.Document{ID: r.chunk.Doc, Title: title, Language: lang, Meta: map[string]string{}}
			json.Unmarshal([]byte(meta), &d.Meta)
			docs[r.chunk.Doc] = d
		}
		r.doc = d
		out = append(out, r)
	}
	return out, rows.Err()
}

package kb

// The write side of the store: documents replaced with their chunks, vectors and index rows
// in one transaction, and removed; the read side and the schema are in store.go.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// DocumentWrite is one document to store with its chunks and their vectors.
type DocumentWrite struct {
	Doc     *load.Document
	Chunks  []chunk.Chunk
	Vectors [][]float32
}

// ReplaceDocument stores a document with its chunks and vectors in one transaction, replacing
// what was stored under its ID before. The collection is created on first use and must have
// been built by the same embedder.
func (s *Store) ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vecs [][]float32, embedder string) error {
	return s.ReplaceDocuments(ctx, []DocumentWrite{{Doc: doc, Chunks: chunks, Vectors: vecs}}, embedder)
}

// ReplaceDocuments stores several documents in one transaction, each as ReplaceDocument
// stores one: all of them or, on an error, none. An ingest of many small files writes them
// so, as a commit costs far more than a small document.
func (s *Store) ReplaceDocuments(ctx context.Context, writes []DocumentWrite, embedder string) error {
	if len(writes) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("couldn't start storing %s: %w", writes[0].Doc.ID, err)
	}
	defer tx.Rollback()
	w, err := newDocWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	changes := map[string]*vectorChange{} // by collection, applied once with its new generation
	change := func(collection string) *vectorChange {
		if changes[collection] == nil {
			changes[collection] = &vectorChange{}
		}
		return changes[collection]
	}
	touched := map[string]bool{}
	for _, dw := range writes {
		doc, chunks, vecs := dw.Doc, dw.Chunks, dw.Vectors
		if len(chunks) != len(vecs) {
			return fmt.Errorf("couldn't store %s: %d chunks but %d vectors", doc.ID, len(chunks), len(vecs))
		}
		dim := 0
		if len(vecs) > 0 {
			dim = len(vecs[0])
		}
		if err := ensureCollection(ctx, tx, doc.Collection, embedder, dim); err != nil {
			return err
		}
		var oldCollection string
		tx.QueryRowContext(ctx, `SELECT collection FROM documents WHERE id = ?`, doc.ID).Scan(&oldCollection)
		old, err := chunkIDsTx(ctx, tx, doc.ID)
		if err != nil {
			return err
		}
		if oldCollection != "" {
			if err := deleteDocumentTx(ctx, tx, doc.ID); err != nil {
				return err
			}
		}
		if err := w.insert(ctx, doc, chunks, vecs, dim); err != nil {
			return err
		}
		touched[doc.Collection] = true
		if oldCollection != "" && oldCollection != doc.Collection {
			touched[oldCollection] = true
			change(oldCollection).remove(old)
			old = nil
		}
		c := change(doc.Collection)
		c.remove(old)
		for i, ch := range chunks {
			c.add(ch.ID, vecs[i])
		}
	}
	if err := w.addTotals(ctx, tx); err != nil {
		return err
	}
	gens := map[string]int{}
	for collection := range touched {
		if gens[collection], err = bumpGeneration(ctx, tx, collection); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("couldn't commit %s: %w", writes[0].Doc.ID, err)
	}
	if vs := s.loadedVectors(); vs != nil {
		for collection, c := range changes {
			added, vecs := c.live()
			vs.Apply(collection, gens[collection], c.old, added, vecs)
		}
	}
	return nil
}

// vectorChange is what one write does to a collection's vectors: chunks gone, chunks added.
type vectorChange struct {
	old   []string
	added []string
	vecs  [][]float32
	at    map[string]int // added chunk → its place in added, -1 once removed again
}

// remove takes chunks out: stored ones, or ones this write added (a document given twice).
func (c *vectorChange) remove(ids []string) {
	for _, id := range ids {
		if i, ok := c.at[id]; ok && i >= 0 {
			c.at[id] = -1
			c.added[i] = ""
			continue
		}
		c.old = append(c.old, id)
	}
}

func (c *vectorChange) add(id string, v []float32) {
	if c.at == nil {
		c.at = map[string]int{}
	}
	c.at[id] = len(c.added)
	c.added = append(c.added, id)
	c.vecs = append(c.vecs, v)
}

// live is what was added and not removed again.
func (c *vectorChange) live() ([]string, [][]float32) {
	ids, vecs := c.added[:0:0], c.vecs[:0:0]
	for i, id := range c.added {
		if id != "" {
			ids, vecs = append(ids, id), append(vecs, c.vecs[i])
		}
	}
	return ids, vecs
}

// docWriter inserts documents, chunks and their index rows with statements prepared once per
// transaction.
type docWriter struct {
	doc, chunk, terms *sql.Stmt
	totals            lexical.Totals // what was indexed, not yet counted into the statistics
}

func newDocWriter(ctx context.Context, tx *sql.Tx) (*docWriter, error) {
	// The statistics row must exist before changes are counted into it.
	if err := ensureLexicalStats(ctx, tx); err != nil {
		return nil, err
	}
	if err := stampIndexVersion(ctx, tx); err != nil {
		return nil, err
	}
	var w docWriter
	var err error
	if w.doc, err = tx.PrepareContext(ctx, `INSERT INTO documents (id, collection, title, source, format, language, hash, meta, chunks, ingested_at, size, mtime)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		return nil, err
	}
	if w.chunk, err = tx.PrepareContext(ctx, `INSERT INTO chunks (id, doc, collection, section, section_path, heading, text, file,
start_byte, end_byte, hash, seq, page, page_kind, ocr, ocr_confidence, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		w.close()
		return nil, err
	}
	if w.terms, err = tx.PrepareContext(ctx, `INSERT INTO chunks_fts (rowid, heading, body, scope) VALUES (?, ?, ?, ?)`); err != nil {
		w.close()
		return nil, err
	}
	return &w, nil
}

func (w *docWriter) close() {
	for _, st := range []*sql.Stmt{w.doc, w.chunk, w.terms} {
		if st != nil {
			st.Close()
		}
	}
}

// insert adds a document, its chunks with their vectors and index rows, and counts them into
// the lexical statistics.
func (w *docWriter) insert(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vecs [][]float32, dim int) error {
	meta, _ := json.Marshal(doc.Meta)
	if _, err := w.doc.ExecContext(ctx, doc.ID, doc.Collection, doc.Title, doc.Source, doc.Format, doc.Language, doc.Hash,
		string(meta), len(chunks), time.Now().UTC().Format(time.RFC3339), doc.Size, doc.ModTime); err != nil {
		return fmt.Errorf("couldn't store document %s: %w", doc.ID, err)
	}
	for i, c := range chunks {
		if dim > 0 && len(vecs[i]) != dim {
			return fmt.Errorf("couldn't store %s: vectors of different lengths (%d and %d)", doc.ID, dim, len(vecs[i]))
		}
		res, err := w.chunk.ExecContext(ctx, c.ID, c.Doc, c.Collection, c.Section, c.SectionPath, c.Heading, c.Text, c.File,
			c.Start, c.End, c.Hash, c.Seq, c.Page, c.PageKind, c.OCR, c.OCRConfidence, encodeVector(vecs[i]))
		if err != nil {
			return fmt.Errorf("couldn't store chunk %s: %w", c.ID, err)
		}
		rowid, _ := res.LastInsertId()
		heading, body := IndexedTerms(c, doc)
		if _, err := w.terms.ExecContext(ctx, rowid, heading, body, strings.Join(lexical.ScopeTokens(c), " ")); err != nil {
			return fmt.Errorf("couldn't index chunk %s: %w", c.ID, err)
		}
		w.totals.Chunks++
		w.totals.Heading += int64(len(strings.Fields(heading)))
		w.totals.Body += int64(len(strings.Fields(body)))
	}
	return nil
}

// addTotals counts what insert indexed into the lexical statistics, once per transaction.
func (w *docWriter) addTotals(ctx context.Context, tx *sql.Tx) error {
	if w.totals.Chunks == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE lexical_totals SET chunks = chunks + ?, heading = heading + ?, body = body + ?, stamp = random() WHERE id = 1`,
		w.totals.Chunks, w.totals.Heading, w.totals.Body); err != nil {
		return fmt.Errorf("couldn't update the lexical statistics: %w", err)
	}
	w.totals = lexical.Totals{}
	return nil
}

// bumpGeneration marks a collection changed and returns its new generation.
func bumpGeneration(ctx context.Context, tx *sql.Tx, collection string) (int, error) {
	var g int
	err := tx.QueryRowContext(ctx, `UPDATE collections SET generation = generation + 1 WHERE name = ? RETURNING generation`, collection).Scan(&g)
	if err != nil {
		return 0, fmt.Errorf("couldn't update collection %s: %w", collection, err)
	}
	return g, nil
}

// RemoveDocument deletes a document and its chunks.
func (s *Store) RemoveDocument(ctx context.Context, id string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var collection string
	err = tx.QueryRowContext(ctx, `SELECT collection FROM documents WHERE id = ?`, id).Scan(&collection)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	old, err := chunkIDsTx(ctx, tx, id)
	if err != nil {
		return false, err
	}
	if err := deleteDocumentTx(ctx, tx, id); err != nil {
		return false, err
	}
	gen, err := bumpGeneration(ctx, tx, collection)
	if err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if vs := s.loadedVectors(); vs != nil {
		vs.Apply(collection, gen, old, nil, nil)
	}
	return true, nil
}

// CollectionName is what a collection may be called: it names files in the workspace.
var CollectionName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func ensureCollection(ctx context.Context, tx *sql.Tx, name, embedder string, dim int) error {
	if !CollectionName.MatchString(name) {
		return fmt.Errorf("collection name %q: use 1 to 64 lower-case letters, digits, '-' and '_'", name)
	}
	var built string
	var builtDim int
	err := tx.QueryRowContext(ctx, `SELECT embedder, dim FROM collections WHERE name = ?`, name).Scan(&built, &builtDim)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO collections (name, embedder, dim) VALUES (?, ?, ?)`, name, embedder, dim)
		return err
	case err != nil:
		return err
	}
	recorded := builtDim
	if builtDim, err = storedDim(ctx, tx, name, builtDim); err != nil {
		return err
	}
	switch {
	case !SameEmbedder(built, embedder) || dim > 0 && builtDim > 0 && builtDim != dim:
		return &EmbedderMismatchError{Collection: name, Built: built, BuiltDim: builtDim, Asked: embedder, AskedDim: dim}
	case recorded == 0 && dim > 0:
		_, err = tx.ExecContext(ctx, `UPDATE collections SET dim = ? WHERE name = ?`, dim, name)
		return err
	}
	return nil
}

func chunkIDsTx(ctx context.Context, tx *sql.Tx, doc string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM chunks WHERE doc = ?`, doc)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func deleteDocumentTx(ctx context.Context, tx *sql.Tx, doc string) error {
	if err := removeLexicalStats(ctx, tx, "doc = ?", doc); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE doc = ?)`, doc); err != nil {
		return fmt.Errorf("couldn't remove the index of %s: %w", doc, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE doc = ?`, doc); err != nil {
		return fmt.Errorf("couldn't remove the chunks of %s: %w", doc, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, doc); err != nil {
		return fmt.Errorf("couldn't remove %s: %w", doc, err)
	}
	return nil
}

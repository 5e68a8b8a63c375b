package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/vectors"
)

// The store keeps the knowledge base in warren.db, which is the source of truth: documents,
// chunks with their text and vectors, and the analysed terms in an FTS5 index, all written
// in one transaction per document. The vector store (package kb/vectors: flat vector files and
// an HNSW graph per collection) is read from its files and rebuilt from warren.db when they are
// stale or damaged, so an interrupted ingest never leaves the two disagreeing.

var knowledgeBaseMigration = Migration{Version: 2, Name: "knowledge base", SQL: `
CREATE TABLE collections (
	name       TEXT PRIMARY KEY,
	embedder   TEXT NOT NULL,
	dim        INTEGER NOT NULL,
	generation INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE documents (
	id          TEXT PRIMARY KEY,
	collection  TEXT NOT NULL REFERENCES collections(name),
	title       TEXT NOT NULL,
	source      TEXT NOT NULL,
	format      TEXT NOT NULL,
	language    TEXT NOT NULL,
	hash        TEXT NOT NULL,
	meta        TEXT NOT NULL,
	chunks      INTEGER NOT NULL,
	ingested_at TEXT NOT NULL
);
CREATE TABLE chunks (
	rowid        INTEGER PRIMARY KEY,
	id           TEXT NOT NULL UNIQUE,
	doc          TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	collection   TEXT NOT NULL,
	section      TEXT NOT NULL,
	section_path TEXT NOT NULL,
	heading      TEXT NOT NULL,
	text         TEXT NOT NULL,
	file         TEXT NOT NULL,
	start_byte   INTEGER NOT NULL,
	end_byte     INTEGER NOT NULL,
	hash         TEXT NOT NULL,
	seq          INTEGER NOT NULL,
	vector       BLOB NOT NULL
);
CREATE INDEX documents_source ON documents(source);
CREATE INDEX chunks_doc ON chunks(doc, seq);
CREATE INDEX chunks_section ON chunks(doc, section);
CREATE INDEX chunks_collection ON chunks(collection);
CREATE VIRTUAL TABLE chunks_fts USING fts5(heading, body, scope, tokenize = 'unicode61 remove_diacritics 0');
`}

// pagesMigration records where a chunk of a paginated source lies (its page or slide) and
// whether OCR read it; chunks stored before keep 0, "" and false until their document is
// ingested again.
var pagesMigration = Migration{Version: 5, Name: "chunks name their page", SQL: `
ALTER TABLE chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN page_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN ocr_confidence REAL NOT NULL DEFAULT 0;
`}

// fileStampMigration records each document's file size and modification time, so an ingest
// finds an unchanged file from a stat, without reading it.
var fileStampMigration = Migration{Version: 6, Name: "documents keep their file's size and time", SQL: `
ALTER TABLE documents ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN mtime INTEGER NOT NULL DEFAULT 0;
`}

// Store is the knowledge base of one workspace.
type Store struct {
	db   *sql.DB
	vdir string

	// Params are the lexical ranking's settings, as every backend has them. The store reads
	// no PostingsBudget: its index in memory decides itself which postings to read.
	lexical.Params

	mu      sync.Mutex
	vectors *vectors.Store // loaded on first dense search
	lexical lexical.Cache  // the lexical index, read on first lexical search

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt // see prepared
}

// prepared returns the statement for query, prepared once for the store. Every search asks
// for the collections and the lexical statistics, and preparing those queries anew each time
// (as the driver does for a plain Query) costs more than running them.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// preparedChunkReads: Chunks prepares its statement for reads of up to this many chunks.
const preparedChunkReads = 64

// NewStore opens the knowledge base of a workspace, with the lexical ranking's settings from
// its configuration (the defaults without one).
func NewStore(ws *Workspace) *Store {
	s := &Store{db: ws.DB, vdir: ws.VectorDir(), Params: lexical.DefaultParams()}
	if c := ws.Config; c != nil {
		s.Params = LexicalParamsFrom(c)
	}
	return s
}

// VectorDir is where the vector snapshots live.
func (w *Workspace) VectorDir() string { return w.Dir + "/" + VectorDir }

// CollectionInfo describes a collection as stored.
type CollectionInfo struct {
	Name     string `json:"name"`
	Embedder string `json:"embedder"` // the ID of the embedder that built it
	// Dim is the length of its vectors: as recorded, else (a record without one) the length
	// of a stored vector; 0 for an empty collection.
	Dim        int `json:"dim"`
	Generation int `json:"generation"`
	Documents  int `json:"documents"`
	Chunks     int `json:"chunks"`
}

// collectionHead selects a collection's name, embedder, dimension and generation.
const collectionHead = `
SELECT c.name, c.embedder,
       CASE WHEN c.dim > 0 THEN c.dim
            ELSE coalesce((SELECT length(k.vector) / 4 FROM chunks k WHERE k.collection = c.name LIMIT 1), 0) END,
       c.generation`

const collectionsQuery = collectionHead + `,
       (SELECT count(*) FROM documents d WHERE d.collection = c.name),
       (SELECT coalesce(sum(chunks), 0) FROM documents d WHERE d.collection = c.name)
FROM collections c ORDER BY c.name`

// collectionHeadsQuery is collectionsQuery without the documents' counts, which read the
// documents table: enough to tell whether the vectors in memory are current, as every dense
// search asks.
const collectionHeadsQuery = collectionHead + `, 0, 0 FROM collections c ORDER BY c.name`

// searchableQuery is collectionHeadsQuery of the collections that hold chunks, found through
// the chunks' collection index rather than counted.
const searchableQuery = collectionHead + `, 0, 0
FROM collections c WHERE EXISTS (SELECT 1 FROM chunks k WHERE k.collection = c.name) ORDER BY c.name`

// Collections lists the stored collections.
func (s *Store) Collections(ctx context.Context) ([]CollectionInfo, error) {
	return s.listCollections(ctx, collectionsQuery)
}

// SearchableCollections lists the collections that hold chunks, sorted by name, without
// counting their documents and chunks (Documents and Chunks are 0). Collections counts them
// over the documents table, which at 100,000 documents took tens of milliseconds: a search
// plans with this instead.
func (s *Store) SearchableCollections(ctx context.Context) ([]CollectionInfo, error) {
	return s.listCollections(ctx, searchableQuery)
}

// collectionHeads lists the stored collections without their documents and chunks counted
// (Documents and Chunks are 0).
func (s *Store) collectionHeads(ctx context.Context) ([]CollectionInfo, error) {
	return s.listCollections(ctx, collectionHeadsQuery)
}

func (s *Store) listCollections(ctx context.Context, query string) ([]CollectionInfo, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("couldn't list collections: %w", err)
	}
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list collections: %w", err)
	}
	defer rows.Close()
	var out []CollectionInfo
	for rows.Next() {
		var c CollectionInfo
		if err := rows.Scan(&c.Name, &c.Embedder, &c.Dim, &c.Generation, &c.Documents, &c.Chunks); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Collection returns one collection, or false when it does not exist.
func (s *Store) Collection(ctx context.Context, name string) (CollectionInfo, bool, error) {
	all, err := s.Collections(ctx)
	if err != nil {
		return CollectionInfo{}, false, err
	}
	for _, c := range all {
		if c.Name == name {
			return c, true, nil
		}
	}
	return CollectionInfo{}, false, nil
}

// DocInfo describes a stored document.
type DocInfo struct {
	ID         string            `json:"id"`
	Collection string            `json:"collection"`
	Title      string            `json:"title"`
	Source     string            `json:"source"`
	Format     string            `json:"format"`
	Language   string            `json:"language"`
	Hash       string            `json:"hash"`
	Meta       map[string]string `json:"meta,omitempty"`
	Chunks     int               `json:"chunks"`
	IngestedAt string            `json:"ingested_at"`
	// Size and ModTime (Unix nanoseconds) are the file's as it was read; 0 when unknown.
	Size    int64 `json:"size,omitempty"`
	ModTime int64 `json:"mtime,omitempty"`
}

// docColumns are the columns scanDoc reads.
const docColumns = `id, collection, title, source, format, language, hash, meta, chunks, ingested_at, size, mtime`

func scanDoc(row interface{ Scan(...any) error }) (DocInfo, error) {
	var d DocInfo
	var meta string
	if err := row.Scan(&d.ID, &d.Collection, &d.Title, &d.Source, &d.Format, &d.Language, &d.Hash, &meta, &d.Chunks, &d.IngestedAt,
		&d.Size, &d.ModTime); err != nil {
		return DocInfo{}, err
	}
	json.Unmarshal([]byte(meta), &d.Meta)
	return d, nil
}

// Documents lists the stored documents, optionally of one collection.
func (s *Store) Documents(ctx context.Context, collection string) ([]DocInfo, error) {
	q := `SELECT ` + docColumns + ` FROM documents`
	var args []any
	if collection != "" {
		q += ` WHERE collection = ?`
		args = append(args, collection)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY collection, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't list documents: %w", err)
	}
	defer rows.Close()
	var out []DocInfo
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Document returns one stored document: a lookup by its key, whatever the number of
// documents (it once listed them all, and an ingest asks it for every file).
func (s *Store) Document(ctx context.Context, id string) (DocInfo, bool, error) {
	st, err := s.prepared(ctx, `SELECT `+docColumns+` FROM documents WHERE id = ?`)
	if err != nil {
		return DocInfo{}, false, fmt.Errorf("couldn't read document %s: %w", id, err)
	}
	d, err := scanDoc(st.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return DocInfo{}, false, nil
	}
	if err != nil {
		return DocInfo{}, false, fmt.Errorf("couldn't read document %s: %w", id, err)
	}
	return d, true, nil
}

// TouchDocument records a document's file size and time after an ingest found its content
// unchanged under a new time, so the next ingest finds it from a stat.
func (s *Store) TouchDocument(ctx context.Context, id string, size, mtime int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE documents SET size = ?, mtime = ? WHERE id = ?`, size, mtime, id)
	return err
}

// documentBySource finds the stored document that was loaded from a file or folder.
func (s *Store) documentBySource(ctx context.Context, source string) (string, bool, error) {
	st, err := s.prepared(ctx, `SELECT id FROM documents WHERE source = ? ORDER BY id LIMIT 1`)
	if err != nil {
		return "", false, err
	}
	var id string
	err = st.QueryRowContext(ctx, source).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

const chunkColumns = `id, doc, collection, section, section_path, heading, text, file, start_byte, end_byte, hash, seq,
page, page_kind, ocr, ocr_confidence`

func scanChunk(row interface{ Scan(...any) error }) (chunk.Chunk, error) {
	var c chunk.Chunk
	err := row.Scan(&c.ID, &c.Doc, &c.Collection, &c.Section, &c.SectionPath, &c.Heading, &c.Text, &c.File,
		&c.Start, &c.End, &c.Hash, &c.Seq, &c.Page, &c.PageKind, &c.OCR, &c.OCRConfidence)
	return c, err
}

// Chunks returns the chunks with the given IDs, in that order; unknown IDs are left out.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	query := `SELECT ` + chunkColumns + ` FROM chunks WHERE id IN (?` + strings.Repeat(",?", len(ids)-1) + `)`
	var rows *sql.Rows
	var err error
	if len(ids) <= preparedChunkReads { // the sizes searches ask for: prepared once each
		var st *sql.Stmt
		if st, err = s.prepared(ctx, query); err == nil {
			rows, err = st.QueryContext(ctx, args...)
		}
	} else {
		rows, err = s.db.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read chunks: %w", err)
	}
	defer rows.Close()
	byID := map[string]chunk.Chunk{}
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		byID[c.ID] = c
	}
	out := make([]chunk.Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

// SectionChunks returns the chunks of one section of a document, in order. A dotted section
// includes its subsections ("4" brings 4.1 and 4.2 too).
func (s *Store) SectionChunks(ctx context.Context, doc, section string) ([]chunk.Chunk, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkColumns+` FROM chunks
WHERE doc = ? AND (section = ? OR section LIKE ? ESCAPE '\') ORDER BY seq`, doc, section, likePrefix(section)+".%")
	if err != nil {
		return nil, fmt.Errorf("couldn't read section %s of %s: %w", section, doc, err)
	}
	defer rows.Close()
	var out []chunk.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DocumentChunks returns all chunks of a document in order.
func (s *Store) DocumentChunks(ctx context.Context, doc string) ([]chunk.Chunk, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkColumns+` FROM chunks WHERE doc = ? ORDER BY seq`, doc)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", doc, err)
	}
	defer rows.Close()
	var out []chunk.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func likePrefix(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// ResetCollection empties a collection built by another embedder than the given one, so it
// can be rebuilt; a collection built by that embedder is left alone.
func (s *Store) ResetCollection(ctx context.Context, name, embedder string) error {
	info, ok, err := s.Collection(ctx, name)
	if err != nil || !ok || SameEmbedder(info.Embedder, embedder) {
		return err
	}
	return s.resetCollection(ctx, name, embedder)
}

// resetCollection empties a collection and records the embedder that will rebuild it.
func (s *Store) resetCollection(ctx context.Context, name, embedder string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := removeLexicalStats(ctx, tx, "collection = ?", name); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE collection = ?)`,
		`DELETE FROM chunks WHERE collection = ?`,
		`DELETE FROM documents WHERE collection = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, name); err != nil {
			return fmt.Errorf("couldn't reset collection %s: %w", name, err)
		}
	}
	// The row stays, its generation still rising, so no older snapshot can pass for the
	// emptied collection.
	if _, err := tx.ExecContext(ctx, `UPDATE collections SET embedder = ?, dim = 0, generation = generation + 1 WHERE name = ?`, embedder, name); err != nil {
		return fmt.Errorf("couldn't reset collection %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if vs := s.loadedVectors(); vs != nil {
		vs.Drop(name)
	}
	vectors.RemoveFiles(s.vdir, name)
	return nil
}

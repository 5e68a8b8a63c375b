package kb

import (
	"context"

	"warren/kb/chunk"
	"warren/kb/load"
)

// Backend is where a knowledge base keeps its documents, chunks and vectors and how it searches
// them. The embedded Store (warren.db and the vector files of the workspace) is one; a server
// such as Weaviate (package kb/weaviatekb) is another. Ingest, search, reference resolution
// and section lookup go through this interface only, so they behave the same on either.
// Sessions, ledgers, gas tables and toxicology profiles are not part of it: they stay in
// warren.db whatever the backend.
//
// Every method is safe for concurrent use. A Backend reports collections as CollectionInfo,
// documents as DocInfo (the record of ingested files: source path and content hash), and
// search results as Hits whose IDs Chunks turns into chunks.
type Backend interface {
	// Kind names the backend as kb.backend does: "embedded" or "weaviate".
	Kind() string

	// Collections lists the stored collections, sorted by name.
	Collections(ctx context.Context) ([]CollectionInfo, error)
	// Collection returns one collection, or false when it does not exist.
	Collection(ctx context.Context, name string) (CollectionInfo, bool, error)
	// Documents lists the stored documents, optionally of one collection, sorted by
	// collection and ID.
	Documents(ctx context.Context, collection string) ([]DocInfo, error)
	// Document returns one stored document, or false.
	Document(ctx context.Context, id string) (DocInfo, bool, error)
	// DocumentBySource finds the document that was loaded from a file or folder (an
	// absolute path), so a file keeps its ID however it is given to a later ingest.
	DocumentBySource(ctx context.Context, source string) (string, bool, error)

	// ReplaceDocument stores a document with its chunks and their vectors, replacing what was
	// stored under its ID (in whatever collection). The collection is created on first use;
	// one built by another embedder or with vectors of another length is an
	// *EmbedderMismatchError. A reader never sees the document without chunks, and a write
	// that dies part-way never leaves the document recorded with its new content hash, so the
	// next ingest stores it again.
	ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vectors [][]float32, embedder string) error
	// ReplaceDocuments stores several documents as ReplaceDocument stores one, in as few
	// writes as the backend allows; an ingest of many small files hands them over so. On an
	// error none of them, or (where the backend cannot promise that) each either whole or
	// not at all, is stored; the ingest then stores them one by one to tell which failed.
	ReplaceDocuments(ctx context.Context, writes []DocumentWrite, embedder string) error
	// TouchDocument records the size and modification time (Unix nanoseconds) of a
	// document's file, found unchanged in content, so the next ingest finds it from a stat.
	TouchDocument(ctx context.Context, id string, size, mtime int64) error
	// RemoveDocument deletes a document and its chunks; false when there was none.
	RemoveDocument(ctx context.Context, id string) (bool, error)
	// ResetCollection empties a collection built by another embedder than the given one, so
	// it can be rebuilt; a collection built by that embedder is left alone.
	ResetCollection(ctx context.Context, name, embedder string) error
	// EmptyCollection empties a collection whatever built it and records the embedder that
	// will rebuild it.
	EmptyCollection(ctx context.Context, name, embedder string) error

	// Chunks returns the chunks with the given IDs, in that order; unknown IDs are left out.
	Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error)
	// DocumentChunks returns all chunks of a document in order.
	DocumentChunks(ctx context.Context, doc string) ([]chunk.Chunk, error)
	// SectionChunks returns the chunks of one section of a document in order; a dotted
	// section includes its subsections ("4" brings 4.1 and 4.2 too).
	SectionChunks(ctx context.Context, doc, section string) ([]chunk.Chunk, error)
	// DocumentVectors returns the stored vectors of a document's chunks, in chunk order (as
	// DocumentChunks), so a knowledge base can be copied without embedding again.
	DocumentVectors(ctx context.Context, doc string) ([][]float32, error)

	// Lexical ranks chunks in scope by warren's BM25 over their analysed terms, with
	// pseudo-relevance feedback (see Store.Lexical); lang is the query's language, "" when
	// unknown.
	Lexical(ctx context.Context, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error)
	// Dense ranks chunks in scope by cosine similarity to a query vector (the score). A
	// collection whose vectors have another length is an *EmbedderMismatchError.
	Dense(ctx context.Context, vector []float32, scope chunk.Scope, k int) ([]chunk.Hit, error)

	// Prepare readies the backend for a long write (the embedded one loads its vectors
	// before the first document, not in the middle of an ingest).
	Prepare(ctx context.Context) error
	// Flush makes what was written durable and fast to search again (the embedded one writes
	// its vector snapshots); it is called after an ingest, also a cancelled one.
	Flush(ctx context.Context) error
}

// Backend kinds, as kb.backend names them.
const (
	BackendEmbedded = "embedded"
	BackendWeaviate = "weaviate"
)

var _ Backend = (*Store)(nil)

// Kind is "embedded": warren.db and the workspace's vector files.
func (s *Store) Kind() string { return BackendEmbedded }

// DocumentBySource finds the stored document that was loaded from a file or folder.
func (s *Store) DocumentBySource(ctx context.Context, source string) (string, bool, error) {
	return s.documentBySource(ctx, source)
}

// EmptyCollection empties a collection and records the embedder that will rebuild it.
func (s *Store) EmptyCollection(ctx context.Context, name, embedder string) error {
	return s.resetCollection(ctx, name, embedder)
}

// DocumentVectors returns the vectors of a document's chunks in chunk order.
func (s *Store) DocumentVectors(ctx context.Context, doc string) ([][]float32, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT vector FROM chunks WHERE doc = ? ORDER BY seq`, doc)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]float32
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&blob); err != nil {
			return nil, err
		}
		out = append(out, decodeVector(blob))
	}
	return out, rows.Err()
}

// Prepare loads the vector store, so an ingest keeps it current as it writes.
func (s *Store) Prepare(ctx context.Context) error {
	_, err := s.vectorStore(ctx)
	return err
}

// Flush writes the vector snapshots of what changed.
func (s *Store) Flush(ctx context.Context) error { return s.SaveVectors(ctx) }

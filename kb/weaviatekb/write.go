package weaviatekb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// batchSize is how many objects one batch write carries.
const batchSize = 256

// writeConsistency is what a write waits for: a quorum of a class's replicas, so a write that
// returns is on most of them and a node that was down catches up from the others.
const writeConsistency = "QUORUM"

// put writes objects, replacing those with the same IDs.
func (b *Backend) put(ctx context.Context, objs []*models.Object) error {
	for start := 0; start < len(objs); start += batchSize {
		batch := objs[start:min(start+batchSize, len(objs))]
		res, err := b.client.Batch().ObjectsBatcher().WithObjects(batch...).WithConsistencyLevel(writeConsistency).Do(ctx)
		if err != nil {
			return fmt.Errorf("couldn't write to Weaviate: %w", err)
		}
		for _, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("couldn't write %s %s to Weaviate: %s", r.Class, r.ID, r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

// deleteWhere deletes the objects of a class that a filter selects.
func (b *Backend) deleteWhere(ctx context.Context, class string, where *filters.WhereBuilder) error {
	res, err := b.client.Batch().ObjectsBatchDeleter().WithClassName(class).WithWhere(where).
		WithConsistencyLevel(writeConsistency).WithOutput("minimal").Do(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "404") || strings.Contains(strings.ToLower(err.Error()), "could not find class") {
			return nil // nothing to delete in a class that does not exist
		}
		return fmt.Errorf("couldn't delete from %s: %w", class, err)
	}
	if res != nil && res.Results != nil && res.Results.Failed > 0 {
		return fmt.Errorf("couldn't delete %d objects from %s", res.Results.Failed, class)
	}
	return nil
}

func whereText(path string, op filters.WhereOperator, value string) *filters.WhereBuilder {
	return filters.Where().WithPath([]string{path}).WithOperator(op).WithValueText(value)
}

func collectionObj(b *Backend, c collectionObject) *models.Object {
	return &models.Object{Class: b.collectionClass(), ID: strfmt.UUID(objectID("collection", c.Name)),
		Properties: map[string]any{"name": c.Name, "embedder": c.Embedder, "dim": c.Dim, "generation": c.Generation, "version": c.Version}}
}

// documentObj is a document's record; terms is its term_chunks (termtable.go), "" while the
// document is being rewritten or removed.
func documentObj(b *Backend, d *load.Document, chunks int, hash, terms string) *models.Object {
	meta, _ := json.Marshal(d.Meta)
	return &models.Object{Class: b.documentClass(), ID: strfmt.UUID(objectID("document", d.ID)),
		Properties: map[string]any{"doc_id": d.ID, "collection": d.Collection, "source": d.Source, "title": d.Title,
			"format": d.Format, "language": d.Language, "hash": hash, "meta": string(meta), "chunks": chunks,
			"ingested_at": time.Now().UTC().Format(time.RFC3339), "term_chunks": terms}}
}

// ensureCollection returns a collection's object as the write should store it: new on first
// use, its vector length set once known. It creates the chunk class and checks that the
// collection was built by the same embedder with vectors of the same length; the caller
// writes the object (with the write's version).
func (b *Backend) ensureCollection(ctx context.Context, name, embedder string, dim int) (collectionObject, error) {
	if !kb.CollectionName.MatchString(name) {
		return collectionObject{}, fmt.Errorf("collection name %q: use 1 to 64 lower-case letters, digits, '-' and '_'", name)
	}
	c, ok, err := b.collection(ctx, name)
	if err != nil {
		return c, err
	}
	if err := b.ensureChunkClass(ctx, name); err != nil {
		return c, err
	}
	switch {
	case !ok:
		c = collectionObject{Name: name, Embedder: embedder, Dim: dim}
	case !kb.SameEmbedder(c.Embedder, embedder) || dim > 0 && c.Dim > 0 && c.Dim != dim:
		return c, &kb.EmbedderMismatchError{Collection: name, Built: c.Embedder, BuiltDim: c.Dim, Asked: embedder, AskedDim: dim}
	case c.Dim == 0 && dim > 0:
		c.Dim = dim
	}
	return c, nil
}

// ReplaceDocument stores a document with its chunks and vectors, replacing what was stored
// under its ID. Weaviate has no transactions, so the writes go in an order that a reader and
// a resumed ingest can live with: the collection is marked as being written (cache.go) and
// the old record loses its content hash (so an ingest after a crash stores the document
// again), the new chunks replace the old ones with the same IDs (a new document's mark goes
// with its first chunks), the chunks left over from a longer old version go, and the record
// with the new hash is written last, with the collection's new version.
func (b *Backend) ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vectors [][]float32, embedder string) error {
	if len(chunks) != len(vectors) {
		return fmt.Errorf("couldn't store %s: %d chunks but %d vectors", doc.ID, len(chunks), len(vectors))
	}
	dim := 0
	if len(vectors) > 0 {
		dim = len(vectors[0])
	}
	for _, v := range vectors {
		if len(v) != dim {
			return fmt.Errorf("couldn't store %s: vectors of different lengths (%d and %d)", doc.ID, dim, len(v))
		}
	}
	col, err := b.ensureCollection(ctx, doc.Collection, embedder, dim)
	if err != nil {
		return err
	}
	old, existed, err := b.Document(ctx, doc.ID)
	if err != nil {
		return err
	}
	b.cache.invalidate()
	defer b.cache.invalidate()
	col.Version = newVersion(true)
	marked := collectionObj(b, col)
	var objs []*models.Object
	if existed && old.Hash != "" {
		stale := *doc
		stale.Collection, stale.Source = old.Collection, old.Source
		if err := b.put(ctx, []*models.Object{marked, documentObj(b, &stale, old.Chunks, "", "")}); err != nil {
			return err
		}
	} else {
		objs = append(objs, marked) // a new document: the mark goes with its first chunks
	}
	class := b.chunkClass(doc.Collection)
	order := b.nextOrder()
	terms := make([][2]string, len(chunks))
	for i, c := range chunks {
		heading, body := lexical.IndexedTerms(c, doc.Language)
		terms[i] = [2]string{heading, body}
		props := chunkObjectProperties(c)
		props["ingest_order"] = float64(order + int64(c.Seq))
		props["heading_terms"], props["body_terms"] = heading, body
		props["heading_len"], props["body_len"] = lexical.CountTerms(heading), lexical.CountTerms(body)
		objs = append(objs, &models.Object{Class: class, ID: strfmt.UUID(objectID("chunk", c.ID)), Vector: vectors[i], Properties: props})
	}
	if err := b.put(ctx, objs); err != nil {
		return fmt.Errorf("couldn't store the chunks of %s: %w", doc.ID, err)
	}
	keep := make(map[string]bool, len(chunks))
	for _, c := range chunks {
		keep[c.ID] = true
	}
	if err := b.deleteStaleChunks(ctx, doc.ID, doc.Collection, keep); err != nil {
		return err
	}
	col.Version = newVersion(false)
	if err := b.put(ctx, []*models.Object{documentObj(b, doc, len(chunks), doc.Hash, termChunks(terms)), collectionObj(b, col)}); err != nil {
		return fmt.Errorf("couldn't record %s: %w", doc.ID, err)
	}
	return nil
}

// chunkObjectProperties are the properties of a chunk's object that a read gives back (see
// chunkPropertyList and chunkObject), and the sections it is found under.
func chunkObjectProperties(c chunk.Chunk) map[string]any {
	return map[string]any{
		"chunk_id": c.ID, "doc": c.Doc, "collection": c.Collection, "section": c.Section,
		"sections": chunk.SectionScopes(c.Section), "section_path": c.SectionPath, "heading": c.Heading,
		"text": c.Text, "file": c.File, "start_byte": c.Start, "end_byte": c.End, "hash": c.Hash, "seq": c.Seq,
		"page": c.Page, "page_kind": c.PageKind, "ocr": c.OCR, "ocr_confidence": c.OCRConfidence,
	}
}

// deleteStaleChunks deletes a document's chunks that are not in keep, and all of them outside
// its collection (where an earlier version was stored).
func (b *Backend) deleteStaleChunks(ctx context.Context, doc, collection string, keep map[string]bool) error {
	cols, err := b.collections(ctx)
	if err != nil {
		return err
	}
	classes := make([]string, len(cols))
	for i, c := range cols {
		classes[i] = b.chunkClass(c.Name)
	}
	stored, err := b.chunksWhere(ctx, classes, equal("doc", doc), false)
	if err != nil {
		return err
	}
	for _, class := range classes {
		var gone []string
		for _, c := range stored {
			if b.chunkClass(c.Collection) == class && (c.Collection != collection || !keep[c.ChunkID]) {
				gone = append(gone, c.ChunkID)
			}
		}
		if len(gone) == 0 {
			continue
		}
		where := filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(gone...)
		if err := b.deleteWhere(ctx, class, where); err != nil {
			return err
		}
	}
	return nil
}

// RemoveDocument deletes a document and its chunks: the record loses its hash first (and the
// collection is marked as being written), so a removal that dies part-way is finished by the
// next ingest or removal.
func (b *Backend) RemoveDocument(ctx context.Context, id string) (bool, error) {
	old, ok, err := b.Document(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	col, colFound, err := b.collection(ctx, old.Collection)
	if err != nil {
		return false, err
	}
	b.cache.invalidate()
	defer b.cache.invalidate()
	doc := &load.Document{ID: old.ID, Collection: old.Collection, Title: old.Title, Source: old.Source,
		Format: old.Format, Language: old.Language, Meta: old.Meta}
	first := []*models.Object{documentObj(b, doc, old.Chunks, "", "")}
	if colFound {
		col.Version = newVersion(true)
		first = append(first, collectionObj(b, col))
	}
	if err := b.put(ctx, first); err != nil {
		return false, err
	}
	if err := b.deleteStaleChunks(ctx, id, "", nil); err != nil {
		return false, err
	}
	if err := b.deleteWhere(ctx, b.documentClass(), whereText("doc_id", filters.Equal, id)); err != nil {
		return false, err
	}
	if colFound {
		col.Version = newVersion(false)
		if err := b.put(ctx, []*models.Object{collectionObj(b, col)}); err != nil {
			return false, err
		}
	}
	return true, nil
}

// ResetCollection empties a collection built by another embedder than the given one.
func (b *Backend) ResetCollection(ctx context.Context, name, embedder string) error {
	c, ok, err := b.collection(ctx, name)
	if err != nil || !ok || kb.SameEmbedder(c.Embedder, embedder) {
		return err
	}
	return b.EmptyCollection(ctx, name, embedder)
}

// EmptyCollection drops a collection's chunks and documents and records the embedder that
// will rebuild it.
func (b *Backend) EmptyCollection(ctx context.Context, name, embedder string) error {
	c, found, err := b.collection(ctx, name)
	if err != nil {
		return err
	}
	b.cache.invalidate()
	defer b.cache.invalidate()
	if found {
		c.Version = newVersion(true)
		if err := b.put(ctx, []*models.Object{collectionObj(b, c)}); err != nil {
			return err
		}
	}
	class := b.chunkClass(name)
	if err := b.client.Schema().ClassDeleter().WithClassName(class).Do(ctx); err != nil &&
		!strings.Contains(strings.ToLower(err.Error()), "not found") && !strings.Contains(err.Error(), "404") {
		return fmt.Errorf("couldn't empty collection %s: %w", name, err)
	}
	b.mu.Lock()
	delete(b.classes, class)
	b.mu.Unlock()
	if err := b.deleteWhere(ctx, b.documentClass(), whereText("collection", filters.Equal, name)); err != nil {
		return err
	}
	if err := b.ensureChunkClass(ctx, name); err != nil {
		return err
	}
	return b.put(ctx, []*models.Object{collectionObj(b, collectionObject{Name: name, Embedder: embedder, Generation: c.Generation + 1,
		Version: newVersion(false)})})
}

package weaviatekb

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
)

// batchSize is how many objects one batch write carries, and batchBytes about how many bytes
// at most (REST sends vectors as JSON text; the server's gRPC messages stop at 100 MB), so a
// batch of many documents with long texts or vectors still goes through.
const (
	batchSize  = 256
	batchBytes = 16 << 20
)

// writeConsistency is what a write waits for: a quorum of a class's replicas, so a write that
// returns is on most of them and a node that was down catches up from the others.
const writeConsistency = "QUORUM"

// put writes objects, replacing those with the same IDs, in batches of at most batchSize
// objects and about batchBytes.
func (b *Backend) put(ctx context.Context, objs []*models.Object) error {
	for start := 0; start < len(objs); {
		end, bytes := start, 0
		for end < len(objs) && end-start < batchSize {
			n := objectBytes(objs[end])
			if end > start && bytes+n > batchBytes {
				break
			}
			bytes += n
			end++
		}
		batch := objs[start:end]
		start = end
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

// objectBytes estimates how much of a request an object takes: its texts, about 12 bytes a
// vector component as JSON, and a little for the rest.
func objectBytes(o *models.Object) int {
	n := 200 + 12*len(o.Vector)
	if props, ok := o.Properties.(map[string]any); ok {
		for k, v := range props {
			n += len(k) + 8
			switch v := v.(type) {
			case string:
				n += len(v)
			case []string:
				for _, s := range v {
					n += len(s) + 3
				}
			}
		}
	}
	return n
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

// documentObj is a document's record; terms is its term_chunks (termtable.go) and lengths its
// length_sums (lengths.go), "" while the document is being rewritten or removed.
func documentObj(b *Backend, d *load.Document, chunks int, hash, terms, lengths string) *models.Object {
	meta, _ := json.Marshal(d.Meta)
	return &models.Object{Class: b.documentClass(), ID: strfmt.UUID(objectID("document", d.ID)),
		Properties: map[string]any{"doc_id": d.ID, "collection": d.Collection, "source": d.Source, "title": d.Title,
			"format": d.Format, "language": d.Language, "hash": hash, "meta": string(meta), "chunks": chunks,
			"ingested_at": time.Now().UTC().Format(time.RFC3339), "term_chunks": terms, "length_sums": lengths,
			"size": strconv.FormatInt(d.Size, 10), "mtime": strconv.FormatInt(d.ModTime, 10)}}
}

// clearedObj is the record of a document being rewritten: without its content hash, and
// without the file's size and time, so no ingest takes it for unchanged, from its content or
// from a stat, until the record with the new hash is written. It keeps the collection and
// source it was stored under.
func clearedObj(b *Backend, d *load.Document, old kb.DocInfo) *models.Object {
	stale := *d
	stale.Collection, stale.Source, stale.Size, stale.ModTime = old.Collection, old.Source, 0, 0
	return documentObj(b, &stale, old.Chunks, "", "", "")
}

// checkCollection returns a collection's object as a write should store it: new on first
// use, its vector length set once known. It checks that the collection was built by the same
// embedder with vectors of the same length; the caller writes the object (with the write's
// version).
func checkCollection(c collectionObject, found bool, name, embedder string, dim int) (collectionObject, error) {
	if !kb.CollectionName.MatchString(name) {
		return c, fmt.Errorf("collection name %q: use 1 to 64 lower-case letters, digits, '-' and '_'", name)
	}
	switch {
	case !found:
		c = collectionObject{Name: name, Embedder: embedder, Dim: dim}
	case !kb.SameEmbedder(c.Embedder, embedder) || dim > 0 && c.Dim > 0 && c.Dim != dim:
		return c, &kb.EmbedderMismatchError{Collection: name, Built: c.Embedder, BuiltDim: c.Dim, Asked: embedder, AskedDim: dim}
	case c.Dim == 0 && dim > 0:
		c.Dim = dim
	}
	return c, nil
}

// ReplaceDocument stores a document with its chunks and vectors, replacing what was stored
// under its ID: a batch of one (batch.go). Weaviate has no transactions, so the writes go in
// an order that a reader and a resumed ingest can live with: the collection is marked as
// being written (cache.go) and the old record loses its content hash (so an ingest after a
// crash stores the document again), the new chunks replace the old ones with the same IDs (a
// new document's mark goes with its first chunks), the chunks left over from a longer old
// version go, and the record with the new hash is written last, with the collection's new
// version.
func (b *Backend) ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vectors [][]float32, embedder string) error {
	return b.ReplaceDocuments(ctx, []kb.DocumentWrite{{Doc: doc, Chunks: chunks, Vectors: vectors}}, embedder)
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

// deleteLeftovers deletes the chunks of the given documents (ID → the collection that holds
// them now, "" for none) that are not in keep, and all of them outside that collection (where
// an earlier version was stored), looking in the given classes: one read of their IDs for all
// the documents, and one delete per class that holds leftovers.
func (b *Backend) deleteLeftovers(ctx context.Context, classes []string, docs map[string]string, keep map[string]bool) error {
	if len(docs) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(docs))
	where := equal("doc", ids[0])
	if len(ids) > 1 {
		where = containsAny("doc", ids)
	}
	stored, err := b.chunkPropsWhere(ctx, classes, where, "chunk_id doc collection")
	if err != nil {
		return err
	}
	gone := map[string][]string{}
	for _, c := range stored {
		if now, ok := docs[c.Doc]; ok && (c.Collection != now || !keep[c.ChunkID]) {
			class := b.chunkClass(c.Collection)
			gone[class] = append(gone[class], c.ChunkID)
		}
	}
	for _, class := range slices.Sorted(maps.Keys(gone)) {
		ids := gone[class]
		for start := 0; start < len(ids); start += pageSize {
			where := filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).
				WithValueText(ids[start:min(start+pageSize, len(ids))]...)
			if err := b.deleteWhere(ctx, class, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkClasses are the chunk classes of the collections.
func (b *Backend) chunkClasses(cols []collectionObject) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = b.chunkClass(c.Name)
	}
	return out
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
	first := []*models.Object{documentObj(b, doc, old.Chunks, "", "", "")}
	if colFound {
		col.Version = newVersion(true)
		first = append(first, collectionObj(b, col))
	}
	if err := b.put(ctx, first); err != nil {
		return false, err
	}
	cols, err := b.collections(ctx)
	if err != nil {
		return false, err
	}
	if err := b.deleteLeftovers(ctx, b.chunkClasses(cols), map[string]string{id: ""}, nil); err != nil {
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

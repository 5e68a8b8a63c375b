package weaviatekb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb"
	"warren/kb/lexical"
)

// ReplaceDocuments stores several documents as ReplaceDocument stores one, with the same
// order of writes, each step for all of them at once in batch requests (put splits them by
// batchSize and batchBytes): the collections written to are marked as being written and the
// records of the old versions lose their hashes (one batch), all the new chunks are written,
// the chunks left over from the old versions go (one read of their IDs, one delete per class
// that holds some), and the records with the new hashes are written last, with the
// collections' new versions. N small documents so cost a handful of requests, not several
// each. Weaviate has no transactions: a batch that fails part-way leaves each document whole
// (its record has the new hash, which is written after its chunks) or recorded without a
// hash, which the next ingest stores again.
func (b *Backend) ReplaceDocuments(ctx context.Context, writes []kb.DocumentWrite, embedder string) error {
	if len(writes) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(writes))
	for i, w := range writes {
		if seen[w.Doc.ID] {
			// The same document twice: stored in turn, so the later one wins, as in the
			// embedded store.
			if err := b.ReplaceDocuments(ctx, writes[:i], embedder); err != nil {
				return err
			}
			return b.ReplaceDocuments(ctx, writes[i:], embedder)
		}
		seen[w.Doc.ID] = true
	}
	dims, err := collectionDims(writes)
	if err != nil {
		return err
	}
	cols, err := b.collections(ctx)
	if err != nil {
		return err
	}
	stored := make(map[string]collectionObject, len(cols))
	for _, c := range cols {
		stored[c.Name] = c
	}
	// Every collection is checked before anything is created or written.
	var targets []collectionObject
	for _, name := range slices.Sorted(maps.Keys(dims)) {
		c, found := stored[name]
		c, err := checkCollection(c, found, name, embedder, dims[name])
		if err != nil {
			return err
		}
		targets = append(targets, c)
	}
	for _, c := range targets {
		if err := b.ensureChunkClass(ctx, c.Name); err != nil {
			return err
		}
	}
	old, err := b.documentsByID(ctx, slices.Collect(maps.Keys(seen)))
	if err != nil {
		return err
	}

	b.cache.invalidate()
	defer b.cache.invalidate()
	p := b.planBatch(writes, targets, old)
	chunks := p.chunks
	if len(p.cleared) > 0 {
		if err := b.put(ctx, slices.Concat(p.marks, p.cleared)); err != nil {
			return err
		}
	} else {
		chunks = slices.Concat(p.marks, chunks) // only new documents: the marks go with the first chunks
	}
	if err := b.put(ctx, chunks); err != nil {
		return fmt.Errorf("couldn't store the chunks of %s: %w", docIDs(writes), err)
	}
	// Leftovers may be in any collection (a document moved, or a write that died before its
	// record), and in a collection this write created.
	classes := b.chunkClasses(cols)
	for _, c := range targets {
		if _, ok := stored[c.Name]; !ok {
			classes = append(classes, b.chunkClass(c.Name))
		}
	}
	for _, group := range leftoverGroups(writes, old) {
		if err := b.deleteLeftovers(ctx, classes, group, p.keep); err != nil {
			return err
		}
	}
	if err := b.put(ctx, p.records); err != nil {
		return fmt.Errorf("couldn't record %s: %w", docIDs(writes), err)
	}
	return nil
}

// batchPlan is what a batch writes, step by step.
type batchPlan struct {
	marks   []*models.Object // the collections written to, marked as being written
	cleared []*models.Object // the records of stored versions, without their hashes
	chunks  []*models.Object // the new chunks
	records []*models.Object // the new records with their hashes, then the collections' new versions
	keep    map[string]bool  // the IDs of the new chunks
}

// planBatch builds the objects of a batch's writes; old holds the stored records.
func (b *Backend) planBatch(writes []kb.DocumentWrite, targets []collectionObject, old map[string]kb.DocInfo) batchPlan {
	p := batchPlan{keep: map[string]bool{}}
	for _, c := range targets {
		c.Version = newVersion(true)
		p.marks = append(p.marks, collectionObj(b, c))
	}
	for _, w := range writes {
		doc := w.Doc
		if o, ok := old[doc.ID]; ok && o.Hash != "" {
			p.cleared = append(p.cleared, clearedObj(b, doc, o))
		}
		class := b.chunkClass(doc.Collection)
		order := b.nextOrder()
		terms := make([][2]string, len(w.Chunks))
		for i, c := range w.Chunks {
			heading, body := kb.IndexedTerms(c, doc)
			terms[i] = [2]string{heading, body}
			props := chunkObjectProperties(c)
			props["ingest_order"] = float64(order + int64(c.Seq))
			props["heading_terms"], props["body_terms"] = heading, body
			props["heading_len"], props["body_len"] = lexical.CountTerms(heading), lexical.CountTerms(body)
			p.chunks = append(p.chunks, &models.Object{Class: class, ID: strfmt.UUID(objectID("chunk", c.ID)), Vector: w.Vectors[i], Properties: props})
			p.keep[c.ID] = true
		}
		p.records = append(p.records, documentObj(b, doc, len(w.Chunks), doc.Hash, termChunks(terms), lengthSumsText(terms)))
	}
	for _, c := range targets {
		c.Version = newVersion(false)
		p.records = append(p.records, collectionObj(b, c))
	}
	return p
}

// collectionDims checks each write's vectors and returns the vector length of each collection
// written to (0 while none of its documents has chunks).
func collectionDims(writes []kb.DocumentWrite) (map[string]int, error) {
	dims := map[string]int{}
	for _, w := range writes {
		doc := w.Doc
		if len(w.Chunks) != len(w.Vectors) {
			return nil, fmt.Errorf("couldn't store %s: %d chunks but %d vectors", doc.ID, len(w.Chunks), len(w.Vectors))
		}
		dim := 0
		if len(w.Vectors) > 0 {
			dim = len(w.Vectors[0])
		}
		for _, v := range w.Vectors {
			if len(v) != dim {
				return nil, fmt.Errorf("couldn't store %s: vectors of different lengths (%d and %d)", doc.ID, dim, len(v))
			}
		}
		if have := dims[doc.Collection]; have > 0 && dim > 0 && have != dim {
			return nil, fmt.Errorf("couldn't store %s: vectors of %d dimensions beside others of %d in collection %s", doc.ID, dim, have, doc.Collection)
		}
		if dim > 0 || dims[doc.Collection] == 0 {
			dims[doc.Collection] = dim
		}
	}
	return dims, nil
}

// documentsByID reads the stored records of documents, a read per pageSize of them.
func (b *Backend) documentsByID(ctx context.Context, ids []string) (map[string]kb.DocInfo, error) {
	out := make(map[string]kb.DocInfo, len(ids))
	for start := 0; start < len(ids); start += pageSize {
		group := ids[start:min(start+pageSize, len(ids))]
		docs, err := b.documentsWhere(ctx, "doc_id", group, len(group))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out[d.ID] = d
		}
	}
	return out, nil
}

// leftoverChunks bounds the chunks, new and old, that one read for leftovers may meet in a
// class: a filtered read ends at maxResults.
const leftoverChunks = maxResults / 2

// leftoverGroups splits the documents for the reads of their leftovers (ID → the collection
// that holds them now), so that each read meets at most about leftoverChunks chunks, counted
// from the new chunks and the chunks the old records name; a larger document has a read of
// its own.
func leftoverGroups(writes []kb.DocumentWrite, old map[string]kb.DocInfo) []map[string]string {
	var groups []map[string]string
	group, n := map[string]string{}, 0
	for _, w := range writes {
		size := len(w.Chunks) + old[w.Doc.ID].Chunks
		if len(group) > 0 && n+size > leftoverChunks {
			groups = append(groups, group)
			group, n = map[string]string{}, 0
		}
		group[w.Doc.ID] = w.Doc.Collection
		n += size
	}
	return append(groups, group)
}

// docIDs names the documents of a batch in an error.
func docIDs(writes []kb.DocumentWrite) string {
	if len(writes) == 1 {
		return writes[0].Doc.ID
	}
	return fmt.Sprintf("%s and %d more documents", writes[0].Doc.ID, len(writes)-1)
}

// TouchDocument records the size and modification time of a document's file in its record,
// changing nothing else (a merge of the two properties). A document that is not stored is
// left alone, as in the embedded store.
func (b *Backend) TouchDocument(ctx context.Context, id string, size, mtime int64) error {
	err := b.client.Data().Updater().WithMerge().WithClassName(b.documentClass()).WithID(objectID("document", id)).
		WithProperties(map[string]any{"size": strconv.FormatInt(size, 10), "mtime": strconv.FormatInt(mtime, 10)}).
		WithConsistencyLevel(writeConsistency).Do(ctx)
	var werr *fault.WeaviateClientError
	if errors.As(err, &werr) && werr.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("couldn't record the file of %s: %w", id, err)
	}
	return nil
}

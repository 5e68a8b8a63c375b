package weaviatekb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"

	"warren/kb"
	"warren/kb/chunk"
)

// pageSize is how many objects one read asks for; Weaviate answers at most 10,000 per query
// (QUERY_MAXIMUM_RESULTS), and lists longer than that are read page by page with a cursor.
const pageSize = 1000

// maxResults is Weaviate's default QUERY_MAXIMUM_RESULTS: offset + limit of one filtered read.
const maxResults = 10_000

type collectionObject struct {
	Name       string `json:"name"`
	Embedder   string `json:"embedder"`
	Dim        int    `json:"dim"`
	Generation int    `json:"generation"`
	Version    string `json:"version"` // changes with every write (cache.go)
}

type documentObject struct {
	DocID      string `json:"doc_id"`
	Collection string `json:"collection"`
	Source     string `json:"source"`
	Title      string `json:"title"`
	Format     string `json:"format"`
	Language   string `json:"language"`
	Hash       string `json:"hash"`
	Meta       string `json:"meta"`
	Chunks     int    `json:"chunks"`
	IngestedAt string `json:"ingested_at"`
	// The file's size and time as decimal texts: GraphQL gives no int beyond 32 bits, and
	// Weaviate keeps a number as a float64, which would round nanoseconds. Null (0) in records
	// written before they existed.
	Size       string `json:"size"`
	ModTime    string `json:"mtime"`
	Additional struct {
		ID string `json:"id"`
	} `json:"_additional"`
}

func (d documentObject) info() kb.DocInfo {
	info := kb.DocInfo{ID: d.DocID, Collection: d.Collection, Title: d.Title, Source: d.Source, Format: d.Format,
		Language: d.Language, Hash: d.Hash, Chunks: d.Chunks, IngestedAt: d.IngestedAt}
	json.Unmarshal([]byte(d.Meta), &info.Meta)
	info.Size, _ = strconv.ParseInt(d.Size, 10, 64)
	info.ModTime, _ = strconv.ParseInt(d.ModTime, 10, 64)
	return info
}

type chunkObject struct {
	ChunkID     string `json:"chunk_id"`
	Doc         string `json:"doc"`
	Collection  string `json:"collection"`
	Section     string `json:"section"`
	SectionPath string `json:"section_path"`
	Heading     string `json:"heading"`
	Text        string `json:"text"`
	File        string `json:"file"`
	StartByte   int    `json:"start_byte"`
	EndByte     int    `json:"end_byte"`
	Hash        string `json:"hash"`
	Seq         int    `json:"seq"`
	// The page properties are null in objects written before they existed.
	Page          int     `json:"page"`
	PageKind      string  `json:"page_kind"`
	OCR           bool    `json:"ocr"`
	OCRConfidence float64 `json:"ocr_confidence"`
	Additional    struct {
		Vector   []float32 `json:"vector"`
		Distance float64   `json:"distance"`
		Score    string    `json:"score"`
	} `json:"_additional"`
}

func (c chunkObject) chunk() chunk.Chunk {
	return chunk.Chunk{ID: c.ChunkID, Doc: c.Doc, Collection: c.Collection, Section: c.Section, SectionPath: c.SectionPath,
		Heading: c.Heading, Text: c.Text, File: c.File, Start: c.StartByte, End: c.EndByte, Hash: c.Hash, Seq: c.Seq,
		Page: c.Page, PageKind: c.PageKind, OCR: c.OCR, OCRConfidence: c.OCRConfidence}
}

// chunkObjectOf reads a chunk from the properties of a gRPC search result.
func chunkObjectOf(p map[string]any) chunkObject {
	return chunkObject{ChunkID: textProp(p, "chunk_id"), Doc: textProp(p, "doc"),
		Collection: textProp(p, "collection"), Section: textProp(p, "section"), SectionPath: textProp(p, "section_path"),
		Heading: textProp(p, "heading"), Text: textProp(p, "text"), File: textProp(p, "file"),
		StartByte: intProp(p, "start_byte"), EndByte: intProp(p, "end_byte"), Hash: textProp(p, "hash"), Seq: intProp(p, "seq"),
		Page: intProp(p, "page"), PageKind: textProp(p, "page_kind"), OCR: boolProp(p, "ocr"), OCRConfidence: numberProp(p, "ocr_confidence")}
}

// getAll reads every object of a class, page by page with Weaviate's cursor.
func getAll[T any](ctx context.Context, b *Backend, class, props string, keep func(T) bool) ([]T, error) {
	var out []T
	err := eachObject(ctx, b, class, props, pageSize, func(v T) error {
		if keep == nil || keep(v) {
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// eachObject reads every object of a class, page by page with Weaviate's cursor, and hands
// each to fn; the first error stops it.
func eachObject[T any](ctx context.Context, b *Backend, class, props string, page int, fn func(T) error) error {
	after := ""
	for {
		args := fmt.Sprintf("limit: %d", page)
		if after != "" {
			args += ", after: " + quote(after)
		}
		var data struct {
			Get map[string][]json.RawMessage
		}
		if err := b.graphQL(ctx, fmt.Sprintf(`{ Get { %s(%s) { %s _additional { id } } } }`, class, args, props), &data); err != nil {
			return err
		}
		objs := data.Get[class]
		for _, raw := range objs {
			var v T
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			if err := fn(v); err != nil {
				return err
			}
		}
		if len(objs) < page {
			return nil
		}
		var last struct {
			Additional struct {
				ID string `json:"id"`
			} `json:"_additional"`
		}
		json.Unmarshal(objs[len(objs)-1], &last)
		after = last.Additional.ID
	}
}

// collectionProperties are the properties of a collection object.
var collectionProperties = []string{"name", "embedder", "dim", "generation", "version"}

// listCollections reads the collection objects, sorted by name, and records the list as seen
// (cache.go).
func (b *Backend) listCollections(ctx context.Context) (*snapshot, error) {
	start := time.Now()
	var cols []collectionObject
	var err error
	if b.rpc != nil {
		cols, err = b.collectionsRPC(ctx)
	} else {
		cols, err = getAll[collectionObject](ctx, b, b.collectionClass(), strings.Join(collectionProperties, " "), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't list collections: %w", err)
	}
	slices.SortFunc(cols, func(a, c collectionObject) int { return cmp.Compare(a.Name, c.Name) })
	s := newSnapshot(cols)
	b.cache.observe(s, start)
	return s, nil
}

// collectionsRPC reads the collection objects over gRPC, page by page.
func (b *Backend) collectionsRPC(ctx context.Context) ([]collectionObject, error) {
	var out []collectionObject
	after := ""
	for {
		page, err := b.search(ctx, b.collectionClass(), pageSize, collectionProperties, &graphql.Metadata{ID: true}, func(s *graphql.Search) {
			if after != "" {
				s.WithAfter(after)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, r := range page {
			out = append(out, collectionObject{Name: textProp(r.Properties, "name"), Embedder: textProp(r.Properties, "embedder"),
				Dim: intProp(r.Properties, "dim"), Generation: intProp(r.Properties, "generation"), Version: textProp(r.Properties, "version")})
		}
		if len(page) < pageSize {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// collections reads the collection objects, sorted by name.
func (b *Backend) collections(ctx context.Context) ([]collectionObject, error) {
	s, err := b.listCollections(ctx)
	if err != nil {
		return nil, err
	}
	return s.cols, nil
}

// Collections lists the stored collections with their numbers of documents and chunks.
func (b *Backend) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	var out []kb.CollectionInfo
	err := b.read(ctx, func(s *snapshot) error {
		out = nil
		if len(s.cols) == 0 {
			return nil
		}
		by, err := b.documentCounts(ctx, s)
		if err != nil {
			return err
		}
		out = make([]kb.CollectionInfo, len(s.cols))
		for i, c := range s.cols {
			n := by[c.Name]
			out[i] = kb.CollectionInfo{Name: c.Name, Embedder: c.Embedder, Dim: c.Dim, Generation: c.Generation, Documents: n.docs, Chunks: n.chunks}
		}
		return nil
	})
	return out, err
}

// documentCounts counts each collection's documents and their chunks.
func (b *Backend) documentCounts(ctx context.Context, s *snapshot) (map[string]docCounts, error) {
	if by, ok := b.cache.keptCounts(s); ok {
		return by, nil
	}
	var data struct {
		Aggregate map[string][]struct {
			GroupedBy struct {
				Value string `json:"value"`
			} `json:"groupedBy"`
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
			Chunks struct {
				Sum float64 `json:"sum"`
			} `json:"chunks"`
		}
	}
	q := fmt.Sprintf(`{ Aggregate { %s(groupBy: ["collection"]) { groupedBy { value } meta { count } chunks { sum } } } }`, b.documentClass())
	if err := b.graphQL(ctx, q, &data); err != nil {
		return nil, fmt.Errorf("couldn't count documents: %w", err)
	}
	by := map[string]docCounts{}
	for _, g := range data.Aggregate[b.documentClass()] {
		by[g.GroupedBy.Value] = docCounts{g.Meta.Count, int(g.Chunks.Sum)}
	}
	b.cache.remember(s, time.Now(), pendingRead{counts: by})
	return by, nil
}

// Collection returns one collection, or false when it does not exist.
func (b *Backend) Collection(ctx context.Context, name string) (kb.CollectionInfo, bool, error) {
	all, err := b.Collections(ctx)
	if err != nil {
		return kb.CollectionInfo{}, false, err
	}
	for _, c := range all {
		if c.Name == name {
			return c, true, nil
		}
	}
	return kb.CollectionInfo{}, false, nil
}

// collection reads one collection object.
func (b *Backend) collection(ctx context.Context, name string) (collectionObject, bool, error) {
	var data struct {
		Get map[string][]collectionObject
	}
	q := fmt.Sprintf(`{ Get { %s(where: %s, limit: 1) { %s } } }`,
		b.collectionClass(), equal("name", name), strings.Join(collectionProperties, " "))
	if err := b.graphQL(ctx, q, &data); err != nil {
		return collectionObject{}, false, fmt.Errorf("couldn't read collection %s: %w", name, err)
	}
	if got := data.Get[b.collectionClass()]; len(got) > 0 {
		return got[0], true, nil
	}
	return collectionObject{}, false, nil
}

const documentProperties = `doc_id collection source title format language hash meta chunks ingested_at size mtime`

// Documents lists the stored documents, optionally of one collection.
func (b *Backend) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	docs, err := getAll(ctx, b, b.documentClass(), documentProperties, func(d documentObject) bool {
		return collection == "" || d.Collection == collection
	})
	if err != nil {
		return nil, fmt.Errorf("couldn't list documents: %w", err)
	}
	out := make([]kb.DocInfo, len(docs))
	for i, d := range docs {
		out[i] = d.info()
	}
	slices.SortFunc(out, func(a, c kb.DocInfo) int {
		return cmp.Or(cmp.Compare(a.Collection, c.Collection), cmp.Compare(a.ID, c.ID))
	})
	return out, nil
}

// documentsWhere reads the documents whose property path has one of the values.
func (b *Backend) documentsWhere(ctx context.Context, path string, values []string, limit int) ([]kb.DocInfo, error) {
	if b.rpc != nil {
		return b.documentsWhereRPC(ctx, path, values, limit)
	}
	where := equal(path, values[0])
	if len(values) > 1 {
		where = containsAny(path, values)
	}
	var data struct {
		Get map[string][]documentObject
	}
	q := fmt.Sprintf(`{ Get { %s(where: %s, limit: %d) { %s } } }`, b.documentClass(), where, limit, documentProperties)
	if err := b.graphQL(ctx, q, &data); err != nil {
		return nil, fmt.Errorf("couldn't read documents: %w", err)
	}
	var out []kb.DocInfo
	for _, d := range data.Get[b.documentClass()] {
		out = append(out, d.info())
	}
	slices.SortFunc(out, func(a, c kb.DocInfo) int { return cmp.Compare(a.ID, c.ID) })
	return out, nil
}

var documentPropertyList = strings.Fields(documentProperties)

// documentsWhereRPC is documentsWhere over gRPC.
func (b *Backend) documentsWhereRPC(ctx context.Context, path string, values []string, limit int) ([]kb.DocInfo, error) {
	where := whereText(path, filters.Equal, values[0])
	if len(values) > 1 {
		where = filters.Where().WithPath([]string{path}).WithOperator(filters.ContainsAny).WithValueText(values...)
	}
	res, err := b.search(ctx, b.documentClass(), limit, documentPropertyList, nil, func(s *graphql.Search) { s.WithWhere(where) })
	if err != nil {
		return nil, fmt.Errorf("couldn't read documents: %w", err)
	}
	out := make([]kb.DocInfo, len(res))
	for i, r := range res {
		p := r.Properties
		out[i] = documentObject{DocID: textProp(p, "doc_id"), Collection: textProp(p, "collection"), Source: textProp(p, "source"),
			Title: textProp(p, "title"), Format: textProp(p, "format"), Language: textProp(p, "language"), Hash: textProp(p, "hash"),
			Meta: textProp(p, "meta"), Chunks: intProp(p, "chunks"), IngestedAt: textProp(p, "ingested_at"),
			Size: textProp(p, "size"), ModTime: textProp(p, "mtime")}.info()
	}
	slices.SortFunc(out, func(a, c kb.DocInfo) int { return cmp.Compare(a.ID, c.ID) })
	return out, nil
}

// Document returns one stored document: one filtered read of its record (doc_id is indexed),
// not a listing, since an ingest asks for every file it meets.
func (b *Backend) Document(ctx context.Context, id string) (kb.DocInfo, bool, error) {
	docs, err := b.documentsWhere(ctx, "doc_id", []string{id}, 1)
	if err != nil || len(docs) == 0 {
		return kb.DocInfo{}, false, err
	}
	return docs[0], true, nil
}

// DocumentBySource finds the document loaded from a file or folder (the first by ID).
func (b *Backend) DocumentBySource(ctx context.Context, source string) (string, bool, error) {
	docs, err := b.documentsWhere(ctx, "source", []string{source}, 100)
	if err != nil || len(docs) == 0 {
		return "", false, err
	}
	return docs[0].ID, true, nil
}

// chunkClassesOf returns the chunk classes that may hold a document's chunks: its
// collection's, or every collection's when the document is not recorded (a write that
// died before its record).
func (b *Backend) chunkClassesOf(ctx context.Context, doc string) ([]string, error) {
	if d, ok, err := b.Document(ctx, doc); err != nil {
		return nil, err
	} else if ok {
		return []string{b.chunkClass(d.Collection)}, nil
	}
	cols, err := b.collections(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = b.chunkClass(c.Name)
	}
	return out, nil
}

// chunksWhere reads the chunks a filter selects from the given classes, in document order.
func (b *Backend) chunksWhere(ctx context.Context, classes []string, where string, vectors bool) ([]chunkObject, error) {
	props := chunkProperties
	if vectors {
		props += " _additional { vector }"
	}
	return b.chunkPropsWhere(ctx, classes, where, props)
}

// chunkPropsWhere reads the given properties of the chunks a filter selects from the given
// classes (at most maxResults from each), in document order.
func (b *Backend) chunkPropsWhere(ctx context.Context, classes []string, where, props string) ([]chunkObject, error) {
	if len(classes) == 0 {
		return nil, nil
	}
	var out []chunkObject
	for offset := 0; ; offset += pageSize {
		var q strings.Builder
		q.WriteString("{ Get {")
		for _, c := range classes {
			fmt.Fprintf(&q, " %s(where: %s, limit: %d, offset: %d) { %s }", c, where, pageSize, offset, props)
		}
		q.WriteString(" } }")
		var data struct {
			Get map[string][]chunkObject
		}
		if err := b.graphQL(ctx, q.String(), &data); err != nil {
			return nil, fmt.Errorf("couldn't read chunks: %w", err)
		}
		full := false
		for _, c := range classes {
			out = append(out, data.Get[c]...)
			full = full || len(data.Get[c]) == pageSize
		}
		if !full {
			break
		}
		if offset+2*pageSize > maxResults {
			return nil, fmt.Errorf("couldn't read chunks: more than %d match (Weaviate's QUERY_MAXIMUM_RESULTS)", maxResults)
		}
	}
	slices.SortStableFunc(out, func(a, c chunkObject) int { return cmp.Or(cmp.Compare(a.Doc, c.Doc), cmp.Compare(a.Seq, c.Seq)) })
	return out, nil
}

// Chunks returns the chunks with the given IDs, in that order; unknown IDs are left out.
func (b *Backend) Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var got []chunkObject
	err := b.read(ctx, func(s *snapshot) error {
		classes := make([]string, len(s.cols))
		for i, c := range s.cols {
			classes[i] = b.chunkClass(c.Name)
		}
		var err error
		if b.rpc != nil && len(ids) <= pageSize {
			got, err = b.chunksByIDRPC(ctx, classes, ids)
		} else {
			got, err = b.chunksWhere(ctx, classes, containsAny("chunk_id", ids), false)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]chunk.Chunk, len(got))
	for _, c := range got {
		byID[c.ChunkID] = c.chunk()
	}
	out := make([]chunk.Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// chunksByIDRPC reads chunks by ID over gRPC, a search per class side by side.
func (b *Backend) chunksByIDRPC(ctx context.Context, classes, ids []string) ([]chunkObject, error) {
	where := filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(ids...)
	found := make([][]chunkObject, len(classes))
	err := eachParallel(ctx, len(classes), func(ctx context.Context, i int) error {
		res, err := b.search(ctx, classes[i], len(ids), chunkPropertyList, nil, func(s *graphql.Search) { s.WithWhere(where) })
		if err != nil {
			return fmt.Errorf("couldn't read chunks: %w", err)
		}
		for _, r := range res {
			found[i] = append(found[i], chunkObjectOf(r.Properties))
		}
		return nil
	})
	return slices.Concat(found...), err
}

// DocumentChunks returns all chunks of a document in order.
func (b *Backend) DocumentChunks(ctx context.Context, doc string) ([]chunk.Chunk, error) {
	classes, err := b.chunkClassesOf(ctx, doc)
	if err != nil {
		return nil, err
	}
	got, err := b.chunksWhere(ctx, classes, equal("doc", doc), false)
	return chunksOf(got), err
}

// SectionChunks returns the chunks of one section of a document (with its subsections) in
// order.
func (b *Backend) SectionChunks(ctx context.Context, doc, section string) ([]chunk.Chunk, error) {
	classes, err := b.chunkClassesOf(ctx, doc)
	if err != nil {
		return nil, err
	}
	got, err := b.chunksWhere(ctx, classes, and(equal("doc", doc), equal("sections", section)), false)
	return chunksOf(got), err
}

// DocumentVectors returns the vectors of a document's chunks in chunk order.
func (b *Backend) DocumentVectors(ctx context.Context, doc string) ([][]float32, error) {
	classes, err := b.chunkClassesOf(ctx, doc)
	if err != nil {
		return nil, err
	}
	got, err := b.chunksWhere(ctx, classes, equal("doc", doc), true)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(got))
	for i, c := range got {
		out[i] = c.Additional.Vector
	}
	return out, nil
}

func chunksOf(objs []chunkObject) []chunk.Chunk {
	out := make([]chunk.Chunk, len(objs))
	for i, o := range objs {
		out[i] = o.chunk()
	}
	return out
}

// Filters, written as GraphQL where arguments.

func equal(path, value string) string {
	return fmt.Sprintf(`{path: [%s], operator: Equal, valueText: %s}`, quote(path), quote(value))
}

func containsAny(path string, values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = quote(v)
	}
	return fmt.Sprintf(`{path: [%s], operator: ContainsAny, valueText: [%s]}`, quote(path), strings.Join(quoted, ", "))
}

// whereAnd and whereOr combine filters of a gRPC search.
func whereAnd(operands ...*filters.WhereBuilder) *filters.WhereBuilder {
	return whereCombine(filters.And, operands)
}
func whereOr(operands ...*filters.WhereBuilder) *filters.WhereBuilder {
	return whereCombine(filters.Or, operands)
}

func whereCombine(op filters.WhereOperator, operands []*filters.WhereBuilder) *filters.WhereBuilder {
	if len(operands) == 1 {
		return operands[0]
	}
	return filters.Where().WithOperator(op).WithOperands(operands)
}

func and(operands ...string) string { return combine("And", operands) }
func or(operands ...string) string  { return combine("Or", operands) }

func combine(op string, operands []string) string {
	if len(operands) == 1 {
		return operands[0]
	}
	return fmt.Sprintf(`{operator: %s, operands: [%s]}`, op, strings.Join(operands, ", "))
}

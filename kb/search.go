package kb

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"warren/kb/analysis"
)

// Scope narrows a search: to collections, to one document, to one section of it.
type Scope struct {
	Collections []string `json:"collections,omitempty"`
	Doc         string   `json:"doc,omitempty"`
	Section     string   `json:"section,omitempty"` // "§ 6" or "4" (4 includes 4.1, 4.2 …)
}

// Hit is one chunk found by a search, with its score in that search.
type Hit struct {
	ChunkID string
	Score   float64
}

// Lexical ranks chunks by BM25 over their analysed terms. lang is the query's language ("" when
// unknown: both German and English forms of each word are searched).
func (s *Store) Lexical(ctx context.Context, query, lang string, scope Scope, k int) ([]Hit, error) {
	terms := analysis.QueryTerms(query, lang)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	weight := s.HeadingWeight
	if weight <= 0 {
		weight = 1
	}
	// Scope is matched inside the index, through the scope column's tokens, so FTS5 never
	// scores a chunk outside it and no chunk row is read until the best k are known. The scope
	// column weighs 0, so it does not change the ranking.
	match := "{heading body} : (" + strings.Join(quoted, " OR ") + ")" + scopeMatch(scope)
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, bm25(chunks_fts, ?, 1.0, 0.0) AS score FROM chunks_fts
WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?`, weight, match, k)
	if err != nil {
		return nil, fmt.Errorf("couldn't search the lexical index: %w", err)
	}
	var rowids []int64
	var scores []float64
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			rows.Close()
			return nil, err
		}
		rowids = append(rowids, id)
		scores = append(scores, -score) // FTS5's bm25 is negative, best first
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids, err := s.chunkIDs(ctx, rowids)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(rowids))
	for i, r := range rowids {
		if id, ok := ids[r]; ok {
			hits = append(hits, Hit{ChunkID: id, Score: scores[i]})
		}
	}
	return hits, nil
}

func (s *Store) chunkIDs(ctx context.Context, rowids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(rowids))
	if len(rowids) == 0 {
		return out, nil
	}
	args := make([]any, len(rowids))
	for i, r := range rowids {
		args[i] = r
	}
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, id FROM chunks WHERE rowid IN (?`+strings.Repeat(",?", len(rowids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r int64
		var id string
		if err := rows.Scan(&r, &id); err != nil {
			return nil, err
		}
		out[r] = id
	}
	return out, rows.Err()
}

// Scope tokens: hex-encoded names behind a prefix, so they are single alphanumeric tokens that
// no analysed word can equal, confined to the scope column anyway.
func scopeToken(kind, value string) string { return "ws" + kind + hex.EncodeToString([]byte(value)) }

// scopeTokens lists a chunk's scope: its collection, its document, its section and, for a
// dotted section number, every enclosing section ("4.1.2" is also in "4.1" and "4").
func scopeTokens(c Chunk) []string {
	toks := []string{scopeToken("c", c.Collection), scopeToken("d", c.Doc), scopeToken("s", c.Doc+"\x00"+c.Section)}
	for i := range len(c.Section) {
		if c.Section[i] == '.' {
			toks = append(toks, scopeToken("s", c.Doc+"\x00"+c.Section[:i]))
		}
	}
	return toks
}

func scopeMatch(scope Scope) string {
	var b strings.Builder
	if len(scope.Collections) > 0 {
		toks := make([]string, len(scope.Collections))
		for i, c := range scope.Collections {
			toks[i] = scopeToken("c", c)
		}
		b.WriteString(" AND {scope} : (" + strings.Join(toks, " OR ") + ")")
	}
	if scope.Doc != "" {
		b.WriteString(" AND {scope} : " + scopeToken("d", scope.Doc))
		if scope.Section != "" {
			b.WriteString(" AND {scope} : " + scopeToken("s", scope.Doc+"\x00"+scope.Section))
		}
	}
	return b.String()
}

func scopeSQL(scope Scope) (string, []any) {
	var b strings.Builder
	var args []any
	if len(scope.Collections) > 0 {
		b.WriteString(" AND c.collection IN (?" + strings.Repeat(",?", len(scope.Collections)-1) + ")")
		for _, c := range scope.Collections {
			args = append(args, c)
		}
	}
	if scope.Doc != "" {
		b.WriteString(" AND c.doc = ?")
		args = append(args, scope.Doc)
	}
	if scope.Section != "" {
		b.WriteString(` AND (c.section = ? OR c.section LIKE ? ESCAPE '\')`)
		args = append(args, scope.Section, likePrefix(scope.Section)+".%")
	}
	return b.String(), args
}

// Dense ranks chunks by cosine similarity to a query vector. Searches within a document are
// exact over that document's vectors; wider ones go to each collection's vector index. A
// collection whose vectors have another length than the query's is an
// *EmbedderMismatchError (errors.Is ErrEmbedderChanged).
func (s *Store) Dense(ctx context.Context, vector []float32, scope Scope, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if scope.Doc != "" {
		return s.denseInDocument(ctx, vector, scope, k)
	}
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	// Another process may have written since the vectors were loaded.
	cols, err := vs.fresh(ctx, s, scope.Collections)
	if err != nil {
		return nil, err
	}
	infos := make(map[string]CollectionInfo, len(cols))
	for _, c := range cols {
		infos[c.Name] = c
	}
	names := scope.Collections
	if len(names) == 0 {
		for name := range vs.db.ListCollections() {
			names = append(names, name)
		}
		sort.Strings(names) // a mismatch names the same collection every time
	}
	var hits []Hit
	for _, name := range names {
		col := vs.db.GetCollection(name, refuseEmbedding)
		if col == nil || col.Count() == 0 {
			continue
		}
		// chromem-go would only say "vectors must have the same length".
		if c := infos[name]; c.Dim > 0 && c.Dim != len(vector) {
			return nil, &EmbedderMismatchError{Collection: name, Built: c.Embedder, BuiltDim: c.Dim, AskedDim: len(vector)}
		}
		// chromem-go refuses nResults above the collection size.
		res, err := col.QueryEmbedding(ctx, vector, min(k, col.Count()), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("couldn't search the vectors of %s: %w", name, err)
		}
		for _, r := range res {
			hits = append(hits, Hit{ChunkID: r.ID, Score: float64(r.Similarity)})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

func (s *Store) denseInDocument(ctx context.Context, vector []float32, scope Scope, k int) ([]Hit, error) {
	where, args := scopeSQL(scope)
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.collection, c.vector FROM chunks c WHERE 1 = 1`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the vectors of %s: %w", scope.Doc, err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var id, collection string
		var blob []byte
		if err := rows.Scan(&id, &collection, &blob); err != nil {
			return nil, err
		}
		v := decodeVector(blob)
		if len(v) != len(vector) {
			rows.Close()
			mismatch := &EmbedderMismatchError{Collection: collection, BuiltDim: len(v), AskedDim: len(vector)}
			if c, ok, err := s.Collection(ctx, collection); err == nil && ok {
				mismatch.Built = c.Embedder
			}
			return nil, mismatch
		}
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(vector[i])
		}
		hits = append(hits, Hit{ChunkID: id, Score: dot})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, rows.Err()
}

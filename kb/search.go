package kb

import (
	"context"
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
	where, args := scopeSQL(scope)
	weight := s.HeadingWeight
	if weight <= 0 {
		weight = 1
	}
	q := `SELECT c.id, bm25(chunks_fts, ?, 1.0) AS score FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid
WHERE chunks_fts MATCH ?` + where + ` ORDER BY score LIMIT ?`
	rows, err := s.db.QueryContext(ctx, q, append(append([]any{weight, strings.Join(quoted, " OR ")}, args...), k)...)
	if err != nil {
		return nil, fmt.Errorf("couldn't search the lexical index: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.ChunkID, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score // FTS5's bm25 is negative, best first
		hits = append(hits, h)
	}
	return hits, rows.Err()
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
// exact over that document's vectors; wider ones go to each collection's vector index.
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
	names := scope.Collections
	if len(names) == 0 {
		for name := range vs.db.ListCollections() {
			names = append(names, name)
		}
	}
	var hits []Hit
	for _, name := range names {
		col := vs.db.GetCollection(name, refuseEmbedding)
		if col == nil || col.Count() == 0 {
			continue
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
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.vector FROM chunks c WHERE 1 = 1`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the vectors of %s: %w", scope.Doc, err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		v := decodeVector(blob)
		if len(v) != len(vector) {
			return nil, fmt.Errorf("the query vector has %d dimensions, %s has %d", len(vector), scope.Doc, len(v))
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

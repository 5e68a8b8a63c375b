package kb

import (
	"context"
	"encoding/hex"
	"fmt"
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

package kb

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
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

// Lexical ranks chunks by BM25 over their analysed terms, with the store's k1, b and heading
// weight, then by the query expanded with the best chunks' terms (pseudo-relevance feedback,
// when FeedbackDocs > 0). lang is the query's language ("" when unknown: both German and
// English forms of each word are searched).
//
// The ranking runs over the lexical index held in memory (lexindex.go), read from FTS5's
// content when the database changed. The candidates that the feedback ranks again are the
// best candidateFactor × k (at least minCandidates) chunks of the query's BM25 ranking,
// found without reading the postings of terms too common to lift an unseen chunk among them.
func (s *Store) Lexical(ctx context.Context, query, lang string, scope Scope, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q := newLexicalQuery(analysis.QueryTerms(query, lang))
	if len(q) == 0 {
		return nil, nil
	}
	ix, err := s.lexicalIndex(ctx)
	if err != nil {
		return nil, err
	}
	s.lexical.searches.Add(1)
	r := ranker{k1: s.K1, b: s.B, headingWeight: s.headingWeight(), avgLength: ix.totals.avgLength()}
	return ix.search(q, scope, k, r, s.FeedbackDocs, s.FeedbackTerms, &s.lexical), nil
}

func (s *Store) headingWeight() float64 {
	if s.HeadingWeight <= 0 {
		return 1
	}
	return s.HeadingWeight
}

// Candidates: candidateFactor × k chunks (at least minCandidates) are ranked again after the
// feedback, which leaves it room to reorder.
const (
	candidateFactor = 4
	minCandidates   = 200
)

// DefaultPostingsBudget bounds the postings that FTS5 ranks to propose candidates in
// lexicalCandidates: about 5 ms of work. Store.Lexical no longer proposes candidates through
// FTS5 (it ranks over the index in memory); the budget remains the rule by which
// RankLexical's backends divide a query's terms (lexrank.go), and lexicalCandidates their
// reference in tests.
const DefaultPostingsBudget = 5_000

// lexicalCandidates asks FTS5 for up to m chunks in scope. The rarest terms, as many as fit in
// the postings budget, are ranked by FTS5's bm25 (which needs to read their posting lists);
// the remaining common terms only propose chunks that hold all of them, then any of them, in
// index order, until there are m, and FTS5 stops reading as soon as it has them. Fewer than
// want candidates from the rare terms also call on the common ones.
func (s *Store) lexicalCandidates(ctx context.Context, q lexicalQuery, scope Scope, m, want int) ([]int64, error) {
	rare, common := q.splitByBudget(s.PostingsBudget)
	seen := map[int64]bool{}
	var out []int64
	collect := func(query string, args ...any) error {
		rows, err := s.db.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("couldn't search the lexical index: %w", err)
		}
		defer rows.Close()
		for rows.Next() && len(out) < m {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		return rows.Err()
	}
	// Scope is matched inside the index, through the scope column's tokens, so FTS5 never
	// proposes a chunk outside it and no chunk row is read until the candidates are known.
	// The scope column weighs 0 in FTS5's ranking.
	if len(rare) > 0 {
		match := "{heading body} : (" + strings.Join(quoteTerms(rare), " OR ") + ")" + scopeMatch(scope)
		if err := collect(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, ?, 1.0, 0.0) LIMIT ?`,
			match, s.headingWeight(), m); err != nil {
			return nil, err
		}
	}
	if len(common) == 0 || len(out) >= want {
		return out, nil
	}
	for _, op := range []string{" AND ", " OR "} {
		if len(out) >= m || op == " OR " && len(common) == 1 {
			break
		}
		match := "{heading body} : (" + strings.Join(quoteTerms(common), op) + ")" + scopeMatch(scope)
		if err := collect(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?`, match, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func quoteTerms(q lexicalQuery) []string {
	out := make([]string, len(q))
	for i, t := range q {
		out[i] = `"` + strings.ReplaceAll(t.term, `"`, `""`) + `"`
	}
	return out
}

// indexedTerms reads the analysed heading and body terms of the chunks, in the given order.
func (s *Store) indexedTerms(ctx context.Context, rowids []int64) ([]lexicalDoc, error) {
	if len(rowids) == 0 {
		return nil, nil
	}
	pos := make(map[int64]int, len(rowids))
	args := make([]any, len(rowids))
	for i, r := range rowids {
		pos[r] = i
		args[i] = r
	}
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, heading, body FROM chunks_fts WHERE rowid IN (?`+strings.Repeat(",?", len(rowids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	defer rows.Close()
	docs := make([]lexicalDoc, len(rowids))
	for rows.Next() {
		var r int64
		var heading, body string
		if err := rows.Scan(&r, &heading, &body); err != nil {
			return nil, err
		}
		docs[pos[r]] = newLexicalDoc(r, heading, body)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A row deleted since the candidates were found is left out.
	return slices.DeleteFunc(docs, func(d lexicalDoc) bool { return d.rowid == 0 }), nil
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

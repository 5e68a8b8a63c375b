package kb

import (
	"context"
	"encoding/hex"
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
	return s.LexicalPooled(ctx, query, lang, scope, k, CandidatePool(k))
}

// LexicalPooled is Lexical with the feedback ranking again the best pool chunks of the
// query's BM25 ranking (at least k) rather than CandidatePool(k) of them.
func (s *Store) LexicalPooled(ctx context.Context, query, lang string, scope Scope, k, pool int) ([]Hit, error) {
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
	return ix.search(q, scope, k, max(pool, k), s.rankerOver(ix.totals), s.FeedbackDocs, s.FeedbackTerms, &s.lexical), nil
}

// CandidatePool is how many of a query's best chunks by BM25 a lexical search for k ranks
// again after the feedback: candidateFactor × k, at least minCandidates.
func CandidatePool(k int) int { return max(candidateFactor*k, minCandidates) }

// Candidates: candidateFactor × k chunks (at least minCandidates) are ranked again after the
// feedback, which leaves it room to reorder.
const (
	candidateFactor = 4
	minCandidates   = 200
)

// DefaultPostingsBudget is the rule by which RankLexical's backends divide a query's terms
// (lexrank.go): the rarest terms whose postings sum to at most this many are ranked by the
// backend's own BM25, the rest only propose chunks that hold them. Chosen as about 5 ms of
// FTS5's work when FTS5 proposed the embedded store's candidates; Store.Lexical now ranks
// over its index in memory and does not use it.
const DefaultPostingsBudget = 5_000

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

package kb

import (
	"context"
	"strings"

	"warren/kb/chunk"
	"warren/kb/lexical"
)

// Lexical ranks chunks by BM25 over their analysed terms, with the store's k1, b and heading
// weight, then by the query expanded with the best chunks' terms (pseudo-relevance feedback,
// when FeedbackDocs > 0). lang is the query's language ("" when unknown: both German and
// English forms of each word are searched).
//
// The ranking runs over the lexical index held in memory (package kb/lexical), read from
// FTS5's content when the database changed. The candidates that the feedback ranks again are
// the best lexical.CandidatePool(k) chunks of the query's BM25 ranking, found without reading
// the postings of terms too common to lift an unseen chunk among them.
func (s *Store) Lexical(ctx context.Context, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	return s.LexicalPooled(ctx, query, lang, scope, k, lexical.CandidatePool(k))
}

// LexicalPooled is Lexical with the feedback ranking again the best pool chunks of the
// query's BM25 ranking (at least k) rather than lexical.CandidatePool(k) of them.
func (s *Store) LexicalPooled(ctx context.Context, query, lang string, scope chunk.Scope, k, pool int) ([]chunk.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q := lexical.ParseQuery(query, lang)
	if len(q) == 0 {
		return nil, nil
	}
	ix, err := s.lexicalIndex(ctx)
	if err != nil {
		return nil, err
	}
	return s.lexical.Search(ix, q, scope, k, pool, s.Params), nil
}

func scopeSQL(scope chunk.Scope) (string, []any) {
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

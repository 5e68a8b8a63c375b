package kb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"warren/kb/chunk"
	"warren/kb/lexical"
)

// The FTS5 reference. Before the lexical index moved into memory (kb/lexical), Store.Lexical
// asked FTS5 for its candidates as below; the tests keep that path as the embedded store's
// LexicalSource, to check that RankLexical over it ranks exactly as Store.Lexical, and to read
// chunks' indexed terms back from FTS5.

// lexicalCandidates asks FTS5 for up to m chunks in scope. The rare terms are ranked by FTS5's
// bm25 (which needs to read their posting lists); the common terms only propose chunks that
// hold all of them, then any of them, in index order, until there are m, and FTS5 stops
// reading as soon as it has them. Fewer than want candidates from the rare terms also call on
// the common ones.
func (s *Store) lexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]int64, error) {
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
			match, headingWeight(s.Params), m); err != nil {
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

func quoteTerms(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return out
}

// scopeMatch is the FTS5 condition on the scope column's tokens (scopeTokens) for a scope.
func scopeMatch(scope chunk.Scope) string {
	var b strings.Builder
	if len(scope.Collections) > 0 {
		toks := make([]string, len(scope.Collections))
		for i, c := range scope.Collections {
			toks[i] = lexical.ScopeToken("c", c)
		}
		b.WriteString(" AND {scope} : (" + strings.Join(toks, " OR ") + ")")
	}
	if scope.Doc != "" {
		b.WriteString(" AND {scope} : " + lexical.ScopeToken("d", scope.Doc))
		if scope.Section != "" {
			b.WriteString(" AND {scope} : " + lexical.ScopeToken("s", scope.Doc+"\x00"+scope.Section))
		}
	}
	return b.String()
}

// indexedTerms reads the analysed heading and body terms of the chunks, in the given order.
func (s *Store) indexedTerms(ctx context.Context, rowids []int64) ([]ftsRow, error) {
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
	docs := make([]ftsRow, len(rowids))
	for rows.Next() {
		var r int64
		var heading, body string
		if err := rows.Scan(&r, &heading, &body); err != nil {
			return nil, err
		}
		docs[pos[r]] = ftsRow{r, heading, body}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A row deleted since the candidates were found is left out.
	return slices.DeleteFunc(docs, func(d ftsRow) bool { return d.rowid == 0 }), nil
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

func rowidsOf(docs []ftsRow) []int64 {
	out := make([]int64, len(docs))
	for i, d := range docs {
		out[i] = d.rowid
	}
	return out
}

// documentFrequencies returns the document frequency of each term that the index holds, as
// the index in memory counts it.
func (s *Store) documentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	ix, err := s.lexicalIndex(ctx)
	if err != nil {
		return nil, err
	}
	return ix.DocumentFrequencies(terms), nil
}

// ftsRow is a chunk's analysed heading and body terms as FTS5 holds them.
type ftsRow struct {
	rowid         int64
	heading, body string
}

// headingWeight is the heading weight the ranking uses (lexical.Params): one of 0 or less
// counts a heading term as a body term.
func headingWeight(p lexical.Params) float64 {
	if p.HeadingWeight <= 0 {
		return 1
	}
	return p.HeadingWeight
}

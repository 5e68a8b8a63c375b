package kb

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"warren/config"
	"warren/kb/analysis"
)

// warren's lexical ranking over another backend's index. The server only proposes candidates
// and counts terms: warren scores the candidates itself (BM25 with its k1, b and heading
// weight, then pseudo-relevance feedback), from statistics over the whole knowledge base, so a
// query ranks the same on every backend.

// LexicalSource is what RankLexical needs from a backend's lexical index. A term is one word
// of the analysed heading or body, as IndexedTerms writes them.
type LexicalSource interface {
	// LexicalTotals counts the chunks of the whole knowledge base and their heading and body
	// terms.
	LexicalTotals(ctx context.Context) (LexicalTotals, error)
	// DocumentFrequencies returns in how many chunks (heading or body) each term appears;
	// a term found nowhere may be left out.
	DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error)
	// LexicalCandidates proposes up to m chunks in scope: first those holding any of rare,
	// best first by the server's own BM25 over the heading and body terms; then, while there
	// are fewer than want, those holding all of common, then any of them.
	LexicalCandidates(ctx context.Context, rare, common []string, scope Scope, m, want int) ([]LexicalCandidate, error)
}

// LexicalTotals are the collection-wide figures of BM25: chunks, and heading and body terms.
type LexicalTotals struct {
	Chunks, Heading, Body int64
}

// avgLength is the mean number of terms per chunk, heading and body together.
func (t LexicalTotals) avgLength() float64 {
	if t.Chunks == 0 {
		return 1
	}
	return max(float64(t.Heading+t.Body)/float64(t.Chunks), 1)
}

// LexicalCandidate is a chunk proposed for ranking, with its analysed heading and body terms
// (space-separated). Order breaks ties between equal scores, lower first, as the embedded
// store's row order does: it should follow the order in which chunks were stored.
type LexicalCandidate struct {
	ID            string
	Order         int64
	Heading, Body string
}

// LexicalParams are the settings of the lexical ranking (kb.bm25_k1, kb.bm25_b,
// kb.heading_weight, kb.feedback_docs, kb.feedback_terms) and the postings budget that
// divides a query's terms into rare and common ones (see DefaultPostingsBudget).
type LexicalParams struct {
	K1, B, HeadingWeight        float64
	FeedbackDocs, FeedbackTerms int
	PostingsBudget              int
}

// DefaultLexicalParams are the embedded store's defaults.
func DefaultLexicalParams() LexicalParams {
	return LexicalParams{K1: DefaultBM25K1, B: DefaultBM25B, HeadingWeight: DefaultHeadingWeight,
		FeedbackDocs: DefaultFeedbackDocs, FeedbackTerms: DefaultFeedbackTerms, PostingsBudget: DefaultPostingsBudget}
}

// LexicalParamsFrom reads the lexical ranking's settings from a workspace configuration;
// the postings budget, which has no key, is the default.
func LexicalParamsFrom(c *config.Config) LexicalParams {
	p := DefaultLexicalParams()
	p.K1, p.B, p.HeadingWeight = c.KB.BM25K1, c.KB.BM25B, c.KB.HeadingWeight
	p.FeedbackDocs, p.FeedbackTerms = c.KB.FeedbackDocs, c.KB.FeedbackTerms
	return p
}

// rankerOver is the BM25 scorer of these settings over a knowledge base with these totals.
func (p LexicalParams) rankerOver(totals LexicalTotals) ranker {
	return ranker{k1: p.K1, b: p.B, headingWeight: p.headingWeight(), avgLength: totals.avgLength()}
}

// headingWeight is the heading weight the ranking uses: one of 0 or less counts a heading
// term as a body term.
func (p LexicalParams) headingWeight() float64 {
	if p.HeadingWeight <= 0 {
		return 1
	}
	return p.HeadingWeight
}

// IndexedTerms returns a chunk's analysed heading (its section label and heading) and body
// terms, space-separated, as the embedded store indexes them.
func IndexedTerms(c Chunk, lang string) (heading, body string) {
	return strings.Join(analysis.Terms(c.Section+" "+c.Heading, lang), " "), strings.Join(analysis.Terms(c.Text, lang), " ")
}

// SectionScopes lists the sections a chunk belongs to for scoped search and section lookup:
// its own and, for a dotted number, every enclosing one ("4.1.2" is also in "4.1" and "4").
func SectionScopes(section string) []string {
	out := []string{section}
	for i := range len(section) {
		if section[i] == '.' {
			out = append(out, section[:i])
		}
	}
	return out
}

// RankLexical ranks chunks in scope for a query as Store.Lexical does, over src.
func RankLexical(ctx context.Context, src LexicalSource, p LexicalParams, query, lang string, scope Scope, k int) ([]Hit, error) {
	return RankLexicalPooled(ctx, src, p, query, lang, scope, k, CandidatePool(k))
}

// RankLexicalPooled ranks chunks in scope for a query as Store.LexicalPooled does, over src.
func RankLexicalPooled(ctx context.Context, src LexicalSource, p LexicalParams, query, lang string, scope Scope, k, pool int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q := newLexicalQuery(analysis.QueryTerms(query, lang))
	if len(q) == 0 {
		return nil, nil
	}
	totals, err := src.LexicalTotals(ctx)
	if err != nil {
		return nil, err
	}
	if err := weighFrom(ctx, src, q, totals); err != nil {
		return nil, err
	}
	q = q.found()
	if len(q) == 0 {
		return nil, nil
	}
	rare, common := q.splitByBudget(p.PostingsBudget)
	cands, err := src.LexicalCandidates(ctx, termsOf(rare), termsOf(common), scope, max(pool, k), k)
	if err != nil {
		return nil, err
	}
	// Equal scores go by the candidates' orders, then their positions, as the embedded store's
	// go by rowid: each candidate's rowid is its rank in that order (from 1: rowid 0 would
	// mean "deleted").
	byOrder := make([]int, len(cands))
	for i := range byOrder {
		byOrder[i] = i
	}
	slices.SortStableFunc(byOrder, func(a, b int) int { return cmp.Compare(cands[a].Order, cands[b].Order) })
	docs := make([]lexicalDoc, len(cands))
	ids := make(map[int64]string, len(cands))
	for rank, i := range byOrder {
		c := cands[i]
		docs[i] = newLexicalDoc(int64(rank)+1, c.Heading, c.Body)
		ids[docs[i].rowid] = c.ID
	}
	r := p.rankerOver(totals)
	r.score(docs, q)
	if p.FeedbackDocs > 0 && len(docs) > p.FeedbackDocs {
		out, fresh := expandQuery(docs, q, p.FeedbackDocs, p.FeedbackTerms)
		if err := weighFrom(ctx, src, fresh, totals); err != nil {
			return nil, err
		}
		r.score(docs, append(out, fresh...))
	}
	docs = topDocs(docs, k)
	hits := make([]Hit, len(docs))
	for i, d := range docs {
		hits[i] = Hit{ChunkID: ids[d.rowid], Score: d.score}
	}
	return hits, nil
}

func weighFrom(ctx context.Context, src LexicalSource, q lexicalQuery, totals LexicalTotals) error {
	if len(q) == 0 {
		return nil
	}
	df, err := src.DocumentFrequencies(ctx, termsOf(q))
	if err != nil {
		return err
	}
	q.weigh(df, totals)
	return nil
}

func termsOf(q lexicalQuery) []string {
	out := make([]string, len(q))
	for i, t := range q {
		out[i] = t.term
	}
	return out
}

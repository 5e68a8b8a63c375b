package lexical

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"strings"

	"warren/kb/analysis"
	"warren/kb/chunk"
)

// warren's lexical ranking over another backend's index. The server only proposes candidates
// and counts terms: warren scores the candidates itself (BM25 with its k1, b and heading
// weight, then pseudo-relevance feedback), from statistics over the whole knowledge base, so a
// query ranks the same on every backend.

// Source is what Rank needs from a backend's lexical index. A term is one word
// of the analysed heading or body, as IndexedTerms writes them.
type Source interface {
	// LexicalTotals counts the chunks of the whole knowledge base and their heading and body
	// terms.
	LexicalTotals(ctx context.Context) (Totals, error)
	// DocumentFrequencies returns in how many chunks (heading or body) each term appears;
	// a term found nowhere may be left out.
	DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error)
	// LexicalCandidates proposes up to m chunks in scope: first those holding any of rare,
	// best first by the server's own BM25 over the heading and body terms; then, while there
	// are fewer than want, those holding all of common, then any of them.
	LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]Candidate, error)
}

// LengthSource is a Source that can derive BM25's b from its chunks' lengths (Params.B below
// 0), as the index in memory does (Index.EffectiveB). A Source that cannot is ranked with
// FallbackB instead.
type LengthSource interface {
	LengthB(ctx context.Context, p Params) (float64, error)
}

// FallbackB is the b of a Source that cannot derive one from its chunks' lengths: the
// previous default, chosen on Cranfield.
const FallbackB = 0.75

// Totals are the collection-wide figures of BM25: chunks, and heading and body terms.
type Totals struct {
	Chunks, Heading, Body int64
}

// avgLength is the mean number of terms per chunk, heading and body together.
func (t Totals) avgLength() float64 {
	if t.Chunks == 0 {
		return 1
	}
	return max(float64(t.Heading+t.Body)/float64(t.Chunks), 1)
}

// Candidate is a chunk proposed for ranking, with its analysed heading and body terms
// (space-separated). Order breaks ties between equal scores, lower first, as the embedded
// store's row order does: it should follow the order in which chunks were stored.
type Candidate struct {
	ID            string
	Order         int64
	Heading, Body string
}

// Params are the settings of the lexical ranking (kb.bm25_k1, kb.bm25_b,
// kb.heading_weight, kb.feedback_docs, kb.feedback_terms, kb.proximity) and the postings
// budget that divides a query's terms into rare and common ones (see DefaultPostingsBudget).
type Params struct {
	K1, B, HeadingWeight        float64
	FeedbackDocs, FeedbackTerms int
	PostingsBudget              int
	// LengthCorrelation is the target from which b is derived when B is below 0 (lengthnorm.go).
	LengthCorrelation float64
	// Proximity weighs the closeness of query terms in a chunk against BM25 (proximity.go);
	// 0 leaves it out.
	Proximity float64
}

// DefaultHeadingWeight counts a heading term as two body terms, chosen across Cranfield, CISI
// and CACM (docs/retrieval.md); 4, chosen on Cranfield alone, over-weighs CACM's titles.
const DefaultHeadingWeight = 2.0

// DefaultParams are the embedded store's defaults.
func DefaultParams() Params {
	return Params{K1: DefaultBM25K1, B: DefaultBM25B, HeadingWeight: DefaultHeadingWeight,
		FeedbackDocs: DefaultFeedbackDocs, FeedbackTerms: DefaultFeedbackTerms, PostingsBudget: DefaultPostingsBudget,
		LengthCorrelation: DefaultLengthCorrelation, Proximity: DefaultProximity}
}

// rankerOver is the BM25 scorer of these settings over a knowledge base with these totals.
func (p Params) rankerOver(totals Totals) ranker {
	return ranker{k1: p.K1, b: p.B, headingWeight: p.headingWeight(), avgLength: totals.avgLength()}
}

// rankerFor is the BM25 scorer of these settings over an index: b derived from its chunks'
// lengths when B is below 0.
func (p Params) rankerFor(ix *Index) ranker {
	r := p.rankerOver(ix.totals)
	if p.B < 0 {
		r.b = ix.lengthB(r.headingWeight, p.LengthCorrelation)
	}
	return r
}

// headingWeight is the heading weight the ranking uses: one of 0 or less counts a heading
// term as a body term.
func (p Params) headingWeight() float64 {
	if p.HeadingWeight <= 0 {
		return 1
	}
	return p.HeadingWeight
}

// IndexedTerms returns a chunk's analysed heading (its section label and heading) and body
// terms, space-separated, as the embedded store indexes them.
func IndexedTerms(c chunk.Chunk, lang string) (heading, body string) {
	return strings.Join(analysis.Terms(c.Section+" "+c.Heading, lang), " "), strings.Join(analysis.Terms(c.Text, lang), " ")
}

// Rank ranks chunks in scope for a query as the embedded store's Lexical does, over src.
func Rank(ctx context.Context, src Source, p Params, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	return RankPooled(ctx, src, p, query, lang, scope, k, CandidatePool(k))
}

// RankPooled ranks chunks in scope for a query as the embedded store's LexicalPooled does,
// over src.
func RankPooled(ctx context.Context, src Source, p Params, query, lang string, scope chunk.Scope, k, pool int) ([]chunk.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q := ParseQuery(query, lang)
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
	if p.B < 0 {
		r.b = FallbackB
		if ls, ok := src.(LengthSource); ok {
			if r.b, err = ls.LengthB(ctx, p); err != nil {
				return nil, err
			}
		}
	}
	r.score(docs, q)
	if p.FeedbackDocs > 0 && len(docs) > p.FeedbackDocs {
		var named []string
		if is, ok := src.(IdentitySource); ok {
			idents, err := is.Identities(ctx)
			if err != nil {
				return nil, err
			}
			named = idents.named(q)
			for i := range docs {
				docs[i].identity = idents.Of(docOfChunk(cands[i].ID))
			}
		}
		out, fresh := expandQuery(docs, q, named, p.FeedbackDocs, p.FeedbackTerms)
		if err := weighFrom(ctx, src, fresh, totals); err != nil {
			return nil, err
		}
		r.score(docs, append(out, fresh...))
	}
	r.addProximity(docs, q, p.Proximity)
	docs = topDocs(docs, k)
	hits := make([]chunk.Hit, len(docs))
	for i, d := range docs {
		hits[i] = chunk.Hit{ChunkID: ids[d.rowid], Score: d.score}
	}
	return hits, nil
}

func weighFrom(ctx context.Context, src Source, q Query, totals Totals) error {
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

func termsOf(q Query) []string {
	out := make([]string, len(q))
	for i, t := range q {
		out[i] = t.term
	}
	return out
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

// DefaultPostingsBudget is the rule by which Rank's backends divide a query's terms: the
// rarest terms whose postings sum to at most this many are ranked by the backend's own BM25,
// the rest only propose chunks that hold them. Chosen as about 5 ms of FTS5's work when FTS5
// proposed the embedded store's candidates; the embedded store now ranks over its index in
// memory (Cache.Search) and does not use it.
const DefaultPostingsBudget = 5_000

// ScopeToken is one scope token: a hex-encoded name behind a prefix, so it is a single
// alphanumeric token that no analysed word can equal (confined to the scope column anyway).
// kind is "c" (collection), "d" (document) or "s" (a document's section, doc + "\x00" + section).
func ScopeToken(kind, value string) string { return "ws" + kind + hex.EncodeToString([]byte(value)) }

// ScopeTokens lists a chunk's scope, which an index reads back (Builder.Add): its collection,
// its document, its section and, for a dotted section number, every enclosing section
// ("4.1.2" is also in "4.1" and "4").
func ScopeTokens(c chunk.Chunk) []string {
	toks := []string{ScopeToken("c", c.Collection), ScopeToken("d", c.Doc), ScopeToken("s", c.Doc+"\x00"+c.Section)}
	for i := range len(c.Section) {
		if c.Section[i] == '.' {
			toks = append(toks, ScopeToken("s", c.Doc+"\x00"+c.Section[:i]))
		}
	}
	return toks
}

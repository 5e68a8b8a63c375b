package weaviatekb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"warren/kb"
)

// Lexical ranks chunks by warren's BM25 with pseudo-relevance feedback (kb.RankLexical), the
// candidates and statistics coming from Weaviate.
func (b *Backend) Lexical(ctx context.Context, query, lang string, scope kb.Scope, k int) ([]kb.Hit, error) {
	return kb.RankLexical(ctx, b, b.opts.Lexical, query, lang, scope, k)
}

// scopeCollections returns the collections a scope searches, by name.
func (b *Backend) scopeCollections(ctx context.Context, scope kb.Scope) ([]collectionObject, error) {
	cols, err := b.collections(ctx)
	if err != nil || len(scope.Collections) == 0 {
		return cols, err
	}
	return slices.DeleteFunc(cols, func(c collectionObject) bool { return !slices.Contains(scope.Collections, c.Name) }), nil
}

// scopeFilters are the filters of a scope within its collections' classes: the document and,
// with it, the section (which includes its subsections through the chunk's "sections").
func scopeFilters(scope kb.Scope) []string {
	var out []string
	if scope.Doc != "" {
		out = append(out, equal("doc", scope.Doc))
		if scope.Section != "" {
			out = append(out, equal("sections", scope.Section))
		}
	}
	return out
}

// whereArg is a where argument for the filters, "" for none.
func whereArg(filters []string) string {
	if len(filters) == 0 {
		return ""
	}
	return ", where: " + and(filters...)
}

// LexicalTotals counts the chunks of every collection and their heading and body terms.
func (b *Backend) LexicalTotals(ctx context.Context) (kb.LexicalTotals, error) {
	cols, err := b.collections(ctx)
	if err != nil || len(cols) == 0 {
		return kb.LexicalTotals{}, err
	}
	var q strings.Builder
	q.WriteString("{ Aggregate {")
	for _, c := range cols {
		fmt.Fprintf(&q, " %s { meta { count } heading_len { sum } body_len { sum } }", b.chunkClass(c.Name))
	}
	q.WriteString(" } }")
	var data struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count int64 `json:"count"`
			} `json:"meta"`
			HeadingLen struct {
				Sum float64 `json:"sum"`
			} `json:"heading_len"`
			BodyLen struct {
				Sum float64 `json:"sum"`
			} `json:"body_len"`
		}
	}
	if err := b.graphQL(ctx, q.String(), &data); err != nil {
		return kb.LexicalTotals{}, fmt.Errorf("couldn't count the lexical index: %w", err)
	}
	var t kb.LexicalTotals
	for _, groups := range data.Aggregate {
		for _, g := range groups {
			t.Chunks += g.Meta.Count
			t.Heading += int64(g.HeadingLen.Sum)
			t.Body += int64(g.BodyLen.Sum)
		}
	}
	return t, nil
}

// dfBatch is how many term counts one request asks for.
const dfBatch = 64

// DocumentFrequencies counts, for each term, the chunks of every collection whose heading
// or body holds it: one filtered count per term and collection, many to a request.
func (b *Backend) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	out := make(map[string]int64, len(terms))
	cols, err := b.collections(ctx)
	if err != nil || len(cols) == 0 || len(terms) == 0 {
		return out, err
	}
	type count struct{ term, class string }
	var all []count
	for _, t := range terms {
		for _, c := range cols {
			all = append(all, count{t, b.chunkClass(c.Name)})
		}
	}
	for start := 0; start < len(all); start += dfBatch {
		batch := all[start:min(start+dfBatch, len(all))]
		var q strings.Builder
		q.WriteString("{ Aggregate {")
		for i, c := range batch {
			fmt.Fprintf(&q, " c%d: %s(where: %s) { meta { count } }", i, c.class,
				or(equal("heading_terms", c.term), equal("body_terms", c.term)))
		}
		q.WriteString(" } }")
		var data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int64 `json:"count"`
				} `json:"meta"`
			}
		}
		if err := b.graphQL(ctx, q.String(), &data); err != nil {
			return nil, fmt.Errorf("couldn't read term statistics: %w", err)
		}
		for i, c := range batch {
			for _, g := range data.Aggregate["c"+strconv.Itoa(i)] {
				out[c.term] += g.Meta.Count
			}
		}
	}
	return out, nil
}

type candidateObject struct {
	ChunkID      string  `json:"chunk_id"`
	Order        float64 `json:"ingest_order"`
	HeadingTerms string  `json:"heading_terms"`
	BodyTerms    string  `json:"body_terms"`
	Additional   struct {
		Score string `json:"score"`
	} `json:"_additional"`
}

const candidateProperties = `chunk_id ingest_order heading_terms body_terms`

// LexicalCandidates proposes chunks in scope as the embedded store's FTS5 does: those holding
// a rare term, best first by Weaviate's BM25 (k1 and b as configured, the heading weighted
// as in warren's ranking); then, while fewer than want, those holding all common terms, then
// any of them, in the server's order.
func (b *Backend) LexicalCandidates(ctx context.Context, rare, common []string, scope kb.Scope, m, want int) ([]kb.LexicalCandidate, error) {
	cols, err := b.scopeCollections(ctx, scope)
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	seen := map[string]bool{}
	var out []kb.LexicalCandidate
	add := func(objs []candidateObject) {
		for _, o := range objs {
			if len(out) >= m {
				return
			}
			if !seen[o.ChunkID] {
				seen[o.ChunkID] = true
				out = append(out, kb.LexicalCandidate{ID: o.ChunkID, Order: int64(o.Order), Heading: o.HeadingTerms, Body: o.BodyTerms})
			}
		}
	}
	filters := scopeFilters(scope)
	if len(rare) > 0 {
		hw := strconv.FormatFloat(max(b.opts.Lexical.HeadingWeight, 1), 'f', -1, 64)
		search := fmt.Sprintf(`bm25: {query: %s, properties: ["heading_terms^%s", "body_terms"]}`, quote(strings.Join(rare, " ")), hw)
		objs, err := b.candidates(ctx, cols, search+whereArg(filters), m)
		if err != nil {
			return nil, err
		}
		// Scores from different classes are each class's own BM25: close enough to choose
		// candidates, which warren ranks itself.
		slices.SortStableFunc(objs, func(a, c candidateObject) int {
			sa, _ := strconv.ParseFloat(a.Additional.Score, 64)
			sc, _ := strconv.ParseFloat(c.Additional.Score, 64)
			return cmp.Compare(sc, sa)
		})
		add(objs)
	}
	if len(common) == 0 || len(out) >= want {
		return out, nil
	}
	for _, all := range []bool{true, false} {
		if len(out) >= m || !all && len(common) == 1 {
			break
		}
		var holds []string
		for _, t := range common {
			holds = append(holds, or(equal("heading_terms", t), equal("body_terms", t)))
		}
		match := or(holds...)
		if all {
			match = and(holds...)
		}
		objs, err := b.candidates(ctx, cols, whereArg(append(slices.Clone(filters), match))[2:], m)
		if err != nil {
			return nil, err
		}
		add(objs)
	}
	return out, nil
}

// candidates runs one search over the classes of the collections, in collection order.
func (b *Backend) candidates(ctx context.Context, cols []collectionObject, args string, limit int) ([]candidateObject, error) {
	var q strings.Builder
	q.WriteString("{ Get {")
	for _, c := range cols {
		fmt.Fprintf(&q, " %s(%s, limit: %d) { %s _additional { score } }", b.chunkClass(c.Name), args, limit, candidateProperties)
	}
	q.WriteString(" } }")
	var data struct {
		Get map[string][]candidateObject
	}
	if err := b.graphQL(ctx, q.String(), &data); err != nil {
		return nil, fmt.Errorf("couldn't search the lexical index: %w", err)
	}
	var out []candidateObject
	for _, c := range cols {
		out = append(out, data.Get[b.chunkClass(c.Name)]...)
	}
	return out, nil
}

// Dense ranks chunks in scope by cosine similarity to a query vector through each
// collection's HNSW index; a search within a document is filtered to it, which Weaviate
// answers by an exact scan.
func (b *Backend) Dense(ctx context.Context, vector []float32, scope kb.Scope, k int) ([]kb.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	cols, err := b.scopeCollections(ctx, scope)
	if err != nil {
		return nil, err
	}
	cols = slices.DeleteFunc(cols, func(c collectionObject) bool { return c.Dim == 0 }) // no vectors yet
	for _, c := range cols {
		if c.Dim != len(vector) {
			return nil, &kb.EmbedderMismatchError{Collection: c.Name, Built: c.Embedder, BuiltDim: c.Dim, AskedDim: len(vector)}
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	vec, _ := json.Marshal(vector)
	var q strings.Builder
	q.WriteString("{ Get {")
	for _, c := range cols {
		fmt.Fprintf(&q, " %s(nearVector: {vector: %s}%s, limit: %d) { chunk_id _additional { distance } }",
			b.chunkClass(c.Name), vec, whereArg(scopeFilters(scope)), k)
	}
	q.WriteString(" } }")
	var data struct {
		Get map[string][]chunkObject
	}
	if err := b.graphQL(ctx, q.String(), &data); err != nil {
		return nil, fmt.Errorf("couldn't search the vectors: %w", err)
	}
	var hits []kb.Hit
	for _, c := range cols {
		for _, o := range data.Get[b.chunkClass(c.Name)] {
			hits = append(hits, kb.Hit{ChunkID: o.ChunkID, Score: 1 - o.Additional.Distance})
		}
	}
	slices.SortStableFunc(hits, func(a, c kb.Hit) int { return cmp.Compare(c.Score, a.Score) })
	return hits[:min(len(hits), k)], nil
}

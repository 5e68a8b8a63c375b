package weaviatekb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"golang.org/x/sync/errgroup"

	"warren/kb"
	"warren/kb/analysis"
	"warren/kb/chunk"
	"warren/kb/lexical"
)

// Lexical ranks chunks by warren's BM25 with pseudo-relevance feedback (lexical.Rank), the
// candidates and statistics coming from Weaviate, all read over one list of collections.
func (b *Backend) Lexical(ctx context.Context, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	return b.LexicalPooled(ctx, query, lang, scope, k, lexical.CandidatePool(k))
}

// LexicalPooled is Lexical with the feedback ranking again the best pool candidates, as
// kb.Store.LexicalPooled.
func (b *Backend) LexicalPooled(ctx context.Context, query, lang string, scope chunk.Scope, k, pool int) ([]chunk.Hit, error) {
	terms := analysis.QueryTerms(query, lang)
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	var hits []chunk.Hit
	err := b.read(ctx, func(s *snapshot) error {
		var err error
		src := &lexicalReader{b: b, snap: s, prefetch: terms, df: map[string]int64{}}
		hits, err = lexical.RankPooled(ctx, src, b.opts.Lexical, query, lang, scope, k, pool)
		return err
	})
	return hits, err
}

// lexicalReader is the lexical index as one search reads it: over one list of collections,
// counting the query's terms beside the totals, so the ranking's first two questions cost one
// round trip.
type lexicalReader struct {
	b        *Backend
	snap     *snapshot
	prefetch []string         // the query's terms
	df       map[string]int64 // what this search counted
	totals   *lexical.Totals  // what this search read, once read
	lengths  *keptLengths     // the length sums and identities this search read, once read
}

func (r *lexicalReader) LexicalTotals(ctx context.Context) (lexical.Totals, error) {
	var t lexical.Totals
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		t, err = r.b.totals(gctx, r.snap)
		return err
	})
	g.Go(func() error { return r.b.frequencies(gctx, r.snap, r.prefetch, r.df) })
	if err := g.Wait(); err != nil {
		return t, err
	}
	r.totals = &t
	return t, nil
}

// readTotals are the totals this search read, or reads them (LengthB without a ranking).
func (r *lexicalReader) readTotals(ctx context.Context) (lexical.Totals, error) {
	if r.totals != nil {
		return *r.totals, nil
	}
	t, err := r.b.totals(ctx, r.snap)
	if err == nil {
		r.totals = &t
	}
	return t, err
}

func (r *lexicalReader) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	out := make(map[string]int64, len(terms))
	var missing []string
	for _, t := range terms {
		if n, ok := r.df[t]; ok {
			out[t] = n
		} else {
			missing = append(missing, t)
		}
	}
	if err := r.b.frequencies(ctx, r.snap, missing, out); err != nil {
		return nil, err
	}
	for _, t := range missing {
		r.df[t] = out[t]
	}
	return out, nil
}

func (r *lexicalReader) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
	return r.b.lexicalCandidates(ctx, r.snap, rare, common, scope, m, want)
}

// inScope returns the collections of a list that a scope searches.
func inScope(s *snapshot, scope chunk.Scope) []collectionObject {
	if len(scope.Collections) == 0 {
		return s.cols
	}
	return slices.DeleteFunc(slices.Clone(s.cols), func(c collectionObject) bool { return !slices.Contains(scope.Collections, c.Name) })
}

// scopeFilters are the filters of a scope within its collections' classes: the document and,
// with it, the section (which includes its subsections through the chunk's "sections").
func scopeFilters(scope chunk.Scope) []string {
	var out []string
	if scope.Doc != "" {
		out = append(out, equal("doc", scope.Doc))
		if scope.Section != "" {
			out = append(out, equal("sections", scope.Section))
		}
	}
	return out
}

// scopeWhere is scopeFilters for a gRPC search.
func scopeWhere(scope chunk.Scope) []*filters.WhereBuilder {
	var out []*filters.WhereBuilder
	if scope.Doc != "" {
		out = append(out, whereText("doc", filters.Equal, scope.Doc))
		if scope.Section != "" {
			out = append(out, whereText("sections", filters.Equal, scope.Section))
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
func (b *Backend) LexicalTotals(ctx context.Context) (lexical.Totals, error) {
	var t lexical.Totals
	err := b.read(ctx, func(s *snapshot) (err error) {
		t, err = b.totals(ctx, s)
		return err
	})
	return t, err
}

// totals counts the chunks of the listed collections and their heading and body terms.
func (b *Backend) totals(ctx context.Context, s *snapshot) (lexical.Totals, error) {
	if t, ok := b.cache.keptTotals(s); ok {
		return t, nil
	}
	var t lexical.Totals
	if len(s.cols) == 0 {
		return t, nil
	}
	var err error
	if b.rpc != nil {
		t, err = b.totalsRPC(ctx, s)
	} else {
		t, err = b.totalsGraphQL(ctx, s)
	}
	if err != nil {
		return lexical.Totals{}, fmt.Errorf("couldn't count the lexical index: %w", err)
	}
	b.cache.remember(s, time.Now(), pendingRead{totals: &t})
	return t, nil
}

func (b *Backend) totalsRPC(ctx context.Context, s *snapshot) (lexical.Totals, error) {
	each := make([]lexical.Totals, len(s.cols))
	err := eachParallel(ctx, len(s.cols), func(ctx context.Context, i int) error {
		n, sums, err := b.rpc.sums(ctx, b.chunkClass(s.cols[i].Name), "heading_len", "body_len")
		each[i] = lexical.Totals{Chunks: n, Heading: sums["heading_len"], Body: sums["body_len"]}
		return err
	})
	var t lexical.Totals
	for _, e := range each {
		t.Chunks, t.Heading, t.Body = t.Chunks+e.Chunks, t.Heading+e.Heading, t.Body+e.Body
	}
	return t, err
}

func (b *Backend) totalsGraphQL(ctx context.Context, s *snapshot) (lexical.Totals, error) {
	var q strings.Builder
	q.WriteString("{ Aggregate {")
	for _, c := range s.cols {
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
		return lexical.Totals{}, err
	}
	var t lexical.Totals
	for _, groups := range data.Aggregate {
		for _, g := range groups {
			t.Chunks += g.Meta.Count
			t.Heading += int64(g.HeadingLen.Sum)
			t.Body += int64(g.BodyLen.Sum)
		}
	}
	return t, nil
}

// DocumentFrequencies counts, for each term, the chunks of every collection whose heading
// or body holds it.
func (b *Backend) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	var out map[string]int64
	err := b.read(ctx, func(s *snapshot) error {
		out = make(map[string]int64, len(terms))
		return b.frequencies(ctx, s, terms, out)
	})
	return out, err
}

// frequencies adds to out the document frequency of each term over the listed collections,
// 0 for a term found nowhere: all from the term table when one is kept (termtable.go), else
// those kept, and the others counted (and kept once confirmed).
func (b *Backend) frequencies(ctx context.Context, s *snapshot, terms []string, out map[string]int64) error {
	if len(terms) == 0 || b.tableFrequencies(s, terms, out) {
		return nil
	}
	missing := b.cache.keptFrequencies(s, slices.Compact(slices.Sorted(slices.Values(terms))), out)
	if len(missing) == 0 {
		return nil
	}
	counted := make(map[string]int64, len(missing))
	b.termCounts.Add(int64(len(missing) * len(s.cols)))
	var err error
	if b.rpc != nil {
		err = b.frequenciesRPC(ctx, s, missing, counted)
	} else {
		err = b.frequenciesGraphQL(ctx, s, missing, counted)
	}
	if err != nil {
		return fmt.Errorf("couldn't read term statistics: %w", err)
	}
	b.cache.remember(s, time.Now(), pendingRead{df: counted})
	for t, n := range counted {
		out[t] = n
	}
	return nil
}

// holds selects the chunks whose heading or body holds a term.
func holds(term string) *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
		whereText("heading_terms", filters.Equal, term), whereText("body_terms", filters.Equal, term)})
}

// frequenciesRPC counts each term in each class, a count per request, side by side.
func (b *Backend) frequenciesRPC(ctx context.Context, s *snapshot, terms []string, out map[string]int64) error {
	n := len(s.cols)
	counts := make([]int64, len(terms)*n)
	err := eachParallel(ctx, len(counts), func(ctx context.Context, i int) (err error) {
		counts[i], err = b.rpc.count(ctx, b.chunkClass(s.cols[i%n].Name), holds(terms[i/n]))
		return err
	})
	if err != nil {
		return err
	}
	for i, t := range terms {
		out[t] = 0
		for _, c := range counts[i*n : (i+1)*n] {
			out[t] += c
		}
	}
	return nil
}

// dfBatch is how many term counts one GraphQL request asks for.
const dfBatch = 64

// frequenciesGraphQL counts each term in each class, many counts to a request.
func (b *Backend) frequenciesGraphQL(ctx context.Context, s *snapshot, terms []string, out map[string]int64) error {
	type count struct{ term, class string }
	var all []count
	for _, t := range terms {
		out[t] = 0
		for _, c := range s.cols {
			all = append(all, count{t, b.chunkClass(c.Name)})
		}
	}
	batches := (len(all) + dfBatch - 1) / dfBatch
	results := make([]map[string]int64, batches)
	err := eachParallel(ctx, batches, func(ctx context.Context, n int) error {
		batch := all[n*dfBatch : min((n+1)*dfBatch, len(all))]
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
			return err
		}
		results[n] = map[string]int64{}
		for i, c := range batch {
			for _, g := range data.Aggregate["c"+strconv.Itoa(i)] {
				results[n][c.term] += g.Meta.Count
			}
		}
		return nil
	})
	for _, r := range results {
		for t, n := range r {
			out[t] += n
		}
	}
	return err
}

type candidateObject struct {
	ChunkID      string  `json:"chunk_id"`
	Order        float64 `json:"ingest_order"`
	HeadingTerms string  `json:"heading_terms"`
	BodyTerms    string  `json:"body_terms"`
	Additional   struct {
		Score string `json:"score"`
	} `json:"_additional"`
	score float64
}

var candidatePropertyList = []string{"chunk_id", "ingest_order", "heading_terms", "body_terms"}

// LexicalCandidates proposes chunks in scope as lexical.Source asks: those holding a rare
// term, best first by Weaviate's BM25 (k1 and b as configured, the heading weighted as in
// warren's ranking); then, while fewer than want, those holding all common terms, then any of
// them, in the server's order.
func (b *Backend) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
	var out []lexical.Candidate
	err := b.read(ctx, func(s *snapshot) (err error) {
		out, err = b.lexicalCandidates(ctx, s, rare, common, scope, m, want)
		return err
	})
	return out, err
}

func (b *Backend) lexicalCandidates(ctx context.Context, s *snapshot, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
	cols := inScope(s, scope)
	if len(cols) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []lexical.Candidate
	add := func(objs []candidateObject) {
		for _, o := range objs {
			if len(out) >= m {
				return
			}
			if !seen[o.ChunkID] {
				seen[o.ChunkID] = true
				out = append(out, lexical.Candidate{ID: o.ChunkID, Order: int64(o.Order), Heading: o.HeadingTerms, Body: o.BodyTerms})
			}
		}
	}
	if len(rare) > 0 {
		objs, err := b.bm25Candidates(ctx, cols, strings.Join(rare, " "), scope, m)
		if err != nil {
			return nil, err
		}
		// Scores from different classes are each class's own BM25: close enough to choose
		// candidates, which warren ranks itself.
		slices.SortStableFunc(objs, func(a, c candidateObject) int { return cmp.Compare(c.score, a.score) })
		add(objs)
	}
	if len(common) == 0 || len(out) >= want {
		return out, nil
	}
	for _, all := range []bool{true, false} {
		if len(out) >= m || !all && len(common) == 1 {
			break
		}
		objs, err := b.holdingCandidates(ctx, cols, common, all, scope, m)
		if err != nil {
			return nil, err
		}
		add(objs)
	}
	return out, nil
}

// bm25Candidates runs Weaviate's BM25 over the classes of the collections, each class's best
// m in collection order.
func (b *Backend) bm25Candidates(ctx context.Context, cols []collectionObject, query string, scope chunk.Scope, m int) ([]candidateObject, error) {
	hw := strconv.FormatFloat(max(b.opts.Lexical.HeadingWeight, 1), 'f', -1, 64)
	props := []string{"heading_terms^" + hw, "body_terms"}
	if b.rpc == nil {
		quoted, _ := json.Marshal(props)
		search := fmt.Sprintf(`bm25: {query: %s, properties: %s}`, quote(query), quoted)
		return b.candidatesGraphQL(ctx, cols, search+whereArg(scopeFilters(scope)), m)
	}
	where := scopeWhere(scope)
	return b.candidatesRPC(ctx, cols, m, func(s *graphql.Search) {
		s.WithBM25((&graphql.BM25ArgumentBuilder{}).WithQuery(query).WithProperties(props...))
		if len(where) > 0 {
			s.WithWhere(whereAnd(where...))
		}
	})
}

// holdingCandidates reads up to m chunks of each class that hold all (or any) of the terms,
// in the server's order.
func (b *Backend) holdingCandidates(ctx context.Context, cols []collectionObject, terms []string, all bool, scope chunk.Scope, m int) ([]candidateObject, error) {
	if b.rpc == nil {
		var each []string
		for _, t := range terms {
			each = append(each, or(equal("heading_terms", t), equal("body_terms", t)))
		}
		match := or(each...)
		if all {
			match = and(each...)
		}
		return b.candidatesGraphQL(ctx, cols, whereArg(append(scopeFilters(scope), match))[2:], m)
	}
	var each []*filters.WhereBuilder
	for _, t := range terms {
		each = append(each, holds(t))
	}
	match := whereOr(each...)
	if all {
		match = whereAnd(each...)
	}
	where := whereAnd(append(scopeWhere(scope), match)...)
	return b.candidatesRPC(ctx, cols, m, func(s *graphql.Search) { s.WithWhere(where) })
}

// candidatesGraphQL runs one search over the classes of the collections, in collection order.
func (b *Backend) candidatesGraphQL(ctx context.Context, cols []collectionObject, args string, limit int) ([]candidateObject, error) {
	var q strings.Builder
	q.WriteString("{ Get {")
	for _, c := range cols {
		fmt.Fprintf(&q, " %s(%s, limit: %d) { %s _additional { score } }", b.chunkClass(c.Name), args, limit,
			strings.Join(candidatePropertyList, " "))
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
		for _, o := range data.Get[b.chunkClass(c.Name)] {
			o.score, _ = strconv.ParseFloat(o.Additional.Score, 64)
			out = append(out, o)
		}
	}
	return out, nil
}

// candidatesRPC runs a gRPC search in each class side by side; the results come in
// collection order.
func (b *Backend) candidatesRPC(ctx context.Context, cols []collectionObject, limit int, set func(*graphql.Search)) ([]candidateObject, error) {
	found := make([][]candidateObject, len(cols))
	err := eachParallel(ctx, len(cols), func(ctx context.Context, i int) error {
		res, err := b.search(ctx, b.chunkClass(cols[i].Name), limit, candidatePropertyList, &graphql.Metadata{Score: true}, set)
		if err != nil {
			return fmt.Errorf("couldn't search the lexical index: %w", err)
		}
		for _, r := range res {
			p := r.Properties
			found[i] = append(found[i], candidateObject{ChunkID: textProp(p, "chunk_id"), Order: numberProp(p, "ingest_order"),
				HeadingTerms: textProp(p, "heading_terms"), BodyTerms: textProp(p, "body_terms"), score: float64(r.Metadata.Score)})
		}
		return nil
	})
	return slices.Concat(found...), err
}

// Dense ranks chunks in scope by cosine similarity to a query vector through each
// collection's HNSW index; a search within a document is filtered to it, which Weaviate
// answers by an exact scan.
func (b *Backend) Dense(ctx context.Context, vector []float32, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	var hits []chunk.Hit
	err := b.read(ctx, func(s *snapshot) error {
		cols := slices.DeleteFunc(inScope(s, scope), func(c collectionObject) bool { return c.Dim == 0 }) // no vectors yet
		for _, c := range cols {
			if c.Dim != len(vector) {
				return &kb.EmbedderMismatchError{Collection: c.Name, Built: c.Embedder, BuiltDim: c.Dim, AskedDim: len(vector)}
			}
		}
		var err error
		if b.rpc != nil {
			hits, err = b.denseRPC(ctx, cols, vector, scope, k)
		} else {
			hits, err = b.denseGraphQL(ctx, cols, vector, scopeFilters(scope), k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(hits, func(a, c chunk.Hit) int { return cmp.Compare(c.Score, a.Score) })
	return hits[:min(len(hits), k)], nil
}

// denseGraphQL searches the classes' vectors in one GraphQL request, within the filters; the
// hits come in collection order.
func (b *Backend) denseGraphQL(ctx context.Context, cols []collectionObject, vector []float32, where []string, k int) ([]chunk.Hit, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	vec, _ := json.Marshal(vector)
	var q strings.Builder
	q.WriteString("{ Get {")
	for _, c := range cols {
		fmt.Fprintf(&q, " %s(nearVector: {vector: %s}%s, limit: %d) { chunk_id _additional { distance } }",
			b.chunkClass(c.Name), vec, whereArg(where), k)
	}
	q.WriteString(" } }")
	var data struct {
		Get map[string][]chunkObject
	}
	if err := b.graphQL(ctx, q.String(), &data); err != nil {
		return nil, fmt.Errorf("couldn't search the vectors: %w", err)
	}
	var hits []chunk.Hit
	for _, c := range cols {
		for _, o := range data.Get[b.chunkClass(c.Name)] {
			hits = append(hits, chunk.Hit{ChunkID: o.ChunkID, Score: 1 - o.Additional.Distance})
		}
	}
	return hits, nil
}

// denseRPC searches each class's vectors over gRPC, side by side, within the scope and the
// extra filters; the hits come in collection order.
func (b *Backend) denseRPC(ctx context.Context, cols []collectionObject, vector []float32, scope chunk.Scope, k int, extra ...*filters.WhereBuilder) ([]chunk.Hit, error) {
	where := append(scopeWhere(scope), extra...)
	found := make([][]chunk.Hit, len(cols))
	err := eachParallel(ctx, len(cols), func(ctx context.Context, i int) error {
		res, err := b.search(ctx, b.chunkClass(cols[i].Name), k, []string{"chunk_id"}, &graphql.Metadata{Distance: true}, func(s *graphql.Search) {
			s.WithNearVector((&graphql.NearVectorArgumentBuilder{}).WithVector(vector))
			if len(where) > 0 {
				s.WithWhere(whereAnd(where...))
			}
		})
		if err != nil {
			return fmt.Errorf("couldn't search the vectors: %w", err)
		}
		for _, r := range res {
			found[i] = append(found[i], chunk.Hit{ChunkID: textProp(r.Properties, "chunk_id"), Score: 1 - float64(r.Metadata.Distance)})
		}
		return nil
	})
	return slices.Concat(found...), err
}

// Similarities gives the cosine similarity of a query vector to each of the chunks ids that a
// collection in scope holds (all collections when scope names none), as Dense scores them, so
// that hybrid search weighs every lexical candidate on the dense side too (as with
// kb.Store.Similarities). Chunks not found, and collections whose vectors have another length
// than the query's, are left out. Weaviate compares the query with just those chunks: a
// search filtered to a few objects scans them exactly.
func (b *Backend) Similarities(ctx context.Context, vector []float32, scope chunk.Scope, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var hits []chunk.Hit
	err := b.read(ctx, func(s *snapshot) error {
		cols := slices.DeleteFunc(inScope(s, chunk.Scope{Collections: scope.Collections}), func(c collectionObject) bool { return c.Dim != len(vector) })
		var err error
		if b.rpc != nil && len(ids) <= pageSize {
			hits, err = b.denseRPC(ctx, cols, vector, chunk.Scope{}, len(ids), filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(ids...))
		} else {
			hits, err = b.denseGraphQL(ctx, cols, vector, []string{containsAny("chunk_id", ids)}, min(len(ids), maxResults))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out[h.ChunkID] = h.Score
	}
	return out, nil
}

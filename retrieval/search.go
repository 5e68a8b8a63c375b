// Package retrieval finds passages in the knowledge base: hybrid search (BM25 and dense
// similarity, fused by normalised score when a model embedded the collections), scoped search
// by collection, document and section, the relevance filter, and reference resolution.
package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"warren/kb"
	"warren/kb/chunk"
)

// Mode chooses the rankings a search uses.
type Mode string

// Search modes.
const (
	Hybrid  Mode = "hybrid"
	Dense   Mode = "dense"
	Lexical Mode = "lexical"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Hybrid, Dense, Lexical:
		return m, nil
	case "":
		return Hybrid, nil
	}
	return "", fmt.Errorf("unknown search mode %q: use hybrid, dense or lexical", s)
}

// Searcher runs searches over a store.
type Searcher struct {
	Store kb.Backend

	// Model embeds queries for the collections an embedding model built: the configured
	// model's embedder (a kb.Ollama over the model gateway's EmbedFor); nil when none is
	// configured.
	Model kb.Embedder

	// Dimension learns the configured model's vector length (the gateway's EmbedDimension),
	// asked only to complete a mismatch message; nil when there is no model to ask.
	Dimension func(ctx context.Context) (int, error)

	// Embedder returns the embedder recorded for a collection; nil means kb.EmbedderFor with
	// Model. Benchmarks and tests plug in their own.
	Embedder func(id string) (kb.Embedder, error)

	// DenseWeight is the dense ranking's share of a hybrid score over collections that an
	// embedding model built (0 < w ≤ 1; 0 means DefaultDenseWeight). Collections of the
	// built-in embedder are never fused: see Search.
	DenseWeight float64

	// Readable, when set, confines every search to the collections an analyst may read: it
	// is given the names of the collections in scope and returns those it lets through. A
	// search whose scope it empties (a document in a collection it withholds, say) finds
	// nothing. Nil searches every collection.
	Readable func(ctx context.Context, collections []string) ([]string, error)
}

// EmbeddingWith returns a copy of s whose model (a kb.Ollama) embeds the queries through
// embed: an agent passes the gateway's embedding for its run (llm.Gateway.EmbedFor), so that
// the query embeddings of its searches are metered, recorded and replayed with its other model
// calls. A searcher whose model is not a kb.Ollama is returned as it is.
func (s *Searcher) EmbeddingWith(embed kb.EmbedFunc) *Searcher {
	if s == nil {
		return nil
	}
	model, ok := s.Model.(kb.Ollama)
	if !ok {
		return s
	}
	model.Func = embed
	c := *s
	c.Model = model
	return &c
}

// DefaultDenseWeight is the dense ranking's share in hybrid fusion (kb.dense_weight). It is
// small because a weak model must not pull a good lexical ranking down: with the GloVe word
// vectors of make e2e (dense MAP 0.23 on Cranfield, 0.09 on CISI) under issue 32's lexical
// ranking, 0.02 is the share of 0.02–0.2 at which hybrid search stays at or above lexical
// search on Cranfield, CISI and CACM alike; 0.1, chosen before, falls 0.0012 below it on
// Cranfield (docs/retrieval.md). A stronger model earns more through kb.dense_weight.
const DefaultDenseWeight = 0.02

// Request is one search.
type Request struct {
	Query    string
	Scope    chunk.Scope
	K        int
	Mode     Mode
	Language string // "de", "en" or "" (unknown)
}

// Result is a chunk with its fused score and its rank in each ranking (0: absent).
type Result struct {
	chunk.Chunk
	Score       float64 `json:"score"`
	LexicalRank int     `json:"lexical_rank,omitempty"`
	DenseRank   int     `json:"dense_rank,omitempty"`
}

// Search ranks chunks for the query.
//
// The hybrid mode depends on who embedded the collections in scope. Over collections of the
// built-in embedder it is the lexical ranking, followed by dense hits only when lexical
// search finds fewer than K chunks: the built-in vectors are hashed words and character
// n-grams of the same text, so they repeat the lexical evidence with more noise, and fusing
// them lowered MAP on Cranfield and CISI at every weight tried (docs/retrieval.md). Adding
// after the lexical ranking can never make it worse, and the n-grams still find a chunk for
// a query whose words the index lacks (an inflection the stemmer misses, a typing slip).
// Over collections that a model embedded, the two rankings are fused: each lexical candidate
// that the dense ranking did not reach is given its own similarity to the query (when the
// backend can score given chunks), each side's scores are scaled to 0…1 (min-max), and a
// chunk scores (1−w)·lexical + w·dense, with w the DenseWeight and 0 for a lexical score
// the chunk lacks.
func (s *Searcher) Search(ctx context.Context, req Request) ([]Result, error) {
	if req.K <= 0 {
		req.K = 10
	}
	mode, err := ParseMode(string(req.Mode))
	if err != nil {
		return nil, err
	}
	if s.Readable != nil {
		var inScope bool
		if req.Scope, inScope, err = s.confine(ctx, req.Scope); err != nil || !inScope {
			return nil, err
		}
	}
	var plan densePlan
	if mode != Lexical {
		if plan, err = s.planDense(ctx, req.Scope); err != nil {
			return nil, err
		}
	}
	var fused []Result
	var byID map[string]chunk.Chunk // the chunks read so far
	switch {
	case mode == Hybrid && plan.builtinOnly:
		fused, err = s.lexicalFirst(ctx, req, plan)
	default:
		fused, byID, err = s.fused(ctx, req, mode, plan)
	}
	if err != nil {
		return nil, err
	}
	if len(fused) > req.K {
		fused = fused[:req.K]
	}
	var ids []string
	for _, r := range fused {
		if _, ok := byID[r.ID]; !ok {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > 0 {
		if byID, err = s.readChunks(ctx, ids, byID); err != nil {
			return nil, err
		}
	}
	out := fused[:0]
	for _, r := range fused {
		if c, ok := byID[r.ID]; ok {
			r.Chunk = c
			out = append(out, r)
		}
	}
	return out, nil
}

// confine narrows scope to the collections Readable lets through, naming them all even when
// the scope named none, so that every ranking below filters by them; false when none
// is left.
func (s *Searcher) confine(ctx context.Context, scope chunk.Scope) (chunk.Scope, bool, error) {
	names := scope.Collections
	if len(names) == 0 {
		cols, err := s.Store.Collections(ctx)
		if err != nil {
			return scope, false, err
		}
		for _, c := range cols {
			names = append(names, c.Name)
		}
	}
	if scope.Doc != "" {
		// The dense plan searches a document's collection whatever the scope names: check it here.
		d, ok, err := s.Store.Document(ctx, scope.Doc)
		if err != nil || !ok {
			return scope, false, err
		}
		if !slices.Contains(names, d.Collection) {
			return scope, false, nil
		}
		names = []string{d.Collection}
	}
	readable, err := s.Readable(ctx, names)
	if err != nil || len(readable) == 0 {
		return scope, false, err
	}
	scope.Collections = readable
	return scope, true, nil
}

// fused runs the rankings the mode asks for, side by side, and combines them. The dense side
// (embedding the query, then searching) runs on the caller's goroutine and, in hybrid mode,
// the lexical side on one of its own: the embedding call is the longest step of a real hybrid search, and a
// goroutine takes about 0.1 ms to start on an idle core of this 2-core machine, which the
// lexical side, shorter than the dense one, can afford.
//
// In hybrid mode the lexical side then reads its best K chunks while the dense side is still
// embedding or searching: most of fusion's best K are among them (the lexical ranking has the
// larger share), and Search reads only the others. They are returned by ID. Read after the
// fusion, they took 0.14 ms of a 0.8 ms hybrid query at 100,000 chunks. Last, once the query
// is embedded, it scores its own hits against the query vector.
func (s *Searcher) fused(ctx context.Context, req Request, mode Mode, plan densePlan) ([]Result, map[string]chunk.Chunk, error) {
	depth := req.K
	if mode == Hybrid {
		depth = max(4*req.K, 40) // fusion needs the tails of both rankings
	}
	var lexical, dense []chunk.Hit
	var similar map[string]float64
	var read map[string]chunk.Chunk
	var lexErr, denseErr error
	embedded := make(chan []groupQuery, 1) // the dense side's query vectors; empty on failure
	var lexPanic any
	lexicalSide := func() {
		// A panic on this goroutine would end the process, whoever searched: it is raised
		// again on the caller's, where the job or workbench that searched recovers it.
		defer func() {
			if v := recover(); v != nil {
				lexPanic = fmt.Sprintf("%v\n\nlexical side of a hybrid search:\n%s", v, debug.Stack())
			}
		}()
		lexical, lexErr = s.lexical(ctx, req, mode, depth)
		if mode == Hybrid && lexErr == nil {
			read, lexErr = s.readAhead(ctx, lexical[:min(len(lexical), req.K)])
		}
		if mode == Hybrid && lexErr == nil {
			similar, lexErr = s.similarities(ctx, lexical, <-embedded)
		}
	}
	var wg sync.WaitGroup
	switch mode {
	case Lexical:
		lexicalSide()
	case Hybrid:
		wg.Go(lexicalSide)
	}
	if mode != Lexical {
		queries, err := func() (q []groupQuery, err error) {
			defer func() { embedded <- q }() // whatever happens, the lexical side is not left waiting
			return s.embedQuery(ctx, req.Query, req.Scope, plan)
		}()
		denseErr = err
		if denseErr == nil {
			dense, denseErr = s.searchDense(ctx, queries, depth)
		}
	}
	wg.Wait()
	if lexPanic != nil {
		panic(lexPanic)
	}
	if err := errors.Join(lexErr, denseErr); err != nil {
		return nil, nil, err
	}
	ranked := len(dense)
	if mode == Hybrid {
		dense = append(dense, beyondRanking(lexical, dense, similar)...)
	}
	w := s.DenseWeight
	if w <= 0 || w > 1 {
		w = DefaultDenseWeight
	}
	return fuse(mode, lexical, dense, ranked, w), read, nil
}

// pooledLexical is a backend whose lexical ranking can be given the pool of candidates that
// its feedback ranks again (kb.Store.LexicalPooled).
type pooledLexical interface {
	LexicalPooled(ctx context.Context, query, lang string, scope chunk.Scope, k, pool int) ([]chunk.Hit, error)
}

// lexical is the lexical ranking that the mode fuses. For hybrid search it is the depth best
// chunks of the query's BM25 ranking (4 × K, at least 40), reordered by the feedback: the
// pool is the depth itself, where a lexical search for K keeps a floor of 200. At
// K = 10 that floor took half of a hybrid query's lexical time over 100,000 chunks, and the
// fused ranking gets its candidates from the dense side as well. On Cranfield and CISI, a pool
// of 40 and one of 200 give lexical top tens of the same quality (kb's
// TestAFeedbackPoolOfFortyRanksTheTopTenAsWellAsTwoHundred).
func (s *Searcher) lexical(ctx context.Context, req Request, mode Mode, depth int) ([]chunk.Hit, error) {
	if p, ok := s.Store.(pooledLexical); ok && mode == Hybrid {
		return p.LexicalPooled(ctx, req.Query, req.Language, req.Scope, depth, depth)
	}
	return s.Store.Lexical(ctx, req.Query, req.Language, req.Scope, depth)
}

// readAhead reads the hits' chunks, by ID.
func (s *Searcher) readAhead(ctx context.Context, hits []chunk.Hit) (map[string]chunk.Chunk, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	return s.readChunks(ctx, ids, nil)
}

// readChunks reads the chunks of ids into byID (a new map when nil) and returns it.
func (s *Searcher) readChunks(ctx context.Context, ids []string, byID map[string]chunk.Chunk) (map[string]chunk.Chunk, error) {
	chunks, err := s.Store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	if byID == nil {
		byID = make(map[string]chunk.Chunk, len(chunks))
	}
	for _, c := range chunks {
		byID[c.ID] = c
	}
	return byID, nil
}

// similarityScorer is a backend that can score given chunks against a query vector without
// ranking a collection (kb.Store.Similarities).
type similarityScorer interface {
	Similarities(ctx context.Context, vector []float32, scope chunk.Scope, ids []string) (map[string]float64, error)
}

// similarities gives the lexical hits' own similarity to the query, in each group's scope;
// none when the backend cannot score given chunks.
func (s *Searcher) similarities(ctx context.Context, lexical []chunk.Hit, queries []groupQuery) (map[string]float64, error) {
	scorer, ok := s.Store.(similarityScorer)
	if !ok || len(lexical) == 0 {
		return nil, nil
	}
	ids := make([]string, len(lexical))
	for i, h := range lexical {
		ids[i] = h.ChunkID
	}
	found := map[string]float64{}
	for _, q := range queries {
		sims, err := scorer.Similarities(ctx, q.vector, q.scope, ids)
		if err != nil {
			return nil, err
		}
		for id, v := range sims {
			found[id] = v
		}
	}
	return found, nil
}

// beyondRanking gives the lexical hits that the dense ranking did not reach with their own
// similarity to the query, so that fusion weighs every lexical candidate on both sides:
// missing from the dense ranking's best only means less similar than its last hit, not
// unrelated. It returns them as hits, most similar first, to append after the ranking.
func beyondRanking(lexical, dense []chunk.Hit, similar map[string]float64) []chunk.Hit {
	inDense := make(map[string]bool, len(dense))
	for _, h := range dense {
		inDense[h.ChunkID] = true
	}
	var extra []chunk.Hit
	for _, h := range lexical {
		if v, ok := similar[h.ChunkID]; ok && !inDense[h.ChunkID] {
			extra = append(extra, chunk.Hit{ChunkID: h.ChunkID, Score: v})
		}
	}
	sort.SliceStable(extra, func(i, j int) bool { return extra[i].Score > extra[j].Score })
	return extra
}

// lexicalFirst is the hybrid mode over built-in vectors: the lexical ranking, then, when it
// has fewer than K chunks, the dense ranking's other chunks after it (score 0, in dense order).
func (s *Searcher) lexicalFirst(ctx context.Context, req Request, plan densePlan) ([]Result, error) {
	lexical, err := s.Store.Lexical(ctx, req.Query, req.Language, req.Scope, req.K)
	if err != nil {
		return nil, err
	}
	out := fuse(Lexical, lexical, nil, 0, 0)
	if len(out) >= req.K {
		return out, nil
	}
	dense, err := s.dense(ctx, req.Query, req.Scope, plan, req.K)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(out))
	for i, r := range out {
		at[r.ID] = i
	}
	for i, h := range dense {
		if j, ok := at[h.ChunkID]; ok {
			out[j].DenseRank = i + 1
			continue
		}
		out = append(out, Result{Chunk: chunk.Chunk{ID: h.ChunkID}, DenseRank: i + 1})
	}
	return out, nil
}

// densePlan is who embeds the query for which collections in scope.
type densePlan struct {
	groups      []denseGroup
	builtinOnly bool // every collection searched was built by the built-in embedder
}

type denseGroup struct {
	embedder    kb.Embedder
	collections []kb.CollectionInfo
}

// searchableLister is a backend that lists the collections holding chunks without counting
// them (kb.Store.SearchableCollections).
type searchableLister interface {
	SearchableCollections(ctx context.Context) ([]kb.CollectionInfo, error)
}

// searchable lists the collections that hold chunks, sorted by name.
func (s *Searcher) searchable(ctx context.Context) ([]kb.CollectionInfo, error) {
	if l, ok := s.Store.(searchableLister); ok {
		return l.SearchableCollections(ctx)
	}
	cols, err := s.Store.Collections(ctx)
	return slices.DeleteFunc(cols, func(c kb.CollectionInfo) bool { return c.Chunks == 0 }), err
}

// planDense groups the collections in scope by the embedder that built them and finds the
// embedder each group's query needs, without embedding anything yet.
//
// A collection embedded with another model or dimension than warren would use now fails the
// whole search with its *kb.EmbedderMismatchError (errors.Is kb.ErrEmbedderChanged), in
// hybrid mode too: a ranking that silently lost its dense half would look like an answer.
// The Lexical mode still searches such a collection.
func (s *Searcher) planDense(ctx context.Context, scope chunk.Scope) (densePlan, error) {
	plan := densePlan{builtinOnly: true}
	cols, err := s.searchable(ctx)
	if err != nil {
		return plan, err
	}
	if scope.Doc != "" {
		d, ok, err := s.Store.Document(ctx, scope.Doc)
		if err != nil || !ok {
			return plan, err
		}
		scope.Collections = []string{d.Collection}
	}
	wanted := map[string]bool{}
	for _, c := range scope.Collections {
		wanted[c] = true
	}
	groups := map[string][]kb.CollectionInfo{} // embedder → collections
	var ids []string
	for _, c := range cols {
		if len(wanted) > 0 && !wanted[c.Name] {
			continue
		}
		if _, ok := groups[c.Embedder]; !ok {
			ids = append(ids, c.Embedder)
		}
		groups[c.Embedder] = append(groups[c.Embedder], c)
	}
	sort.Strings(ids) // collections come sorted by name: a mismatch names the same one each time
	for _, id := range ids {
		group := groups[id]
		emb, err := s.embedderFor(ctx, group[0])
		if err != nil {
			return plan, err
		}
		plan.builtinOnly = plan.builtinOnly && id == (kb.Builtin{}).ID()
		plan.groups = append(plan.groups, denseGroup{embedder: emb, collections: group})
	}
	return plan, nil
}

// groupQuery is the query as one group of the plan embedded it, and the scope of its
// collections.
type groupQuery struct {
	vector []float32
	scope  chunk.Scope
}

// dense embeds the query once per group of the plan and searches the group's collections
// with it.
func (s *Searcher) dense(ctx context.Context, query string, scope chunk.Scope, plan densePlan, k int) ([]chunk.Hit, error) {
	queries, err := s.embedQuery(ctx, query, scope, plan)
	if err != nil {
		return nil, err
	}
	return s.searchDense(ctx, queries, k)
}

// embedQuery embeds the query once per group of the plan, each with the scope of the group's
// collections, and checks that those collections were built by the same embedder.
func (s *Searcher) embedQuery(ctx context.Context, query string, scope chunk.Scope, plan densePlan) ([]groupQuery, error) {
	var queries []groupQuery
	for _, g := range plan.groups {
		vecs, err := g.embedder.Embed(ctx, []string{query}, nil)
		if err != nil {
			return nil, fmt.Errorf("couldn't embed the query: %w", err)
		}
		if len(vecs) != 1 {
			return nil, fmt.Errorf("couldn't embed the query: %d vectors for one text", len(vecs))
		}
		sc := scope
		sc.Collections = nil
		for _, c := range g.collections {
			if err := c.CheckEmbedder(g.embedder.ID(), len(vecs[0])); err != nil {
				return nil, err
			}
			sc.Collections = append(sc.Collections, c.Name)
		}
		queries = append(queries, groupQuery{vector: vecs[0], scope: sc})
	}
	return queries, nil
}

// searchDense ranks each group's collections by similarity to its query vector and merges
// the rankings.
func (s *Searcher) searchDense(ctx context.Context, queries []groupQuery, k int) ([]chunk.Hit, error) {
	var hits []chunk.Hit
	for _, q := range queries {
		h, err := s.Store.Dense(ctx, q.vector, q.scope, k)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// embedderFor returns the embedder that searches a collection. When the configured model is
// another one, the mismatch also gives that model's dimension if it answers within
// dimensionProbe, so the analyst sees both sides.
func (s *Searcher) embedderFor(ctx context.Context, c kb.CollectionInfo) (kb.Embedder, error) {
	var emb kb.Embedder
	var err error
	if s.Embedder != nil {
		emb, err = s.Embedder(c.Embedder)
	} else {
		emb, err = c.QueryEmbedder(s.Model)
	}
	var mismatch *kb.EmbedderMismatchError
	switch {
	case errors.As(err, &mismatch):
		mismatch.Collection, mismatch.BuiltDim = c.Name, c.Dim
		if mismatch.AskedDim == 0 && s.Dimension != nil && strings.HasPrefix(mismatch.Asked, "ollama:") {
			probe, cancel := context.WithTimeout(ctx, dimensionProbe)
			if dim, err := s.Dimension(probe); err == nil {
				mismatch.AskedDim = dim
			}
			cancel()
		}
		return nil, mismatch
	case err != nil:
		return nil, fmt.Errorf("couldn't search %s: %w", c.Name, err)
	}
	return emb, nil
}

// dimensionProbe bounds the one call that learns the configured model's dimension for a
// mismatch message; the search fails either way.
const dimensionProbe = 3 * time.Second

// fuse combines the rankings. In hybrid mode each ranking's scores are scaled to 0…1 over its
// own hits (the best 1, the last 0; a ranking whose hits all score alike gives them all 1),
// and a chunk scores (1−denseWeight)·lexical + denseWeight·dense, 0 for a ranking that
// missed it. The dense hits after the first denseRanked are lexical candidates scored on the
// dense side alone (beyondRanking): they take part in the scaling and the score but
// have no dense rank. The other modes keep their one ranking's scores. Ties keep lexical
// order, then dense order, so results are deterministic.
func fuse(mode Mode, lexical, dense []chunk.Hit, denseRanked int, denseWeight float64) []Result {
	// Fused in compact records (a Result carries a whole chunk), then handed out as Results.
	type fusedHit struct {
		id               string
		score            float64
		lexRank, denRank int
	}
	hits := make([]fusedHit, 0, len(lexical)+len(dense))
	at := make(map[string]int, len(lexical)+len(dense))
	add := func(ranking []chunk.Hit, lexicalRanking bool, weight float64) {
		norm := minMax(ranking)
		for i, h := range ranking {
			j, ok := at[h.ChunkID]
			if !ok {
				j = len(hits)
				at[h.ChunkID] = j
				hits = append(hits, fusedHit{id: h.ChunkID})
			}
			r := &hits[j]
			switch {
			case lexicalRanking:
				r.lexRank = i + 1
			case i < denseRanked:
				r.denRank = i + 1
			}
			if mode == Hybrid {
				r.score += weight * norm(h.Score)
			} else {
				r.score = h.Score
			}
		}
	}
	add(lexical, true, 1-denseWeight)
	add(dense, false, denseWeight)
	slices.SortStableFunc(hits, func(a, b fusedHit) int { return cmp.Compare(b.score, a.score) })
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = Result{Chunk: chunk.Chunk{ID: h.id}, Score: h.score, LexicalRank: h.lexRank, DenseRank: h.denRank}
	}
	return out
}

// minMax scales a ranking's scores to 0…1 between its last and its best hit.
func minMax(hits []chunk.Hit) func(float64) float64 {
	if len(hits) == 0 {
		return func(float64) float64 { return 0 }
	}
	hi, lo := hits[0].Score, hits[0].Score
	for _, h := range hits {
		hi, lo = max(hi, h.Score), min(lo, h.Score)
	}
	if hi <= lo {
		return func(float64) float64 { return 1 }
	}
	return func(x float64) float64 { return (x - lo) / (hi - lo) }
}

// FilterRelevant keeps the items whose score reaches the threshold. When fewer than
// minResults pass, the best of the rejected ones are brought back to make up the number, so
// a strict threshold never leaves a task with nothing to read. Both lists keep input order
// for kept items and best-first order for backfill.
func FilterRelevant[T any](items []T, score func(T) float64, threshold float64, minResults int) (kept, rejected []T) {
	for _, it := range items {
		if score(it) >= threshold {
			kept = append(kept, it)
		} else {
			rejected = append(rejected, it)
		}
	}
	if len(kept) >= minResults || len(rejected) == 0 {
		return kept, rejected
	}
	sort.SliceStable(rejected, func(i, j int) bool { return score(rejected[i]) > score(rejected[j]) })
	n := min(minResults-len(kept), len(rejected))
	return append(kept, rejected[:n]...), rejected[n:]
}

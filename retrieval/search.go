// Package retrieval finds passages in the knowledge base: hybrid search (dense and BM25 fused
// by reciprocal rank), scoped search by collection, document and section, the relevance
// filter, and reference resolution.
package retrieval

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"warren/kb"
	"warren/llm"
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

// rrfK is the usual reciprocal-rank-fusion constant: it damps the head of each ranking so
// that neither ranking alone decides.
const rrfK = 60

// Searcher runs searches over a store.
type Searcher struct {
	Store   *kb.Store
	Gateway *llm.Gateway // for collections embedded by Ollama; may be nil

	// Embedder returns the embedder recorded for a collection; nil means kb.EmbedderFor with
	// Gateway. Benchmarks and tests plug in their own.
	Embedder func(id string) (kb.Embedder, error)

	// DenseWeight scales the dense ranking in hybrid fusion; 0 chooses by embedder: the
	// built-in embedder's hashed features mostly repeat the lexical evidence, so its ranking
	// counts BuiltinDenseWeight; a model's embeddings count fully.
	DenseWeight float64
}

// BuiltinDenseWeight is the automatic dense weight for collections of the built-in embedder.
const BuiltinDenseWeight = 0.25

// Request is one search.
type Request struct {
	Query    string
	Scope    kb.Scope
	K        int
	Mode     Mode
	Language string // "de", "en" or "" (unknown)
}

// Result is a chunk with its fused score and its rank in each ranking (0: absent).
type Result struct {
	kb.Chunk
	Score       float64 `json:"score"`
	LexicalRank int     `json:"lexical_rank,omitempty"`
	DenseRank   int     `json:"dense_rank,omitempty"`
}

// Search ranks chunks for the query.
func (s *Searcher) Search(ctx context.Context, req Request) ([]Result, error) {
	if req.K <= 0 {
		req.K = 10
	}
	mode, err := ParseMode(string(req.Mode))
	if err != nil {
		return nil, err
	}
	depth := req.K
	if mode == Hybrid {
		depth = max(4*req.K, 40) // fusion needs the tails of both rankings
	}
	// The two rankings are independent: run them side by side.
	var lexical, dense []kb.Hit
	var lexErr error
	var wg sync.WaitGroup
	if mode != Dense {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lexical, lexErr = s.Store.Lexical(ctx, req.Query, req.Language, req.Scope, depth)
		}()
	}
	denseWeight := s.DenseWeight
	var denseErr error
	if mode != Lexical {
		var builtinOnly bool
		dense, builtinOnly, denseErr = s.dense(ctx, req.Query, req.Scope, depth)
		if denseWeight <= 0 {
			denseWeight = 1
			if builtinOnly {
				denseWeight = BuiltinDenseWeight
			}
		}
	}
	wg.Wait()
	if err := errors.Join(lexErr, denseErr); err != nil {
		return nil, err
	}
	fused := fuse(mode, lexical, dense, denseWeight)
	if len(fused) > req.K {
		fused = fused[:req.K]
	}
	ids := make([]string, len(fused))
	for i, r := range fused {
		ids[i] = r.ID
	}
	chunks, err := s.Store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]kb.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
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

// dense embeds the query once per embedder that built a collection in scope and searches
// those collections with it. builtinOnly reports that every collection searched was built by
// the built-in embedder.
//
// A collection embedded with another model or dimension than warren would use now fails the
// whole search with its *kb.EmbedderMismatchError (errors.Is kb.ErrEmbedderChanged), in
// hybrid mode too: a ranking that silently lost its dense half would look like an answer.
// The Lexical mode still searches such a collection.
func (s *Searcher) dense(ctx context.Context, query string, scope kb.Scope, k int) (hits []kb.Hit, builtinOnly bool, err error) {
	cols, err := s.Store.Collections(ctx)
	if err != nil {
		return nil, false, err
	}
	if scope.Doc != "" {
		d, ok, err := s.Store.Document(ctx, scope.Doc)
		if err != nil || !ok {
			return nil, false, err
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
		if c.Chunks == 0 || len(wanted) > 0 && !wanted[c.Name] {
			continue
		}
		if _, ok := groups[c.Embedder]; !ok {
			ids = append(ids, c.Embedder)
		}
		groups[c.Embedder] = append(groups[c.Embedder], c)
	}
	sort.Strings(ids) // collections come sorted by name: a mismatch names the same one each time
	builtinOnly = true
	for _, id := range ids {
		group := groups[id]
		emb, err := s.embedderFor(ctx, group[0])
		if err != nil {
			return nil, false, err
		}
		builtinOnly = builtinOnly && id == (kb.Builtin{}).ID()
		vecs, err := emb.Embed(ctx, []string{query}, nil)
		if err != nil {
			return nil, false, fmt.Errorf("couldn't embed the query: %w", err)
		}
		if len(vecs) != 1 {
			return nil, false, fmt.Errorf("couldn't embed the query: %d vectors for one text", len(vecs))
		}
		sc := scope
		sc.Collections = nil
		for _, c := range group {
			if err := c.CheckEmbedder(emb.ID(), len(vecs[0])); err != nil {
				return nil, false, err
			}
			sc.Collections = append(sc.Collections, c.Name)
		}
		h, err := s.Store.Dense(ctx, vecs[0], sc, k)
		if err != nil {
			return nil, false, err
		}
		hits = append(hits, h...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, builtinOnly, nil
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
		emb, err = c.QueryEmbedder(s.Gateway)
	}
	var mismatch *kb.EmbedderMismatchError
	switch {
	case errors.As(err, &mismatch):
		mismatch.Collection, mismatch.BuiltDim = c.Name, c.Dim
		if mismatch.AskedDim == 0 && s.Gateway != nil && strings.HasPrefix(mismatch.Asked, "ollama:") {
			probe, cancel := context.WithTimeout(ctx, dimensionProbe)
			if dim, err := s.Gateway.EmbedDimension(probe); err == nil {
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

// fuse combines the rankings: reciprocal rank fusion in hybrid mode, the single ranking's own
// scores otherwise. Ties keep lexical order, then dense order, so results are deterministic.
func fuse(mode Mode, lexical, dense []kb.Hit, denseWeight float64) []Result {
	byID := map[string]*Result{}
	var order []string
	add := func(hits []kb.Hit, lexicalRanking bool, weight float64) {
		for i, h := range hits {
			r, ok := byID[h.ChunkID]
			if !ok {
				r = &Result{Chunk: kb.Chunk{ID: h.ChunkID}}
				byID[h.ChunkID] = r
				order = append(order, h.ChunkID)
			}
			if lexicalRanking {
				r.LexicalRank = i + 1
			} else {
				r.DenseRank = i + 1
			}
			if mode == Hybrid {
				r.Score += weight / float64(rrfK+i+1)
			} else {
				r.Score = h.Score
			}
		}
	}
	add(lexical, true, 1)
	add(dense, false, denseWeight)
	out := make([]Result, len(order))
	for i, id := range order {
		out[i] = *byID[id]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
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

package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// keywordEmbedder places a text by its words in two dimensions: "near" words towards the
// query's direction (1, 0), "far" words away from it; others count for neither.
type keywordEmbedder struct{}

func (keywordEmbedder) ID() string { return "test:keywords" }

func (keywordEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := []float32{0, 0.01}
		for _, w := range strings.Fields(strings.ToLower(text)) {
			switch w {
			case "alpha", "near":
				v[0]++
			case "far":
				v[1]++
			}
		}
		out[i] = v
	}
	return out, nil
}

// withoutSimilarities hides the store's Similarities, as a backend that cannot score given
// chunks would.
type withoutSimilarities struct{ kb.Backend }

// A lexical candidate that the dense ranking's best do not reach is weighed by its own
// similarity to the query in hybrid search, not as if it had none: here the candidate that
// is lexically second but close to the query overtakes the lexically first one, which is
// far from it, once both are scored on the dense side.
func TestHybridWeighsEveryLexicalCandidateOnTheDenseSide(t *testing.T) {
	_, store := testkb.Empty(t)
	ctx := context.Background()
	add := func(id, text string) {
		doc := &load.Document{ID: id, Collection: "notes", Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Text: text}}}
		if _, err := store.AddDocument(ctx, doc, keywordEmbedder{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("first", "beta beta far")
	add("second", "beta gamma near far epsilon zeta")
	// Closer to the query than either, without its word: they fill the dense ranking's
	// depth (40 for ten results), so neither candidate is among the dense hits.
	for i := range 60 {
		add(fmt.Sprintf("filler%02d", i), fmt.Sprintf("near near near delta%d", i))
	}
	embedder := func(string) (kb.Embedder, error) { return keywordEmbedder{}, nil }
	// The fused list before it is cut to K, so the candidates below the fillers are seen.
	rank := func(s *Searcher) (first, second Result) {
		plan, err := s.planDense(ctx, chunk.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := s.fused(ctx, Request{Query: "beta alpha", K: 10, Mode: Hybrid}, Hybrid, plan)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			switch r.ID {
			case "first#0000":
				first = r
			case "second#0000":
				second = r
			}
		}
		if first.LexicalRank != 1 || second.LexicalRank != 2 || first.DenseRank != 0 || second.DenseRank != 0 {
			t.Fatalf("want the two candidates lexically first and second, outside the dense ranking: %+v %+v", first, second)
		}
		return first, second
	}
	first, second := rank(&Searcher{Store: store, Embedder: embedder, DenseWeight: 0.8})
	if second.Score <= first.Score {
		t.Errorf("the candidate close to the query (%.3f) should lead the far one (%.3f)", second.Score, first.Score)
	}
	// A backend that cannot score given chunks leaves both at 0 on the dense side, and the
	// lexical order stands.
	first, second = rank(&Searcher{Store: withoutSimilarities{store}, Embedder: embedder, DenseWeight: 0.8})
	if first.Score <= second.Score {
		t.Errorf("without similarities the lexical order should stand: first %.3f, second %.3f", first.Score, second.Score)
	}
}

// chunkReads records every Chunks call a search makes.
type chunkReads struct {
	*kb.Store
	asked [][]string
}

func (c *chunkReads) Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error) {
	c.asked = append(c.asked, append([]string(nil), ids...))
	return c.Store.Chunks(ctx, ids)
}

// Hybrid search reads its lexical hits' chunks while the dense side searches, and afterwards
// reads only the chunks of the fused best that were not among them; every result carries its
// whole chunk either way.
func TestHybridReadsTheLexicalBestAheadAndOnlyTheOthersAfter(t *testing.T) {
	_, store := testkb.Empty(t)
	ctx := context.Background()
	add := func(id, text string) {
		doc := &load.Document{ID: id, Collection: "notes", Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Number: "1", Heading: "", Text: text}}}
		if _, err := store.AddDocument(ctx, doc, keywordEmbedder{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		add(fmt.Sprintf("beta%d", i), strings.Repeat("beta ", 3-i)+"far")
	}
	for i := range 20 { // close to the query without its word: dense hits only
		add(fmt.Sprintf("near%02d", i), fmt.Sprintf("near near gamma%d", i))
	}
	reads := &chunkReads{Store: store}
	s := &Searcher{Store: reads, Embedder: func(string) (kb.Embedder, error) { return keywordEmbedder{}, nil }, DenseWeight: 0.5}
	res, err := s.Search(ctx, Request{Query: "beta alpha", K: 5, Mode: Hybrid, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 || len(reads.asked) != 2 {
		t.Fatalf("want 5 results from two reads, got %d results from %d reads: %v", len(res), len(reads.asked), reads.asked)
	}
	if got := strings.Join(reads.asked[0], ","); got != "beta0#0000,beta1#0000,beta2#0000" {
		t.Errorf("the read ahead should ask for the lexical hits, best first: %s", got)
	}
	ahead := map[string]bool{}
	for _, id := range reads.asked[0] {
		ahead[id] = true
	}
	var dense []string
	for _, r := range res {
		if !ahead[r.ID] {
			dense = append(dense, r.ID)
		}
	}
	if strings.Join(reads.asked[1], ",") != strings.Join(dense, ",") || len(dense) == 0 {
		t.Errorf("the second read should ask for the fused results not read ahead (%v), asked %v", dense, reads.asked[1])
	}
	for _, r := range res {
		want, err := store.Chunks(ctx, []string{r.ID})
		if err != nil || len(want) != 1 || r.Chunk != want[0] {
			t.Errorf("result %s does not carry its stored chunk: %+v", r.ID, r.Chunk)
		}
	}
	// When the fused best are all lexical hits, the read ahead is the only read.
	reads.asked, s.DenseWeight = nil, 0.1
	if res, err = s.Search(ctx, Request{Query: "beta alpha", K: 2, Mode: Hybrid, Language: "en"}); err != nil {
		t.Fatal(err)
	}
	if len(reads.asked) != 1 || len(res) != 2 || res[0].Text == "" || res[1].Text == "" {
		t.Errorf("want one read for two lexical results, got %d reads: %v", len(reads.asked), reads.asked)
	}
}

// collectionCounts records how often a search lists the collections with their counts.
type collectionCounts struct {
	*kb.Store
	counted int
}

func (c *collectionCounts) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	c.counted++
	return c.Store.Collections(ctx)
}

// Counting a collection's documents reads the whole documents table (tens of milliseconds at
// 100,000 documents), so a search plans with the collections that hold chunks, uncounted; a
// backend without that list is planned from its counts, skipping the empty collections.
func TestSearchesDoNotCountDocuments(t *testing.T) {
	_, store := testkb.Empty(t)
	ctx := context.Background()
	for i, col := range []string{"notes", "gone"} {
		doc := &load.Document{ID: fmt.Sprintf("d%d", i), Collection: col, Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Number: "1", Text: "alpha near beta"}}}
		if _, err := store.AddDocument(ctx, doc, keywordEmbedder{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.RemoveDocument(ctx, "d1"); err != nil { // "gone" stays, empty
		t.Fatal(err)
	}
	embedder := func(string) (kb.Embedder, error) { return keywordEmbedder{}, nil }
	counts := &collectionCounts{Store: store}
	s := &Searcher{Store: counts, Embedder: embedder}
	for _, mode := range []Mode{Hybrid, Dense} {
		res, err := s.Search(ctx, Request{Query: "alpha beta", K: 5, Mode: mode, Language: "en"})
		if err != nil || len(res) != 1 || res[0].Doc != "d0" {
			t.Fatalf("%s search: %v %+v", mode, err, res)
		}
	}
	if counts.counted != 0 {
		t.Errorf("the searches counted the collections %d times", counts.counted)
	}
	plan, err := (&Searcher{Store: withoutSimilarities{store}, Embedder: embedder}).planDense(ctx, chunk.Scope{})
	if err != nil || len(plan.groups) != 1 || len(plan.groups[0].collections) != 1 || plan.groups[0].collections[0].Name != "notes" {
		t.Errorf("planned from the counts, only the collection with chunks should be searched: %v %+v", err, plan)
	}
	plan, err = s.planDense(ctx, chunk.Scope{})
	if err != nil || len(plan.groups) != 1 || len(plan.groups[0].collections) != 1 || plan.groups[0].collections[0].Name != "notes" {
		t.Errorf("only the collection with chunks should be searched: %v %+v", err, plan)
	}
}

// pools records the lexical rankings a search asks for.
type pools struct {
	*kb.Store
	asked [][2]int // k, pool
}

func (p *pools) LexicalPooled(ctx context.Context, query, lang string, scope chunk.Scope, k, pool int) ([]chunk.Hit, error) {
	p.asked = append(p.asked, [2]int{k, pool})
	return p.Store.LexicalPooled(ctx, query, lang, scope, k, pool)
}

func (p *pools) Lexical(ctx context.Context, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	return p.LexicalPooled(ctx, query, lang, scope, k, lexical.CandidatePool(k))
}

// Fused hybrid search asks its lexical half for its depth (4 × K, at least 40) with a pool of
// as many; a lexical search and hybrid search over built-in vectors keep the pool of a lexical
// search for K.
func TestHybridRanksItsLexicalHalfWithinItsDepth(t *testing.T) {
	_, store := testkb.Empty(t)
	ctx := context.Background()
	for i, col := range []string{"model", "builtin"} {
		var emb kb.Embedder = keywordEmbedder{}
		if col == "builtin" {
			emb = kb.Builtin{}
		}
		doc := &load.Document{ID: fmt.Sprintf("d%d", i), Collection: col, Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Number: "1", Text: "alpha near beta"}}}
		if _, err := store.AddDocument(ctx, doc, emb, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	p := &pools{Store: store}
	s := &Searcher{Store: p, Embedder: func(id string) (kb.Embedder, error) {
		if id == (kb.Builtin{}).ID() {
			return kb.Builtin{}, nil
		}
		return keywordEmbedder{}, nil
	}}
	for _, c := range []struct {
		mode       Mode
		collection string
		k          int
		want       [2]int
	}{
		{Hybrid, "model", 10, [2]int{40, 40}},
		{Hybrid, "model", 25, [2]int{100, 100}},
		{Hybrid, "builtin", 10, [2]int{10, lexical.CandidatePool(10)}},
		{Lexical, "model", 10, [2]int{10, lexical.CandidatePool(10)}},
	} {
		p.asked = nil
		if _, err := s.Search(ctx, Request{Query: "alpha beta", K: c.k, Mode: c.mode, Language: "en", Scope: chunk.Scope{Collections: []string{c.collection}}}); err != nil {
			t.Fatal(err)
		}
		if len(p.asked) != 1 || p.asked[0] != c.want {
			t.Errorf("%s search of %s for %d: asked %v, want one ranking of (k, pool) %v", c.mode, c.collection, c.k, p.asked, c.want)
		}
	}
}

// failingLexical is the store whose lexical ranking fails.
type failingLexical struct{ *kb.Store }

func (failingLexical) LexicalPooled(context.Context, string, string, chunk.Scope, int, int) ([]chunk.Hit, error) {
	return nil, errors.New("lexical index unreadable")
}

// failingEmbedder cannot embed.
type failingEmbedder struct{ keywordEmbedder }

func (failingEmbedder) Embed(context.Context, []string, func(int)) ([][]float32, error) {
	return nil, errors.New("model server down")
}

// A hybrid search whose lexical side, or whose query embedding, fails returns that failure:
// neither side is left waiting on the other.
func TestHybridReturnsEitherSidesFailure(t *testing.T) {
	_, store := testkb.Empty(t)
	ctx := context.Background()
	doc := &load.Document{ID: "d", Collection: "notes", Language: "en", Meta: map[string]string{},
		Sections: []load.Section{{Number: "1", Text: "alpha near beta"}}}
	if _, err := store.AddDocument(ctx, doc, keywordEmbedder{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	req := Request{Query: "alpha beta", K: 5, Mode: Hybrid, Language: "en"}
	works := func(string) (kb.Embedder, error) { return keywordEmbedder{}, nil }
	fails := func(string) (kb.Embedder, error) { return failingEmbedder{}, nil }
	for _, c := range []struct {
		s    *Searcher
		want string
	}{
		{&Searcher{Store: failingLexical{store}, Embedder: works}, "lexical index unreadable"},
		{&Searcher{Store: store, Embedder: fails}, "model server down"},
		{&Searcher{Store: failingLexical{store}, Embedder: fails}, "model server down"},
	} {
		res, err := c.s.Search(ctx, req)
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
			t.Errorf("want the failure %q, got %v (%d results)", c.want, err, len(res))
		}
	}
}

package lexical

import (
	"math/rand/v2"
	"slices"
	"testing"

	"warren/kb/chunk"
)

// Of two chunks holding the same query words as often, the one where they stand together
// ranks first with proximity; without it they tie (and go by index order). Words that were
// not neighbours in the query earn nothing for standing together, and no pair spans the
// heading and the body.
func TestNeighbouringQueryWordsCloseTogetherRankFirst(t *testing.T) {
	chunks := []chunk.Chunk{
		{ID: "apart", Doc: "a", Collection: "c", Text: "boundary conditions of the flow near the wall differ from a thin layer"},
		{ID: "together", Doc: "t", Collection: "c", Text: "conditions near the wall differ: a thin boundary layer of the flow"},
		{ID: "split", Doc: "s", Collection: "c", Heading: "flow boundary", Text: "layer conditions near the wall differ of a thin"},
	}
	for i := range 20 {
		chunks = append(chunks, chunk.Chunk{ID: string(rune('k' + i)), Doc: "o", Collection: "c", Text: "unrelated words about pumps and valves"})
	}
	ix, _ := buildIndex("t", chunks)
	p := DefaultParams()
	p.FeedbackDocs, p.HeadingWeight = 0, 1
	rank := func(query string, prox float64) []string {
		p.Proximity = prox
		var cache Cache
		var ids []string
		for _, h := range cache.Search(ix, ParseQuery(query, "en"), chunk.Scope{}, 3, 10, p) {
			ids = append(ids, h.ChunkID)
		}
		return ids
	}
	if got := rank("boundary layer", 0); !slices.Equal(got, []string{"apart", "together", "split"}) {
		t.Errorf("without proximity: %v", got)
	}
	if got := rank("boundary layer", 0.5); got[0] != "together" {
		t.Errorf("with proximity: %v, want together first", got)
	}
	// "split" has "boundary" ending its heading and "layer" opening its body: no pair.
	if got := rank("boundary layer", 0.5); got[len(got)-1] != "split" && got[1] != "split" {
		t.Errorf("a pair across heading and body counted: %v", got)
	}
	// "boundary" and "layer" are not neighbours in this query: no proximity between them.
	if got := rank("boundary wall layer", 0.5); got[0] == "together" {
		t.Errorf("words apart in the query earned proximity: %v", got)
	}
}

// The proximity over the index (terms in order, as entry numbers) scores every chunk as the
// proximity over analysed text (Rank's candidates) does, to the bit.
func TestProximityOverTheIndexAsOverText(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	z := rand.NewZipf(r, 1.1, 2, 60)
	all := zipfChunks(r, z, 10, 8, 40, "c")
	ix, docs := buildIndex("t", all)
	p := DefaultParams()
	p.Proximity = 1
	rk := p.rankerFor(ix)
	var cache Cache
	for n := range 40 {
		q := ParseQuery(zipfText(r, z, 2+n%4), "en")
		ix.weigh(q)
		q = q.found()
		iq := ix.queryOf(q)
		cands := make([]scoredSlot, len(ix.chunks))
		for i := range cands {
			cands[i].slot = int32(i)
		}
		got := ix.proximityScores(rk, cands, q, iq, 1, &cache)
		want := slices.Clone(docs)
		rk.addProximity(want, q, 1)
		for i := range want {
			if got[i] != want[i].score {
				t.Fatalf("query %v, chunk %d: %v over the index, %v over its text", q, i, got[i], want[i].score)
			}
		}
	}
}

package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// zipfText writes n words drawn from a Zipf law over vocab words, so that a few words are in
// most chunks, as in real text.
func zipfText(r *rand.Rand, z *rand.Zipf, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("word%dx", z.Uint64())
	}
	return strings.Join(words, " ")
}

// The candidates found with postings left unread are the best m of an exhaustive BM25 ranking
// of every chunk (ranker.score over the chunks' indexed terms), with the same scores: whether
// terms are walked in index order only, or the common ones in impact order (and a walk
// stops inside a term).
func TestLexicalCandidatesAreTheExhaustiveTop(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.1, 2, 400)
	for d := range 30 {
		secs := make([]Section, 20)
		for i := range secs {
			secs[i] = Section{Number: fmt.Sprint(i + 1), Heading: zipfText(r, z, 2), Text: zipfText(r, z, 25)}
		}
		addTestDoc(t, store, fmt.Sprintf("d%02d", d), "c", secs...)
	}
	ix, err := store.lexicalIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rowids := make([]int64, len(ix.chunks))
	for i, c := range ix.chunks {
		rowids[i] = c.rowid
	}
	all, err := store.indexedTerms(ctx, rowids)
	if err != nil {
		t.Fatal(err)
	}
	rk := store.rankerOver(ix.totals)
	defer func(walkMin, ratio int) { impactWalkMin, postingsWalkRatio = walkMin, ratio }(impactWalkMin, postingsWalkRatio)
	for _, walkMin := range []int{len(ix.chunks) + 1, 40, 8} {
		for _, ratio := range []int{32, 0} {
			impactWalkMin, postingsWalkRatio = walkMin, ratio
			before := store.LexicalStats()
			for n := range 60 {
				q := newLexicalQuery(strings.Fields(zipfText(r, z, 2+n%4)))
				ix.weigh(q)
				q = q.found()
				m := 5 + n%20
				got := ix.candidates(rk, ix.queryOf(q), nil, m, &store.lexical)
				docs := slices.Clone(all)
				rk.score(docs, q)
				want := topDocs(docs, m)
				if len(got) != len(want) {
					t.Fatalf("%v: %d candidates, want %d", q, len(got), len(want))
				}
				for i := range want {
					if c := ix.chunks[got[i].slot]; c.rowid != want[i].rowid || got[i].score != want[i].score {
						t.Errorf("impact walk from %d postings, walk ratio %d, %v m=%d #%d: chunk %d scored %v, want %d scored %v",
							walkMin, ratio, q, m, i, c.rowid, got[i].score, want[i].rowid, want[i].score)
					}
				}
			}
			after := store.LexicalStats()
			walkedShares := after.TermsPruned - after.LookedUp - (before.TermsPruned - before.LookedUp)
			if ratio > 0 && walkedShares == 0 {
				t.Errorf("impact walk from %d postings: no unread term's share was added from its postings", walkMin)
			}
			if ratio == 0 && (walkedShares != 0 || after.LookedUp == before.LookedUp) {
				t.Errorf("impact walk from %d postings: with walk ratio 0 every unread term's share must be looked up", walkMin)
			}
			if stopped := after.StoppedInside - before.StoppedInside; (walkMin < len(ix.chunks)) != (stopped > 0) {
				t.Errorf("impact walk from %d postings: %d walks stopped inside a term", walkMin, stopped)
			}
		}
	}
}

// The index in memory follows every write: a search after an add, a replace or a removal
// sees it, and only a write makes the index be read again.
func TestLexicalIndexFollowsWrites(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	search := func(q string) []string {
		hits, err := store.Lexical(ctx, q, "en", Scope{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, h := range hits {
			docs = append(docs, strings.Split(h.ChunkID, "#")[0])
		}
		return docs
	}
	addTestDoc(t, store, "a", "one", Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."})
	if got := search("nitrogen"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after the add: %v", got)
	}
	search("purge")
	if st := store.LexicalStats(); st.Loads != 1 || st.Searches != 2 {
		t.Fatalf("two searches without a write in between must read the index once: %+v", st)
	}
	addTestDoc(t, store, "b", "two", Section{Number: "1", Heading: "Argon", Text: "Argon purge."})
	if got := search("argon"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after a second add: %v", got)
	}
	addTestDoc(t, store, "a", "one", Section{Number: "1", Heading: "Helium", Text: "Helium only."})
	if got := search("nitrogen"); len(got) != 0 {
		t.Fatalf("after the replace: %v", got)
	}
	if _, err := store.RemoveDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := search("argon"); len(got) != 0 {
		t.Fatalf("after the removal: %v", got)
	}
	if got := search("helium"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after the removal: %v", got)
	}
	if st := store.LexicalStats(); st.Loads != 4 {
		t.Errorf("three writes, so four reads of the index: %+v", st)
	}
}

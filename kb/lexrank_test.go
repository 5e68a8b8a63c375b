package kb

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// embeddedSource serves the embedded store's own index to RankLexical.
type embeddedSource struct{ s *Store }

func (e embeddedSource) LexicalTotals(ctx context.Context) (LexicalTotals, error) {
	return e.s.lexicalTotalsNow(ctx)
}

func (e embeddedSource) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	return e.s.documentFrequencies(ctx, terms)
}

func (e embeddedSource) LexicalCandidates(ctx context.Context, rare, common []string, scope Scope, m, want int) ([]LexicalCandidate, error) {
	rowids, err := e.s.lexicalCandidates(ctx, rare, common, scope, m, want)
	if err != nil {
		return nil, err
	}
	docs, err := e.s.indexedTerms(ctx, rowids)
	if err != nil {
		return nil, err
	}
	ids, err := e.s.chunkIDs(ctx, rowidsOf(docs))
	if err != nil {
		return nil, err
	}
	out := make([]LexicalCandidate, len(docs))
	for i, d := range docs {
		out[i] = LexicalCandidate{ID: ids[d.rowid], Order: d.rowid, Heading: d.heading, Body: d.body}
	}
	return out, nil
}

// farOrders hands out the same candidates with orders far apart (as a server's clock-based
// orders are): the ranking must not depend on their size.
type farOrders struct{ embeddedSource }

func (f farOrders) LexicalCandidates(ctx context.Context, rare, common []string, scope Scope, m, want int) ([]LexicalCandidate, error) {
	cands, err := f.embeddedSource.LexicalCandidates(ctx, rare, common, scope, m, want)
	for i := range cands {
		cands[i].Order *= 1e17
	}
	return cands, err
}

// RankLexical over the embedded store's index ranks exactly as the store's own Lexical: it is
// the same ranking, feedback and tie-break, whoever proposes the candidates, whatever the
// size of their orders.
func TestRankLexicalRanksAsTheEmbeddedStore(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	words := []string{"silane", "pressure", "cylinder", "purge", "valve", "toxic", "flow", "leak", "nitrogen", "cabinet"}
	for i := range 40 {
		text := ""
		for j := range 12 {
			text += words[(i*7+j*j+i/3)%len(words)] + " "
		}
		coll := "a"
		if i%4 == 0 {
			coll = "b"
		}
		addTestDoc(t, store, fmt.Sprintf("d%02d", i), coll,
			Section{Number: fmt.Sprint(1 + i%3), Heading: words[i%len(words)], Text: text},
			Section{Number: fmt.Sprintf("%d.1", 1+i%3), Heading: "Notes", Text: "Leak test of the purge panel. " + text})
	}
	p := store.LexicalParams
	for _, budget := range []int{DefaultPostingsBudget, 30} {
		p.PostingsBudget = budget
		for _, tc := range []struct {
			query string
			scope Scope
		}{
			{"silane cylinder purge", Scope{}},
			{"leak nitrogen", Scope{Collections: []string{"b"}}},
			{"toxic flow valve", Scope{Doc: "d05"}},
			{"cabinet leak", Scope{Doc: "d06", Section: "1"}},
			{"pressure", Scope{}},
		} {
			want, err := store.Lexical(ctx, tc.query, "en", tc.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []LexicalSource{embeddedSource{store}, farOrders{embeddedSource{store}}} {
				got, err := RankLexical(ctx, src, p, tc.query, "en", tc.scope, 10)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("%T, budget %d, %q %+v:\n got %v\nwant %v", src, budget, tc.query, tc.scope, got, want)
				}
			}
		}
	}
}

// mergeStrongest selects the n strongest terms as sorting them all would, ties by term
// included.
func TestMergeStrongestTakesTheStrongestTermsAsAFullSortWould(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var expansion lexicalQuery
		for i := range 1 + r.IntN(300) {
			// Few distinct weights, so many terms tie at the n-th.
			expansion = append(expansion, queryTerm{term: fmt.Sprintf("t%03d", r.IntN(1000)+i*1000), weight: float64(1 + r.IntN(6))})
		}
		n := r.IntN(len(expansion) + 5)
		q := lexicalQuery{{term: "query", weight: 1}, {term: expansion[0].term, weight: 2}}
		sorted := slices.Clone(expansion)
		slices.SortFunc(sorted, func(a, b queryTerm) int {
			return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.term, b.term))
		})
		wantOut, wantFresh := mergeExpansion(q, sorted[:min(len(sorted), n)])
		gotOut, gotFresh := mergeStrongest(q, slices.Clone(expansion), n)
		if !slices.Equal(gotOut, wantOut) || !slices.Equal(gotFresh, wantFresh) {
			t.Fatalf("round %d, n %d of %d: got %v %v, want %v %v", round, n, len(expansion), gotOut, gotFresh, wantOut, wantFresh)
		}
	}
}

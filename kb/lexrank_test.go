package kb

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// embeddedSource serves the embedded store's own index to RankLexical.
type embeddedSource struct{ s *Store }

func (e embeddedSource) LexicalTotals(ctx context.Context) (lexical.Totals, error) {
	return e.s.lexicalTotalsNow(ctx)
}

func (e embeddedSource) LengthB(ctx context.Context, p lexical.Params) (float64, error) {
	return e.s.LexicalLengthB(ctx, p)
}

func (e embeddedSource) Identities(ctx context.Context) (lexical.Identities, error) {
	return e.s.LexicalIdentities(ctx)
}

func (e embeddedSource) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	return e.s.documentFrequencies(ctx, terms)
}

func (e embeddedSource) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
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
	out := make([]lexical.Candidate, len(docs))
	for i, d := range docs {
		out[i] = lexical.Candidate{ID: ids[d.rowid], Order: d.rowid, Heading: d.heading, Body: d.body}
	}
	return out, nil
}

// farOrders hands out the same candidates with orders far apart (as a server's clock-based
// orders are): the ranking must not depend on their size.
type farOrders struct{ embeddedSource }

func (f farOrders) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
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
			load.Section{Number: fmt.Sprint(1 + i%3), Heading: words[i%len(words)], Text: text},
			load.Section{Number: fmt.Sprintf("%d.1", 1+i%3), Heading: "Notes", Text: "Leak test of the purge panel. " + text})
	}
	p := store.Params
	for _, budget := range []int{lexical.DefaultPostingsBudget, 30} {
		p.PostingsBudget = budget
		for _, tc := range []struct {
			query string
			scope chunk.Scope
		}{
			{"silane cylinder purge", chunk.Scope{}},
			{"leak nitrogen", chunk.Scope{Collections: []string{"b"}}},
			{"toxic flow valve", chunk.Scope{Doc: "d05"}},
			{"cabinet leak", chunk.Scope{Doc: "d06", Section: "1"}},
			{"pressure", chunk.Scope{}},
		} {
			want, err := store.Lexical(ctx, tc.query, "en", tc.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []lexical.Source{embeddedSource{store}, farOrders{embeddedSource{store}}} {
				got, err := lexical.Rank(ctx, src, p, tc.query, "en", tc.scope, 10)
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

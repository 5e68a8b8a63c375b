package retrieval

import (
	"context"
	"slices"
	"testing"

	"warren/internal/testkb"
)

// Questions that name a substance and a property: the substance's own passage comes first,
// though the passages of other data sheets share every word but the substance's name, which
// their documents' titles carry (the title is in every chunk's heading field). Two are still
// open (issue 32): the property stands in a row of a long table on the substance's sheet, and
// a short section of another sheet named after the property ranks first. They are logged, with
// where they stand, and fail the test once they pass, so the list is kept true.
func TestASubstanceAndAPropertyFindThatSubstancesPassage(t *testing.T) {
	open := map[string]bool{"phosphine exposure limit": true, "ammonia odour threshold": true}
	_, store, _ := testkb.Sample(t)
	s := &Searcher{Store: store}
	for _, tc := range []struct {
		query string
		docs  []string // the substance's documents
	}{
		{"phosphine exposure limit", []string{"suppliers/veridian-phosphine.md"}},
		{"Arsin Siedepunkt", []string{"suppliers/nordgas-arsine.md", "internal/arsine-toxicology-dossier.md"}},
		{"diborane flammability limits", []string{"suppliers/helix-diborane.md"}},
		{"silane autoignition temperature", []string{"suppliers/nordgas-silane.md", "internal/betriebsanweisung-silan.md"}},
		{"ammonia odour threshold", []string{"suppliers/veridian-ammonia.md"}},
		{"hydrogen sulfide exposure limit", []string{"suppliers/veridian-hydrogen-sulfide.md"}},
		{"germane boiling point", []string{"suppliers/helix-boron-trifluoride-germane.md"}},
		{"nitrogen trifluoride exposure limit", []string{"suppliers/helix-nitrogen-trifluoride.md"}},
		{"tungsten hexafluoride reaction with water", []string{"suppliers/veridian-tungsten-hexafluoride.md"}},
		{"carbon monoxide exposure limit", []string{"suppliers/nordgas-carbon-oxides.md"}},
	} {
		res, err := s.Search(context.Background(), Request{Query: tc.query, K: 5})
		if err != nil || len(res) == 0 {
			t.Fatalf("%q: %v %v", tc.query, res, err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Doc+" "+r.Section)
		}
		first := slices.Contains(tc.docs, res[0].Doc)
		switch {
		case open[tc.query] && first:
			t.Errorf("%q now finds its substance's passage first: take it off the open list", tc.query)
		case open[tc.query]:
			t.Logf("still open: %q: first %s § %s; top five: %q", tc.query, res[0].Doc, res[0].Section, got)
		case !first:
			t.Errorf("%q: first %s § %s, want one of %v; top five: %q", tc.query, res[0].Doc, res[0].Section, tc.docs, got)
		}
	}
}

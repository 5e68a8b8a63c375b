package retrieval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"warren/internal/testkb"
)

// Questions that name a substance and a property: the substance's passage comes first,
// though the passages of other data sheets share every word but the substance's name, which
// their documents' titles carry (the title is in every chunk's heading field, and the
// feedback learns from the chunks that hold the name the question gives, kb/lexical
// identity.go). The substance's passage is a passage of one of its documents, or one whose
// line names the substance and states the value asked for (the handling standard's
// inventory table gives each gas's limit on its own row).
func TestASubstanceAndAPropertyFindThatSubstancesPassage(t *testing.T) {
	_, store, _ := testkb.Sample(t)
	s := &Searcher{Store: store}
	for _, tc := range []struct {
		query string
		docs  []string // the substance's documents
		line  []string // or a line holding each of these
	}{
		{"phosphine exposure limit", []string{"suppliers/veridian-phosphine.md"}, []string{"Phosphine", "TWA 0.3 ppm"}},
		{"Arsin Siedepunkt", []string{"suppliers/nordgas-arsine.md", "internal/arsine-toxicology-dossier.md"}, nil},
		{"diborane flammability limits", []string{"suppliers/helix-diborane.md"}, nil},
		{"silane autoignition temperature", []string{"suppliers/nordgas-silane.md", "internal/betriebsanweisung-silan.md"}, nil},
		{"ammonia odour threshold", []string{"suppliers/veridian-ammonia.md"}, nil},
		{"hydrogen sulfide exposure limit", []string{"suppliers/veridian-hydrogen-sulfide.md"}, nil},
		{"germane boiling point", []string{"suppliers/helix-boron-trifluoride-germane.md"}, nil},
		{"nitrogen trifluoride exposure limit", []string{"suppliers/helix-nitrogen-trifluoride.md"}, []string{"Nitrogen trifluoride", "TWA 10 ppm"}},
		{"tungsten hexafluoride reaction with water", []string{"suppliers/veridian-tungsten-hexafluoride.md"}, nil},
		{"carbon monoxide exposure limit", []string{"suppliers/nordgas-carbon-oxides.md"}, nil},
	} {
		res, err := s.Search(context.Background(), Request{Query: tc.query, K: 5})
		if err != nil || len(res) == 0 {
			t.Fatalf("%q: %v %v", tc.query, res, err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Doc+" "+r.Section)
		}
		if !slices.Contains(tc.docs, res[0].Doc) && !statesOnOneLine(res[0].Text, tc.line) {
			t.Errorf("%q: first %s § %s, want one of %v or a line holding %q; top five: %q", tc.query, res[0].Doc, res[0].Section, tc.docs, tc.line, got)
		}
	}
}

// statesOnOneLine tells whether a line of the text holds each of the parts.
func statesOnOneLine(text string, parts []string) bool {
	if len(parts) == 0 {
		return false
	}
	for line := range strings.SplitSeq(text, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

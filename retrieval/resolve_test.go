package retrieval

import (
	"context"
	"slices"
	"testing"

	"warren/internal/refcases"
	"warren/internal/testkb"
	"warren/kb"
	"warren/registry"
	"warren/retrieval/refs"
)

func corpusStore(t *testing.T) (*kb.Store, *registry.Registry) {
	_, store, reg := testkb.Corpus(t)
	return store, reg
}

func TestReferenceResolutionOnLabelledCorpusCases(t *testing.T) {
	store, reg := corpusStore(t)
	cases := refcases.Load(t)
	res := NewResolver(store, reg, &Searcher{Store: store}, registry.DefaultFuzzyThreshold)
	ctx := context.Background()
	right, wrongDoc := 0, 0
	for _, c := range cases {
		detected := refs.DetectRegex(c.Text)
		i := slices.IndexFunc(detected, func(r refs.Reference) bool { return c.Expect.Is(r.Type, r.Target, r.DocumentContext) })
		if i < 0 {
			t.Errorf("%s: the expected reference was not detected", c.ID)
			continue
		}
		got := res.Resolve(ctx, detected[i], Origin{Doc: c.FromDoc, Section: c.FromSection, Context: c.Text})
		switch {
		case c.Resolve == nil && got.Resolved == nil:
			right++
		case c.Resolve == nil:
			wrongDoc++
			t.Errorf("%s: must end unresolved, went to %s %s", c.ID, got.Resolved.Doc, got.Resolved.Section)
		case got.Resolved == nil:
			t.Logf("%s: unresolved (%s), expected %s %s", c.ID, got.Reason, c.Resolve.Doc, c.Resolve.Section)
		case got.Resolved.Doc != c.Resolve.Doc:
			wrongDoc++
			t.Errorf("%s: resolved to the wrong document %s, want %s", c.ID, got.Resolved.Doc, c.Resolve.Doc)
		case c.SectionIs(got.Resolved.Section):
			right++ // an expected section "" is the whole document: any passage of it is right
		default:
			t.Logf("%s: right document, section %q, want %q (%s)", c.ID, got.Resolved.Section, c.Resolve.Section, got.Resolved.Method)
		}
	}
	rate := float64(right) / float64(len(cases))
	t.Logf("%d of %d cases resolved right (%.1f %%), %d to a wrong document", right, len(cases), 100*rate, wrongDoc)
	if len(cases) < 40 || rate < 0.9 || wrongDoc != 0 {
		t.Fatalf("want ≥ 90 %% of ≥ 40 cases right and none in a wrong document; got %d/%d, %d wrong", right, len(cases), wrongDoc)
	}
}

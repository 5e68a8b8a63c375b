package retrieval

import (
	"context"
	"slices"
	"strings"
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

// A document mention is resolved from its own words: the passage of the named law that its
// sentence is about, whatever else the window around it says, before it or after it.
func TestMentionResolvedFromItsOwnWords(t *testing.T) {
	store, reg := corpusStore(t)
	res := NewResolver(store, reg, &Searcher{Store: store}, registry.DefaultFuzzyThreshold)
	ctx := context.Background()
	own := "Die Minderung der Treibhausgasemissionen von Otto- und Dieselkraftstoffen und die Anrechnung von Biokraftstoffen richten sich nach dem Bundes-Immissionsschutzgesetz."
	other := "Lärmaktionspläne werden für Orte in der Nähe der Hauptverkehrsstraßen und der Großflughäfen aufgestellt; " +
		"die Öffentlichkeit wird zu Vorschlägen für Lärmaktionspläne gehört und rechtzeitig und effektiv beteiligt."
	resolve := func(window string) Resolved {
		t.Helper()
		for _, r := range refs.DetectRegex(window) {
			if r.Type == refs.TypeDocumentMention && r.Target == "Bundes-Immissionsschutzgesetz" {
				return res.Resolve(ctx, r, Origin{Doc: "gesetze/ChemVerbotsV", Context: window})
			}
		}
		t.Fatalf("no mention of the Bundes-Immissionsschutzgesetz in %q", window)
		return Resolved{}
	}
	alone := resolve(own)
	if alone.Resolved == nil || alone.Resolved.Doc != "gesetze/BImSchG" || alone.Resolved.Section != "§ 37a" {
		t.Fatalf("the sentence alone resolves to %+v (%s), want BImSchG § 37a", alone.Resolved, alone.Reason)
	}
	for name, window := range map[string]string{"after other text": other + " " + other + "\n\n" + own,
		"at the start": own + " " + other + " " + other} {
		got := resolve(window)
		if got.Resolved == nil || got.Resolved.Doc != "gesetze/BImSchG" || got.Resolved.Section != "§ 37a" {
			t.Errorf("%s: resolves to %+v (%s), want BImSchG § 37a as alone", name, got.Resolved, got.Reason)
		}
	}
}

// ownWords is the sentence holding the reference, whatever comes before or after it.
func TestOwnWords(t *testing.T) {
	for _, c := range []struct{ text, orig, want string }{
		{"Erster Satz über Lärm. Nach dem Chemikaliengesetz gilt Nr. 4 weiter. (2) Anderes.", "Chemikaliengesetz",
			"Nach dem Chemikaliengesetz gilt Nr. 4 weiter."},
		{"Nach dem Chemikaliengesetz gilt das. Danach Lärm.", "Chemikaliengesetz", "Nach dem Chemikaliengesetz gilt das."},
		{"Absatz über Lärm\n\nsee RFC 4627 gem. § 5 and more", "RFC 4627", "see RFC 4627 gem. § 5 and more"},
		{"Nothing here.", "RFC 4627", "Nothing here."}, // not in the text: the whole text
	} {
		start := strings.Index(c.text, c.orig)
		ref := refs.Reference{OriginalText: c.orig, Start: start, End: start + len(c.orig)}
		if start < 0 {
			ref.Start, ref.End = 0, len(c.orig)
		}
		if got := ownWords(c.text, ref); got != c.want {
			t.Errorf("ownWords(%q, %q) = %q, want %q", c.text, c.orig, got, c.want)
		}
	}
	long := strings.Repeat("Wort ", 200) + "RFC 4627 " + strings.Repeat("Wort ", 200)
	start := strings.Index(long, "RFC 4627")
	got := ownWords(long, refs.Reference{OriginalText: "RFC 4627", Start: start, End: start + 8})
	if len(got) > 2*ownWordsMax+8 || !strings.HasPrefix(got, "Wort ") || !strings.HasSuffix(got, "Wort") {
		t.Errorf("a long sentence is cut to %d bytes: %q…", len(got), got[:40])
	}
}

package refs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"warren/internal/refcases"
	"warren/internal/shareddata"
)

// TestRefCasesDetected requires every labelled reference to be among the detections of its
// passage. The labels were made by reading the corpus, so a miss is a detector bug (or a wrong
// label), never noise to tolerate.
func TestRefCasesDetected(t *testing.T) {
	cases := refcases.Load(t)
	if len(cases) < 45 {
		t.Fatalf("only %d reference cases, want at least 45", len(cases))
	}
	hit := 0
	for _, c := range cases {
		refs := DetectRegex(c.Text)
		if slices.ContainsFunc(refs, func(r Reference) bool { return c.Expect.Is(r.Type, r.Target, r.DocumentContext) }) {
			hit++
			continue
		}
		t.Errorf("%s: %q\n want %s:%s @%q\n got  %v", c.ID, c.Text, c.Expect.Type, c.Expect.Target, c.Expect.DocumentContext, got(refs))
	}
	t.Logf("detection rate: %d/%d (%.1f%%)", hit, len(cases), 100*float64(hit)/float64(len(cases)))
}

// TestRefCasesShape checks the mix the resolution test relies on.
func TestRefCasesShape(t *testing.T) {
	cases := refcases.Load(t)
	ids := map[string]bool{}
	var unresolved, cross int
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("duplicate case id %q", c.ID)
		}
		ids[c.ID] = true
		if c.FromDoc == "" || c.Text == "" || c.Expect.Type == "" || c.Expect.Target == "" {
			t.Errorf("%s: incomplete case", c.ID)
		}
		switch {
		case c.Resolve == nil:
			unresolved++
		case c.Resolve.Doc != c.FromDoc:
			cross++
		}
	}
	if unresolved < 12 {
		t.Errorf("%d unresolved cases, want at least 12", unresolved)
	}
	if cross < 15 {
		t.Errorf("%d cross-document cases, want at least 15", cross)
	}
	t.Logf("%d cases: %d cross-document, %d same-document, %d unresolved", len(cases), cross, len(cases)-cross-unresolved, unresolved)
}

var (
	frontMatterNumber = regexp.MustCompile(`(?m)^number: "?([^"\n]+)"?$`)
	rfcHeading        = regexp.MustCompile(`(?m)^(?:Appendix ([A-Z])\.|([A-Z]\.\d+)\.|(\d+(?:\.\d+)*)\.)\s+\S`)
)

// TestRefCasesMatchCorpus checks the labels against the corpus itself: each passage is quoted
// from its document and section, and each expected section exists in the target document, so the
// later resolution test cannot pass or fail on a mislabelled case.
func TestRefCasesMatchCorpus(t *testing.T) {
	corpus := shareddata.Path(t, "corpus")
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, c := range refcases.Load(t) {
		sections := corpusSections(t, corpus, c.FromDoc)
		if strings.HasPrefix(c.FromDoc, "gesetze/") {
			body, ok := sections[c.FromSection]
			if !ok {
				t.Errorf("%s: %s has no section %q", c.ID, c.FromDoc, c.FromSection)
			} else if !strings.Contains(squash(body), c.Text) {
				t.Errorf("%s: the text is not in %s %s", c.ID, c.FromDoc, c.FromSection)
			}
		} else if !strings.Contains(squash(sections[""]), c.Text) {
			t.Errorf("%s: the text is not in %s", c.ID, c.FromDoc)
		}
		if c.Resolve == nil || c.Resolve.Section == "" {
			continue
		}
		if _, ok := corpusSections(t, corpus, c.Resolve.Doc)[c.Resolve.Section]; !ok {
			t.Errorf("%s: %s has no section %q", c.ID, c.Resolve.Doc, c.Resolve.Section)
		}
	}
}

// corpusSections maps the section numbers of one corpus document to their text. A law's sections
// come from the front matter of its paragraph and annex files; an RFC's from its numbered
// headings, with the whole text under "".
func corpusSections(t *testing.T, corpus, doc string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if strings.HasPrefix(doc, "rfc/") {
		data, err := os.ReadFile(filepath.Join(corpus, doc))
		if err != nil {
			t.Fatalf("couldn't read %s: %v", doc, err)
		}
		out[""] = string(data)
		for _, m := range rfcHeading.FindAllStringSubmatch(string(data), -1) {
			out[m[1]+m[2]+m[3]] = ""
		}
		return out
	}
	for _, sub := range []string{"paragraphs", "annexes"} {
		files, _ := filepath.Glob(filepath.Join(corpus, doc, sub, "*.md"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("couldn't read %s: %v", f, err)
			}
			if m := frontMatterNumber.FindSubmatch(data); m != nil {
				out[string(m[1])] = string(data)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no sections found for %s", doc)
	}
	return out
}

// Package refcases loads retrieval/testdata/refcases.json, the labelled reference cases that the
// detector, the resolver and both backends are tested against, so its format is read in one place.
// It must not import retrieval/refs: that package's own tests use it.
package refcases

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"warren/internal/shareddata"
)

// Case is one labelled case: a short passage quoted from a corpus document, the reference it must
// yield, and where that reference must resolve (nil when the cited document is not in the corpus
// and the reference must end unresolved).
type Case struct {
	ID          string `json:"id"`
	FromDoc     string `json:"from_doc"`
	FromSection string `json:"from_section"`
	Text        string `json:"text"`
	Expect      Expect `json:"expect"`
	Resolve     *struct {
		Doc     string `json:"doc"`
		Section string `json:"section"`
	} `json:"resolve"`
}

// Expect is the reference a case's passage must yield.
type Expect struct {
	Type            string `json:"type"`
	Target          string `json:"target"`
	DocumentContext string `json:"document_context"`
}

// Is reports whether a detected reference with these fields is the expected one.
func (e Expect) Is(typ, target, documentContext string) bool {
	return e == Expect{Type: typ, Target: target, DocumentContext: documentContext}
}

// SectionIs reports whether a section the case's reference resolved to is the labelled one: an
// empty label means the whole document, and "Appendix"/"Anhang" prefixes don't count.
func (c Case) SectionIs(got string) bool {
	norm := func(s string) string { return strings.TrimPrefix(strings.TrimPrefix(s, "Appendix "), "Anhang ") }
	return c.Resolve.Section == "" || norm(got) == norm(c.Resolve.Section)
}

// Load returns the cases, failing the test when the file is unreadable or malformed.
func Load(tb testing.TB) []Case {
	tb.Helper()
	data, err := os.ReadFile(shareddata.Project(tb, "retrieval/testdata/refcases.json"))
	if err != nil {
		tb.Fatalf("couldn't read the reference cases: %v", err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		tb.Fatalf("couldn't parse the reference cases: %v", err)
	}
	return cases
}

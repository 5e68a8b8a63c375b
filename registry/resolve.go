package registry

import (
	"strings"
	"unicode/utf8"

	edlib "github.com/hbollon/go-edlib"
)

// The methods a Match reports, from the most to the least certain.
const (
	MethodExact     = "exact"
	MethodFuzzy     = "fuzzy"
	MethodSubstring = "substring"
)

// DefaultFuzzyThreshold is the Jaro-Winkler similarity a fuzzy match needs at least.
const DefaultFuzzyThreshold = 0.7

// DefaultAmbiguityMargin is how close (in Jaro-Winkler similarity) another document may come to
// the best fuzzy candidate before the name counts as ambiguous and resolves to nothing.
const DefaultAmbiguityMargin = 0.05

// MinSubstringCoverage is the share of a registered name's letters that a substring match must
// cover: "Merge Patch" covers most of "JSON Merge Patch", "Patch" covers too little of it.
const MinSubstringCoverage = 0.6

// Match is a document a name resolved to.
type Match struct {
	Doc        Document
	Collection string
	// Score is 1 for an exact match, the Jaro-Winkler similarity for a fuzzy one and the share of
	// the registered name the query covers for a substring one.
	Score float64
	// Method is MethodExact, MethodFuzzy or MethodSubstring.
	Method string
	// Name is the registered synonym, title or base name that matched, so that the analyst can
	// see why the name resolved.
	Name string
}

// Resolver resolves document names against a snapshot of a registry; build it once with
// NewResolver when resolving many names, and again after the registry changes.
//
// A name is resolved in three tiers; the first tier that finds a candidate decides, and an
// ambiguous tier resolves to nothing rather than falling through, because a wrong document is
// far worse than no document:
//
//  1. Exact: the name's Normalize key equals the key of a synonym, title or base name.
//  2. Fuzzy: Jaro-Winkler similarity of the letters of the two names is at least Threshold, and
//     the match is safe (see below).
//  3. Substring: the name's words are a run of whole words of a registered name, covering at
//     least MinSubstringCoverage of its letters ("Merge Patch" in "JSON Merge Patch"), and the
//     name has at least four letters.
//
// The safety rules of the fuzzy tier, which is meant for typing errors and spelling variants,
// not for similar-looking other documents:
//
//   - Numbers must be equal in every tier: "RFC 2616" never matches "RFC 2119", "13. BImSchV"
//     never matches "12. BImSchV", "GefStoffV 2005" never matches "GefStoffV 2010".
//   - The first letter must be equal ("Landesnaturschutzgesetz" is not "Bundes…").
//   - The edit distance is budgeted by the distinctive stem of the registered name, the part
//     before a document-type word such as "verordnung" or "gesetz": no edits under 6 letters,
//     one under 12, two from 12 ("Arbeitschutzgesetz" → "Arbeitsschutzgesetz", but
//     "Gefahrgutverordnung" is five edits from "Gefahrstoffverordnung" and
//     "Biostoffverordnung" six). Names of several words without such a word get one edit from 10
//     letters and two from 20 ("JSON Pointr" → "JSON Pointer").
//   - Single-word names without a document-type word, that is abbreviations such as "BImSchG",
//     "ChemVerbotsV" or "ABNF", never match fuzzily: one letter makes another law ("BImSchV").
//   - The match is ambiguous, and resolves to nothing, when another document has a name (with
//     the same numbers) whose similarity is within Margin of the best, even if that name fails
//     the rules above.
//
// The collection hint breaks ties: when several documents are equally good (several exact
// matches, fuzzy candidates within Margin, several substring matches) and exactly one of them is
// in the hinted collection, that one is chosen. The hint never overrides a better tier.
type Resolver struct {
	// Threshold is the least Jaro-Winkler similarity of a fuzzy match; values outside (0, 1]
	// mean DefaultFuzzyThreshold.
	Threshold float64
	// Margin is the ambiguity margin of the fuzzy tier.
	Margin float64

	names []registeredName
	byKey map[string][]int
}

// registeredName is one name of one document.
type registeredName struct {
	collection string
	doc        Document
	id         string // identifies the document: collection and path
	text       string
	norm       normName
}

// NewResolver indexes every name of every document of r.
func NewResolver(r *Registry) *Resolver {
	rv := &Resolver{Threshold: DefaultFuzzyThreshold, Margin: DefaultAmbiguityMargin, byKey: map[string][]int{}}
	for _, coll := range r.Names() {
		for _, d := range r.Collections[coll].Documents {
			for _, text := range d.Names() {
				n := parseName(text)
				if n.letters == "" {
					continue // a bare number is no name
				}
				rv.byKey[n.key] = append(rv.byKey[n.key], len(rv.names))
				rv.names = append(rv.names, registeredName{
					collection: coll, doc: d, id: coll + "\x00" + d.Path, text: text, norm: n})
			}
		}
	}
	return rv
}

// Resolve resolves name with the default threshold; see Resolver for the rules.
func (r *Registry) Resolve(name, collectionHint string) (Match, bool) {
	return r.ResolveWith(name, collectionHint, DefaultFuzzyThreshold)
}

// ResolveWith resolves name with the given Jaro-Winkler threshold for the fuzzy tier.
func (r *Registry) ResolveWith(name, collectionHint string, threshold float64) (Match, bool) {
	rv := NewResolver(r)
	rv.Threshold = threshold
	return rv.Resolve(name, collectionHint)
}

// Resolve returns the document name refers to, or false when no document is a safe answer. name
// is a document's name only: a section reference left in it ("GefStoffV § 6") adds a number that
// no registered name has, and so resolves to nothing.
func (rv *Resolver) Resolve(name, collectionHint string) (Match, bool) {
	q := parseName(name)
	if q.letters == "" {
		return Match{}, false
	}
	if ids := rv.byKey[q.key]; len(ids) > 0 {
		seen := map[string]bool{}
		var found []scored
		for _, i := range ids {
			if c := rv.names[i]; !seen[c.id] {
				seen[c.id] = true
				found = append(found, scored{name: i, collection: c.collection, score: 1, best: 1})
			}
		}
		return rv.pick(found, 0, collectionHint, MethodExact)
	}
	if m, decided, ok := rv.fuzzy(q, collectionHint); decided {
		return m, ok
	}
	return rv.substring(q, collectionHint)
}

// scored is a document's best name in a tier. best is the score that counts for ambiguity,
// score the one of the name that may be returned; they differ only in the fuzzy tier, where a
// name that fails the safety rules still makes its document a rival. name is -1 when no name of
// the document may be returned.
type scored struct {
	name       int
	collection string
	score      float64
	best       float64
}

// fuzzy runs the fuzzy tier. decided is false when no name was a safe fuzzy candidate, so that
// the substring tier runs.
func (rv *Resolver) fuzzy(q normName, hint string) (m Match, decided, ok bool) {
	threshold := rv.Threshold
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultFuzzyThreshold
	}
	perDoc := map[string]*scored{}
	anySafe := false
	for i, c := range rv.names {
		if !sameNumbers(q.numbers, c.norm.numbers) {
			continue
		}
		s := JaroWinkler(q.letters, c.norm.letters)
		if s < threshold {
			continue
		}
		d := perDoc[c.id]
		if d == nil {
			d = &scored{name: -1, collection: c.collection}
			perDoc[c.id] = d
		}
		d.best = max(d.best, s)
		if fuzzySafe(q, c.norm) && (d.name < 0 || s > d.score) {
			d.name, d.score = i, s
			anySafe = true
		}
	}
	if !anySafe {
		return Match{}, false, false
	}
	found := make([]scored, 0, len(perDoc))
	for _, d := range perDoc {
		found = append(found, *d)
	}
	m, ok = rv.pick(found, rv.Margin, hint, MethodFuzzy)
	return m, true, ok
}

// fuzzySafe applies the fuzzy tier's safety rules (documented on Resolver) to the query q and a
// registered name c with the same numbers.
func fuzzySafe(q, c normName) bool {
	budget := fuzzyBudget(c)
	if budget == 0 {
		return false
	}
	qFirst, _ := utf8.DecodeRuneInString(q.letters)
	cFirst, _ := utf8.DecodeRuneInString(c.letters)
	if qFirst != cFirst {
		return false
	}
	// Optimal string alignment: a swap of neighbours ("arbietsschutz") is one edit.
	return edlib.OSADamerauLevenshteinDistance(q.letters, c.letters) <= budget
}

// documentTypeWords end the names of laws and ordinances; what comes before them is the
// distinctive stem. Longer words that end in a shorter one come first.
var documentTypeWords = []string{
	"verordnung", "ordnung", "gesetzbuch", "gesetz", "richtlinie", "vorschrift",
	"uebereinkommen", "abkommen", "vertrag", "satzung",
}

// fuzzyBudget returns how many edits a fuzzy match with the registered name n may need.
func fuzzyBudget(n normName) int {
	length := utf8.RuneCountInString(n.letters)
	for _, w := range documentTypeWords {
		if strings.HasSuffix(n.letters, w) {
			return budgetFor(length-len(w), 6, 12)
		}
	}
	if n.words < 2 {
		return 0
	}
	return budgetFor(length, 10, 20)
}

func budgetFor(length, one, two int) int {
	switch {
	case length >= two:
		return 2
	case length >= one:
		return 1
	}
	return 0
}

// substring runs the substring tier.
func (rv *Resolver) substring(q normName, hint string) (Match, bool) {
	qLen := utf8.RuneCountInString(q.letters)
	if qLen < 4 {
		return Match{}, false
	}
	perDoc := map[string]*scored{}
	for i, c := range rv.names {
		if !sameNumbers(q.numbers, c.norm.numbers) || !containsRun(c.norm.tokens, q.tokens) {
			continue
		}
		cover := float64(qLen) / float64(utf8.RuneCountInString(c.norm.letters))
		if cover < MinSubstringCoverage {
			continue
		}
		if d := perDoc[c.id]; d == nil || cover > d.score {
			perDoc[c.id] = &scored{name: i, collection: c.collection, score: cover, best: cover}
		}
	}
	found := make([]scored, 0, len(perDoc))
	for _, d := range perDoc {
		found = append(found, *d)
	}
	// Every document that passes counts as a tie: a fragment that fits two documents says
	// nothing about which one is meant.
	return rv.pick(found, 1, hint, MethodSubstring)
}

// containsRun reports whether run occurs in tokens as consecutive whole tokens.
func containsRun(tokens, run []string) bool {
	if len(run) == 0 {
		return false
	}
outer:
	for i := 0; i+len(run) <= len(tokens); i++ {
		for k, t := range run {
			if tokens[i+k] != t {
				continue outer
			}
		}
		return true
	}
	return false
}

// pick chooses among the documents of one tier, given at most one entry per document: the best
// one, if no other document comes within margin of it, else the only document of the hinted
// collection among those within margin, else none.
func (rv *Resolver) pick(found []scored, margin float64, hint, method string) (Match, bool) {
	top := -1.0
	for _, f := range found {
		if f.name >= 0 && f.score > top {
			top = f.score
		}
	}
	if top < 0 {
		return Match{}, false
	}
	var near []scored
	for _, f := range found {
		if f.best >= top-margin {
			near = append(near, f)
		}
	}
	if len(near) > 1 && hint != "" {
		var inHint []scored
		for _, f := range near {
			if f.collection == hint {
				inHint = append(inHint, f)
			}
		}
		near = inHint
	}
	if len(near) != 1 || near[0].name < 0 || near[0].score < top-margin {
		return Match{}, false
	}
	c := rv.names[near[0].name]
	return Match{Doc: c.doc, Collection: c.collection, Score: near[0].score, Method: method, Name: c.text}, true
}

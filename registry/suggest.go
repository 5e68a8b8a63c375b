package registry

import (
	"regexp"
	"strings"
	"unicode"
)

// titleFields and abbreviationFields are the metadata fields (front matter, meta.json) that name
// a document, in the order their values are proposed.
var (
	titleFields        = []string{"title", "short_title", "kurztitel"}
	abbreviationFields = []string{"amtabk", "jurabk", "abbreviation", "abbrev", "abk", "acronym",
		"doc_number", "docnumber", "document_number"}
)

var (
	parenthetical = regexp.MustCompile(`\s*\(([^()]*)\)`)
	rfcBase       = regexp.MustCompile(`(?i)^rfc[-_ ]?0*([0-9]+)$`)
)

// SuggestSynonyms proposes synonyms for doc from its title, its metadata (title and abbreviation
// fields such as jurabk, amtabk, abbreviation, doc_number, and rfc) and its file base name, for
// the analyst to approve. Besides the values themselves it proposes:
//
//   - for a title with a parenthetical, the parenthetical ("12. BImSchV" from
//     "Störfall-Verordnung (12. BImSchV)") and the title without it; a parenthetical that
//     abbreviates the words before it replaces them instead ("JSON Pointer" from "JavaScript
//     Object Notation (JSON) Pointer");
//   - for a title with a colon, the part after it when it is short ("ABNF") and the part before;
//   - the capitals of a title whose words are all capitalised ("GCP" for "Gas Cabinet
//     Procedure", "JSON" for "JavaScript Object Notation");
//   - "RFC NNNN" for a file named rfcNNNN or an rfc field;
//   - the parts of a base name such as "12.BImSchV-StoerfallV" that each look like an
//     abbreviation.
//
// Proposals are deduplicated by Normalize, keep their first spelling, and leave out what the
// document already has as a synonym and anything without letters (a bare number is no name).
func SuggestSynonyms(doc Document, meta map[string]string) []string {
	var candidates []string
	titles := []string{doc.Title}
	for _, f := range titleFields {
		titles = append(titles, meta[f])
	}
	for _, t := range titles {
		candidates = append(candidates, titleVariants(t)...)
	}
	for _, f := range abbreviationFields {
		candidates = append(candidates, meta[f])
	}
	base := doc.BaseName()
	if num := strings.TrimSpace(meta["rfc"]); num != "" {
		candidates = append(candidates, "RFC "+strings.TrimLeft(strings.TrimPrefix(strings.ToUpper(num), "RFC"), " 0"))
	}
	if m := rfcBase.FindStringSubmatch(base); m != nil {
		candidates = append(candidates, "RFC "+m[1])
	}
	candidates = append(candidates, base)
	candidates = append(candidates, abbreviationParts(base)...)

	have := map[string]bool{}
	for _, s := range doc.Synonyms {
		have[Normalize(s)] = true
	}
	var out []string
	for _, c := range candidates {
		c = strings.Join(strings.Fields(c), " ")
		n := parseName(c)
		if n.letters == "" || have[n.key] {
			continue
		}
		have[n.key] = true
		out = append(out, c)
	}
	return out
}

// titleVariants returns the title and the shorter names it contains.
func titleVariants(title string) []string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return nil
	}
	out := []string{title}
	short, inner, expanded := shortTitle(title)
	if short != title {
		out = append(out, short)
	}
	out = append(out, inner...)
	before, after, hasColon := strings.Cut(short, ":")
	if hasColon {
		before, after = strings.TrimSpace(before), strings.TrimSpace(after)
		if n := len(strings.Fields(after)); n > 0 && n <= 3 {
			out = append(out, after)
		}
		out = append(out, before)
	}
	if !expanded {
		if caps := capitals(before); caps != "" {
			out = append(out, caps)
		}
	}
	return out
}

// shortTitle resolves the title's parentheticals: one that abbreviates the words just before it
// replaces them (expanded is then true), any other is removed from the title and returned in
// inner when it has letters.
func shortTitle(title string) (short string, inner []string, expanded bool) {
	var b strings.Builder
	last := 0
	for _, loc := range parenthetical.FindAllStringSubmatchIndex(title, -1) {
		head := title[last:loc[0]]
		abbr := title[loc[2]:loc[3]]
		if k := abbreviatedWords(head, abbr); k > 0 {
			words := strings.Fields(head)
			kept := strings.Join(words[:len(words)-k], " ")
			if kept != "" {
				kept += " "
			}
			b.WriteString(kept + abbr)
			expanded = true
		} else {
			b.WriteString(head)
			if strings.IndexFunc(abbr, unicode.IsLetter) >= 0 {
				inner = append(inner, strings.TrimSpace(abbr))
			}
		}
		last = loc[1]
	}
	b.WriteString(title[last:])
	return strings.Join(strings.Fields(b.String()), " "), inner, expanded
}

// abbreviatedWords returns how many of the last words of head abbr abbreviates by their
// capitals ("JavaScript Object Notation" by "JSON"), or 0.
func abbreviatedWords(head, abbr string) int {
	want := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, abbr)
	if len(want) < 2 {
		return 0
	}
	words := strings.Fields(head)
	got := ""
	for k := 1; k <= len(words) && k <= len(want); k++ {
		got = upperLetters(words[len(words)-k]) + got
		if got == want {
			return k
		}
		if !strings.HasSuffix(want, got) {
			return 0
		}
	}
	return 0
}

// capitals returns the capitals of a title of two to six words that all start with a capital
// and none of which is already an abbreviation, when they are three to eight letters.
func capitals(title string) string {
	words := strings.FieldsFunc(title, func(r rune) bool { return unicode.IsSpace(r) || r == '-' })
	if len(words) < 2 || len(words) > 6 {
		return ""
	}
	caps := ""
	for _, w := range words {
		first := []rune(w)[0]
		u := upperLetters(w)
		if !unicode.IsUpper(first) || len([]rune(u)) == len([]rune(w)) {
			return ""
		}
		caps += u
	}
	if n := len([]rune(caps)); n < 3 || n > 8 {
		return ""
	}
	return caps
}

func upperLetters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return r
		}
		return -1
	}, s)
}

// abbreviationParts splits a base name such as "12.BImSchV-StoerfallV" at hyphens and
// underscores when every part looks like an abbreviation (a capital after its first letter),
// so that a slug such as "gas-cabinet" is left alone.
func abbreviationParts(base string) []string {
	parts := strings.FieldsFunc(base, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) < 2 {
		return nil
	}
	for _, p := range parts {
		letters := []rune(strings.TrimLeftFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }))
		if len(letters) < 2 || strings.IndexFunc(string(letters[1:]), unicode.IsUpper) < 0 {
			return nil
		}
	}
	return parts
}

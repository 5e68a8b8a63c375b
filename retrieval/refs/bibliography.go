package refs

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Citation is an author–year citation taken apart: "Müller et al. 2019" has the first author
// Müller, EtAl and the year 2019; "Smith and Jones 2020a" the authors Smith and Jones and the
// year 2020a.
type Citation struct {
	Authors []string // as written, first author first
	EtAl    bool
	Year    string // four digits and an optional letter
}

// Entry is one entry of a document's reference list, taken apart.
type Entry struct {
	Text    string   // the entry, on one line
	Authors []string // surnames (or a corporate author), first author first
	EtAl    bool     // the list ends in "et al."
	Year    string
	Title   string // the first sentence after the year, without quotes or emphasis
}

var (
	citationYear = regexp.MustCompile(`\s*,?\s*((?:19|20)\d{2}[a-z]?)$`)
	authorSplit  = regexp.MustCompile(`\s*(?:,|;|&|\band\b|\bund\b)\s*`)
	etAl         = regexp.MustCompile(`\s*,?\s*\bet\s+al\b\.?`)
	// entryYear is the first year of an entry: "(2019)", "2019.", "(2020a)", "2018,".
	entryYear = regexp.MustCompile(`\(?\b((?:19|20)\d{2}[a-z]?)\b\)?[.,:;]?`)
	// Initials are capitals with full stops ("A.", "J.-P."), or one or two capitals alone
	// ("JK" in "Smith JK"); a short surname such as "Li" has a small letter.
	initialsOnly  = regexp.MustCompile(`^(?:(?:\p{Lu}\.\s*-?\s*)+|\p{Lu}{1,2})$`)
	leadInitials  = regexp.MustCompile(`^(?:\p{Lu}\.\s*-?\s*)+`)
	trailInitials = regexp.MustCompile(`(?:\s+\p{Lu}\.)+$|\s+\p{Lu}{1,2}$`)
	listMarker    = regexp.MustCompile(`^\s*(?:[-*•]\s+|\[\d{1,3}\]\s+|\d{1,3}\.\s+)`)
	titleEnd      = regexp.MustCompile(`[.?!](?:\s|$)`)
	// ReferencesHeading names a reference list: "References", "Bibliography", "Literatur".
	ReferencesHeading = regexp.MustCompile(`(?i)^\s*(?:\d+\.?\s+)?(?:references|bibliography|literature(?: cited)?|works cited|literatur(?:verzeichnis)?|quellen(?:verzeichnis)?)\s*$`)
)

// ParseCitation takes apart the target of an academic_shortform reference ("Müller et al.
// 2019", "Smith and Jones 2020", "Smith, Jones and Lee 2018"). It reports false for anything
// else.
func ParseCitation(target string) (Citation, bool) {
	m := citationYear.FindStringSubmatchIndex(target)
	if m == nil {
		return Citation{}, false
	}
	c := Citation{Year: target[m[2]:m[3]]}
	names := strings.TrimSpace(target[:m[0]])
	if loc := etAl.FindStringIndex(names); loc != nil {
		c.EtAl = true
		names = names[:loc[0]]
	}
	for _, n := range authorSplit.Split(names, -1) {
		if n = strings.TrimSpace(n); n != "" {
			c.Authors = append(c.Authors, n)
		}
	}
	return c, len(c.Authors) > 0
}

// ParseEntry takes apart one reference-list entry: the authors before the first year, the
// year, and the title, the first sentence after it. It reports false when the entry has no
// author or no year before its title.
func ParseEntry(text string) (Entry, bool) {
	text = strings.Join(strings.Fields(listMarker.ReplaceAllString(text, "")), " ")
	e := Entry{Text: text}
	m := entryYear.FindStringSubmatchIndex(text)
	if m == nil {
		return e, false
	}
	e.Year = text[m[2]:m[3]]
	authors := strings.TrimRight(strings.TrimSpace(text[:m[0]]), ",.:;(")
	if loc := etAl.FindStringIndex(authors); loc != nil {
		e.EtAl = true
		authors = authors[:loc[0]] + authors[loc[1]:]
	}
	for _, part := range authorSplit.Split(authors, -1) {
		part = strings.TrimSpace(part)
		if part == "" || initialsOnly.MatchString(part) {
			continue
		}
		part = strings.TrimSpace(trailInitials.ReplaceAllString(leadInitials.ReplaceAllString(part, ""), ""))
		if part != "" {
			e.Authors = append(e.Authors, part)
		}
	}
	rest := strings.TrimLeft(text[m[1]:], " .,:;)")
	if loc := titleEnd.FindStringIndex(rest); loc != nil {
		rest = rest[:loc[0]]
	}
	e.Title = strings.TrimSpace(strings.Trim(rest, "*_\"“”„'‘’ "))
	return e, len(e.Authors) > 0 && e.Title != ""
}

// BibliographyEntries splits the text of a reference list into entries: an entry starts at a
// list marker ("- ", "[3] ", "4. ") or after a blank line; other lines continue the entry before.
func BibliographyEntries(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case listMarker.MatchString(line):
			flush()
			cur = append(cur, strings.TrimSpace(line))
		default:
			cur = append(cur, strings.TrimSpace(line))
		}
	}
	flush()
	return out
}

// Matches reports whether an entry is the work a citation names: the same year (a citation
// without a letter matches "2020a" too, one with a letter only that letter), the same first
// author, and author lists that agree: "X et al." needs an entry of three authors or more,
// "X and Y" exactly those two, a single name a single author.
func (c Citation) Matches(e Entry) bool {
	if e.Year != c.Year && (len(c.Year) != 4 || !strings.HasPrefix(e.Year, c.Year)) {
		return false
	}
	if len(e.Authors) == 0 || FoldName(e.Authors[0]) != FoldName(c.Authors[0]) {
		return false
	}
	if c.EtAl {
		return len(c.Authors) == 1 && (len(e.Authors) >= 3 || e.EtAl)
	}
	if e.EtAl || len(e.Authors) != len(c.Authors) {
		return false
	}
	for i := range c.Authors {
		if FoldName(c.Authors[i]) != FoldName(e.Authors[i]) {
			return false
		}
	}
	return true
}

// FoldName makes spellings of one name compare equal: case, accents and umlauts ("Müller",
// "Mueller", "MULLER"), spaces, hyphens and apostrophes ("van der Berg", "Van der Berg").
func FoldName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		switch {
		case r == 'ß':
			b.WriteString("ss")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	f := b.String()
	for _, pair := range [][2]string{{"ae", "a"}, {"oe", "o"}, {"ue", "u"}} {
		f = strings.ReplaceAll(f, pair[0], pair[1])
	}
	return f
}

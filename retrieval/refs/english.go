package refs

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	urlPattern = regexp.MustCompile(`https?://[^\s<>"'\])}]+`)

	// sectionWord starts "Section 3.2", "Sections 3 and 4", "see [RFC2045], section 2.2" and
	// "Appendix A.1".
	sectionWord = regexp.MustCompile(`\b(?:[Ss]ections?|Appendix|Appendices)[ \t\n\x{00a0}]+`)
	// sectionNum is an RFC section number: "3", "3.2", "4.e" (the IETF Trust Legal Provisions
	// number their clauses with letters), or an appendix "A", "A.1". Four levels at most, so an
	// address such as 10.0.0.1 after "Section" is not read as one.
	sectionNum = regexp.MustCompile(`^(?:\d{1,3}(?:\.(?:\d{1,3}|[a-z]\b)){0,3}|[A-Z](?:\.\d{1,3}){0,3}\b)`)
	sectionSep = regexp.MustCompile(`^\s*(?:,\s*and\b|,\s*or\b|,|\band\b|\bor\b|\bthrough\b|\bto\b|-|–)\s*`)
	// sectionOf is the document after a section number: "of RFC 6901", "of [RFC6901]", "of
	// [RFC 6901]", "in
	// [RFC7159]", "of this document", "of the Trust Legal Provisions".
	sectionOf = regexp.MustCompile(`^\s+(?:of|in)\s+(?:\[?(RFC|BCP|STD)(?:[ \t\x{00a0}]|\n[ \t]+)?0*(\d{1,5})\b\]?|\[([A-Za-z][A-Za-z0-9]*(?:[-._][A-Za-z0-9]+)*)\]|(this\s+(?:document|specification|memo|RFC|standard))|the\s+((?:[A-Z][\w-]*\s+){0,5}[A-Z][\w-]*))`)
	// docBefore is a document named just before "Section" and separated by a comma, the RFC
	// style for "section 3 of that document": "[RFC4627], Section 3", "RFC 4627, Section 2".
	docBefore = regexp.MustCompile(`(?:\[?(RFC|BCP|STD)[ \t]?0*(\d{1,5})\]?|\[([A-Za-z][A-Za-z0-9]*(?:[-._][A-Za-z0-9]+)*)\]),[ \t\n]*$`)

	rfcProse     = regexp.MustCompile(`\b(RFC|BCP|STD)(?:[ \t\x{00a0}]|\n[ \t]+)?0*(\d{1,5})\b`)
	bracketLabel = regexp.MustCompile(`\[([A-Za-z][A-Za-z0-9]*(?:[-._][A-Za-z0-9]+)*)\]`)
	seriesLabel  = regexp.MustCompile(`^(RFC|BCP|STD)0*(\d{1,5})$`)
	versionLike  = regexp.MustCompile(`^[Vv]?\d+(?:[._]\d+)+$|^[Vv]\d`)

	appendixHeading = regexp.MustCompile(`^Appendix [A-Z]\.\s`)
	// rfcPageHeader is the rest of an RFC's running page header after its number: a title and
	// the month and year, each after a wide gap ("   JSON Patch      April 2013"). A reference
	// list laid out in columns ("RFC 4627   Crockford, D., …") has one gap, not this shape.
	rfcPageHeader = regexp.MustCompile(`^[ \t]{3,}\S[^\n]*?[ \t]{3,}(?:January|February|March|April|May|June|July|August|September|October|November|December)[ \t]+\d{4}[ \t]*(?:\n|$)`)

	numberedCite = regexp.MustCompile(`\[(\d{1,3}(?:[ \t]*(?:,|-|–)[ \t]*\d{1,3})*)\]`)

	parenthetical = regexp.MustCompile(`\(([^()]{4,300})\)`)
	// authorYear is one author–year citation: "Smith et al., 2020", "Smith and Jones 2019",
	// "Smith, Jones, and Lee, 2018", "van der Berg, 2001".
	authorYear = regexp.MustCompile(`^\s*(?:(?:see|cf\.|e\.g\.,?)\s+)?(` + authorsRe + `)(,?)\s+((?:19|20)\d{2}[a-z]?)(?:,\s*pp?\.\s*[\d–-]+)?\s*$`)
	narrative  = regexp.MustCompile(`(` + nameRe + `(?:\s+et\s+al\.?|\s+(?:and|&)\s+` + nameRe + `))\s+\(((?:19|20)\d{2}[a-z]?)\)`)

	// namedDocument is a cue followed by a capitalised title that ends in a document-type noun:
	// "see the Gas Cabinet Procedure", "as described in the Hazardous Gas Handling Standard".
	namedDocument = regexp.MustCompile(`\b(?:[Ss]ee(?:\s+also)?|[Rr]efer(?:s|red)?\s+to|(?:[Dd]escribed|[Dd]efined|[Ss]pecified|[Ss]et\s+out|[Oo]utlined|[Dd]etailed|[Dd]ocumented)\s+in|[Aa]ccording\s+to|[Pp]er|[Ii]n\s+accordance\s+with|[Pp]ursuant\s+to|[Cc]onsult|[Ff]ollow(?:ing)?|[Cc]ompl(?:y|ies|iance)\s+with|[Uu]nder)\s+(?:the\s+|our\s+|its\s+|this\s+|that\s+|their\s+)?((?:[A-Z][\w&/-]*\s+(?:(?:of|for|and|on|&)\s+)?){1,7}(?:Procedures?|Standards?|Polic(?:y|ies)|Manual|Guidelines?|Guide|Instructions?|Regulations?|Directive|Specification|Plan|Data\s+Sheet|Handbook|Protocol|Code\s+of\s+Practice|Checklist|Programme|Program))\b`)
)

const (
	nameRe    = `(?:(?:van|von|de|der|den|da|di|le|la|du)\s+)*[A-Z][\p{L}'’-]+`
	authorsRe = nameRe + `(?:\s+et\s+al\.?|(?:,\s*` + nameRe + `)*,?\s+(?:and|&)\s+` + nameRe + `)?`
)

// keywordLabels are bracketed words that are not citations: RFC 2119 key words and ABNF or
// editorial markers such as "[RULE]".
var keywordLabels = map[string]bool{
	"MUST": true, "MUST-NOT": true, "SHOULD": true, "SHALL": true, "MAY": true, "REQUIRED": true,
	"RECOMMENDED": true, "OPTIONAL": true, "NOT": true, "RULE": true, "TODO": true, "TBD": true,
	"NOTE": true, "WARNING": true, "OK": true,
}

// detectURLs reports http and https addresses. Trailing sentence punctuation is not part of the
// address ("… at http://www.rfc-editor.org/info/rfc6902.").
func detectURLs(text string) []found {
	var out []found
	for _, loc := range urlPattern.FindAllStringIndex(text, -1) {
		end := loc[0] + len(strings.TrimRight(text[loc[0]:loc[1]], ".,;:!?"))
		out = append(out, newFound(text, TypeExternal, text[loc[0]:end], "", loc[0], end))
	}
	return out
}

// detectSections reports RFC-style section references and the document they point into.
func detectSections(text string) []found {
	var out []found
	for _, loc := range sectionWord.FindAllStringIndex(text, -1) {
		word := strings.TrimSpace(text[loc[0]:loc[1]])
		if isTOCLine(lineOf(text, loc[0])) || startsHeading(text, loc[0]) {
			continue
		}
		appendix := strings.HasPrefix(word, "Append")
		plural := strings.HasSuffix(word, "s")
		p := loc[1]
		nums, p := sectionNumbers(text, p, plural, appendix)
		if len(nums) == 0 {
			continue
		}
		start, end := loc[0], p
		context := ""
		if m := matchAt(sectionOf, text, p); m != nil {
			switch {
			case m[2] >= 0:
				context = seriesName(text[m[2]:m[3]], text[m[4]:m[5]])
			case m[6] >= 0:
				context = labelName(text[m[6]:m[7]])
			case m[8] >= 0:
				context = "" // "of this document": the current one, said explicitly
			case m[10] >= 0:
				context = strings.Join(strings.Fields(text[m[10]:m[11]]), " ")
			}
			end = m[1]
		} else if m := docBefore.FindStringSubmatchIndex(text[lineStartBack(text, loc[0]):loc[0]]); m != nil {
			off := lineStartBack(text, loc[0])
			switch {
			case m[2] >= 0:
				context = seriesName(text[off+m[2]:off+m[3]], text[off+m[4]:off+m[5]])
				start = off + m[0]
			case isCitationLabel(text[off+m[6] : off+m[7]]):
				context = labelName(text[off+m[6] : off+m[7]])
				start = off + m[0]
			}
		}
		for _, n := range nums {
			out = append(out, newFound(text, TypeSection, n, context, start, end))
		}
	}
	return out
}

// lineStartBack returns an offset a little before p (the previous line at most), so a document
// named at the end of the previous line still counts: RFC text wraps "[RFC4627], Section 2.5"
// across lines.
func lineStartBack(text string, p int) int {
	s := lineStart(text, p)
	if s > 0 {
		s = lineStart(text, s-1)
	}
	if p-s > 200 {
		s = p - 200
		for s < p && !isRuneStart(text[s]) {
			s++
		}
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sectionNumbers reads one number, or for "Sections" and "Appendices" a list of them, and expands
// "Sections 3 through 5". A number's trailing full stop ends the sentence, not the number.
func sectionNumbers(text string, p int, plural, appendix bool) ([]string, int) {
	var nums []string
	read := func(q int) (string, int, bool) {
		m := matchAt(sectionNum, text, q)
		if m == nil {
			return "", q, false
		}
		n := text[m[0]:m[1]]
		// An IP address or version string has more parts than a section number; refuse it whole
		// rather than cite its first four parts.
		if runeAt(text, m[1]) == '.' && isDigit(runeAt(text, m[1]+1)) {
			return "", q, false
		}
		if isWordRune(runeAt(text, m[1])) {
			return "", q, false
		}
		if isDigit(runeAt(n, 0)) == appendix || !plausibleSection(n) {
			return "", q, false
		}
		return n, m[1], true
	}
	n, q, ok := read(p)
	if !ok {
		return nil, p
	}
	nums = append(nums, n)
	p = q
	for plural {
		m := matchAt(sectionSep, text, p)
		if m == nil {
			break
		}
		n2, q2, ok := read(m[1])
		if !ok {
			break
		}
		sep := strings.TrimSpace(text[m[0]:m[1]])
		if sep == "through" || sep == "to" || sep == "-" || sep == "–" {
			if exp := SplitNumbers(nums[len(nums)-1] + "-" + n2); len(exp) > 1 && !strings.Contains(n2, ".") {
				nums = append(nums[:len(nums)-1], exp...)
				p = q2
				continue
			}
		}
		nums = append(nums, n2)
		p = q2
	}
	return nums, p
}

// plausibleSection rejects dotted numbers that are addresses rather than sections: no part of a
// section number is 100 or more, and no part after the first is 0 ("10.0.0.1", "192.168.1.1").
func plausibleSection(n string) bool {
	for i, part := range strings.Split(n, ".") {
		v, err := strconv.Atoi(part)
		if err != nil {
			continue // a letter part, "4.e" or "A.1"
		}
		if v >= 100 || (i > 0 && v == 0) {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// isTOCLine recognises a table-of-contents line ("4.1.  add . . . . . 4"), which lists sections
// rather than referring to them.
func isTOCLine(line string) bool {
	return strings.Contains(line, " . . ") || strings.Contains(line, ".....")
}

// startsHeading reports a heading such as "Appendix A.  Examples" at the start of a line; prose
// that happens to start a line ("Appendix B supplies …") has no full stop after the letter.
func startsHeading(text string, p int) bool {
	return p == lineStart(text, p) && appendixHeading.MatchString(text[p:])
}

// seriesName writes an RFC, BCP or STD number the way the registry spells it: "RFC 2119".
func seriesName(series, num string) string {
	num = strings.TrimLeft(num, "0")
	if num == "" {
		num = "0"
	}
	return series + " " + num
}

// labelName turns a bracketed citation label into a document name: "RFC2119" → "RFC 2119";
// other labels ("ECMA-404") stay as written.
func labelName(label string) string {
	if m := seriesLabel.FindStringSubmatch(label); m != nil {
		return seriesName(m[1], m[2])
	}
	return label
}

// detectRFCMentions reports "RFC 6902", "BCP 14" and "STD 90" in prose and "[RFC 4627]" in a
// reference list. The running page header
// of an RFC ("RFC 6902   JSON Patch   April 2013") and identifiers such as "DOI
// 10.17487/RFC2119" or "rfc6902" in a URL are not mentions.
func detectRFCMentions(text string) []found {
	var out []found
	for _, m := range rfcProse.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		before := runeBefore(text, m[0])
		// "[RFC2119]" is a bracket label (detectBracketLabels); "[RFC 4627]", with a space, is
		// no label that pattern takes, so it is read here, brackets and all.
		if before == '[' && m[3] < m[4] && runeAt(text, m[1]) == ']' {
			start, end = m[0]-1, m[1]+1
		} else if before == '/' || before == '[' || before == '-' || before == '.' || isWordRune(before) {
			continue
		}
		if m[0] == lineStart(text, m[0]) && rfcPageHeader.MatchString(text[m[1]:]) {
			continue
		}
		out = append(out, newFound(text, TypeDocumentMention, seriesName(text[m[2]:m[3]], text[m[4]:m[5]]), "", start, end))
	}
	return out
}

// detectBracketLabels reports bracketed citation labels: "[RFC2119]" as "RFC 2119", and other
// labels such as "[ECMA-404]" or "[UNICODE]" as written. A label glued to a word ("Target[Name]")
// is an index expression, and RFC 2119 key words in brackets are emphasis.
func detectBracketLabels(text string) []found {
	var out []found
	for _, m := range bracketLabel.FindAllStringSubmatchIndex(text, -1) {
		label := text[m[2]:m[3]]
		if isWordRune(runeBefore(text, m[0])) || !isCitationLabel(label) {
			continue
		}
		out = append(out, newFound(text, TypeDocumentMention, labelName(label), "", m[0], m[1]))
	}
	return out
}

// isCitationLabel accepts a bracketed label as a citation: it starts with a capital, is no RFC
// 2119 key word or version string, and looks like a citation key (see citationLike).
func isCitationLabel(label string) bool {
	return isUpperRune(runeAt(label, 0)) && !keywordLabels[strings.ToUpper(label)] &&
		!versionLike.MatchString(label) && citationLike(label)
}

// citationLike accepts labels with a digit or at least two capitals ("ECMA-404", "UNICODE",
// "Err3607"); a single capitalised word in brackets ("[Name]") is rarely a citation.
func citationLike(label string) bool {
	upper := 0
	for _, r := range label {
		if isDigit(r) {
			return true
		}
		if isUpperRune(r) {
			upper++
		}
	}
	return upper >= 2
}

// detectNumbered reports numbered citations "[12]", "[3, 4]", "[5-7]", one per number. Brackets
// inside code and data are not citations: a bracket right after ":", "=", ",", "[" or "{" is a JSON or
// array value, one followed by ",", ":" or a brace is a table cell, and a number glued to a word
// ("a[1]") is an index. "[1272/2008]" and "[10.0.0.1]" never match the pattern.
func detectNumbered(text string) []found {
	var out []found
	for _, m := range numberedCite.FindAllStringSubmatchIndex(text, -1) {
		if isWordRune(runeBefore(text, m[0])) || strings.ContainsRune(":=,[{", prevNonSpace(text, m[0])) {
			continue
		}
		if next := nextNonSpace(text, m[1]); next != 0 && strings.ContainsRune(",]}:=[{\"", next) {
			continue
		}
		nums := SplitNumbers(text[m[2]:m[3]])
		if len(nums) == 0 || anyZero(nums) {
			continue
		}
		for _, n := range nums {
			out = append(out, newFound(text, TypeAcademicNumbered, n, "", m[0], m[1]))
		}
	}
	return out
}

func anyZero(nums []string) bool {
	for _, n := range nums {
		if v, err := strconv.Atoi(n); err != nil || v == 0 {
			return true
		}
	}
	return false
}

// detectShortform reports author–year citations in parentheses, "(Smith et al., 2020)",
// "(Smith and Jones 2019; Lee, 2018)", and narrative ones, "Smith et al. (2020)". A single name
// without a comma ("(Stand 2020)", "(January 2020)") is too often a date to count.
func detectShortform(text string) []found {
	var out []found
	for _, pm := range parenthetical.FindAllStringSubmatchIndex(text, -1) {
		inner := text[pm[2]:pm[3]]
		parts := strings.Split(inner, ";")
		off := pm[2]
		for _, part := range parts {
			if m := authorYear.FindStringSubmatchIndex(part); m != nil {
				authors := part[m[2]:m[3]]
				comma := m[5] > m[4]
				if (comma || isMultiAuthor(authors)) && !months[strings.TrimSpace(authors)] {
					s, e := off+m[2], off+m[7]
					if len(parts) == 1 {
						s, e = pm[0], pm[1]
					}
					out = append(out, newFound(text, TypeAcademicShortform, shortformTarget(authors, part[m[6]:m[7]]), "", s, e))
				}
			}
			off += len(part) + 1
		}
	}
	for _, m := range narrative.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, newFound(text, TypeAcademicShortform, shortformTarget(text[m[2]:m[3]], text[m[4]:m[5]]), "", m[0], m[1]))
	}
	return out
}

// months are never authors: "(January, 2020)" is a date.
var months = map[string]bool{
	"January": true, "February": true, "March": true, "April": true, "May": true, "June": true,
	"July": true, "August": true, "September": true, "October": true, "November": true,
	"December": true, "Januar": true, "Februar": true, "März": true, "Mai": true, "Juni": true,
	"Juli": true, "Oktober": true, "Dezember": true, "Spring": true, "Summer": true,
	"Autumn": true, "Fall": true, "Winter": true,
}

func isMultiAuthor(authors string) bool {
	return strings.Contains(authors, " et al") || strings.Contains(authors, " and ") || strings.Contains(authors, "&")
}

// shortformTarget writes "Smith et al. 2020" or "Smith and Jones 2019": one space between words,
// "&" as "and", "et al" with its full stop, no comma before the year.
func shortformTarget(authors, year string) string {
	a := strings.Join(strings.Fields(strings.ReplaceAll(authors, "&", " and ")), " ")
	a = strings.TrimSuffix(a, ",")
	if strings.HasSuffix(a, " et al") {
		a += "."
	}
	return a + " " + year
}

// detectNamedDocuments reports cued mentions of internal documents by title, "see the Gas
// Cabinet Procedure". Both the cue and the document-type noun are required, and so is at least one
// capitalised word before the noun, so "per the Standard" or a capitalised phrase without a cue
// stays silent.
func detectNamedDocuments(text string) []found {
	var out []found
	for _, m := range namedDocument.FindAllStringSubmatchIndex(text, -1) {
		title := strings.Join(strings.Fields(text[m[2]:m[3]]), " ")
		out = append(out, newFound(text, TypeDocumentMention, title, "", m[2], m[3]))
	}
	return out
}

package refs

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// German legal citations are parsed by hand from an anchor ("§", "§§", "Artikel", "Anhang",
// "Anlage") rather than by one large expression: statutes flatten enumerations onto one line
// ("… nach § 7 Absatz 8 zu berücksichtigen, 4. Möglichkeiten …"), and only a token-by-token walk
// can stop a list before an enumeration marker, continue it across ", Absatz 2 bis 4", and then
// look for the law the citation belongs to.

var (
	legalAnchor = regexp.MustCompile(`§§?|\b(?:Artikel|Art\.|Anhang|Anhänge|Anlage|Anlagen)[ \t\n\x{00a0}]`)

	paraNumber    = regexp.MustCompile(`^\d{1,4}[a-z]?`)
	annexNumber   = regexp.MustCompile(`^(?:[IVX]{1,6}|\d{1,3}[a-z]?)`)
	detailItem    = regexp.MustCompile(`^\d{1,4}(?:\.\d{1,4}){0,4}[a-z]?`)
	letterItem    = regexp.MustCompile(`^[a-z]{1,2}\)?`)
	romanItem     = regexp.MustCompile(`^(?:[ivx]{1,5}|\d{1,3})`)
	lawDate       = regexp.MustCompile(`^\s+vom\s+\d{1,2}\.\s*(?:[A-ZÄÖÜ][a-zä]+|\d{1,2}\.)\s*\d{4}`)
	listSep       = regexp.MustCompile(`^\s*(?:,|und\b|oder\b|sowie\b|bis\b|bzw\.)`)
	currentLaw    = regexp.MustCompile(`^(?:dieses\s+(?:Gesetzes|Anhangs|Artikels)|dieser\s+(?:Verordnung|Richtlinie|Anlage))`)
	lawArticle    = regexp.MustCompile(`^(?:des|der|dem|zum|zur)\s+`)
	euAct         = regexp.MustCompile(`^(?:(?:Delegierten|Delegierte)\s+)?(Durchführungsverordnung|Verordnung|Richtlinie|Durchführungsbeschlusses|Durchführungsbeschluss|Beschlusses|Beschluss|Entscheidung)\s*(\((?:EG|EU|EWG|Euratom|EGKS)\))?\s*(Nr\.)?\s*(\d{1,4}/\d{2,4}(?:/(?:EG|EU|EWG|Euratom))?)`)
	euActAnywhere = regexp.MustCompile(`\b(?:(?:Delegierten|Delegierte)\s+)?(?:Durchführungsverordnung|Verordnung|Richtlinie|Durchführungsbeschlusses|Durchführungsbeschluss|Beschlusses|Beschluss|Entscheidung)\s*(?:\((?:EG|EU|EWG|Euratom|EGKS)\))?\s*(?:Nr\.)?\s*\d{1,4}/\d{2,4}(?:/(?:EG|EU|EWG|Euratom))?`)
	socialCode    = regexp.MustCompile(`^(?:Ersten|Zweiten|Dritten|Vierten|Fünften|Sechsten|Siebten|Achten|Neunten|Zehnten|Elften|Zwölften|Vierzehnten)\s+Buches(?:\s+Sozialgesetzbuch)?`)
	lawAbbrev     = regexp.MustCompile(`^(?:\d{1,2}\.\s?)?[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]{1,14}`)
	capWord       = regexp.MustCompile(`^[A-ZÄÖÜ][\p{L}-]*\p{L}`)
	lawMention    = regexp.MustCompile(`\b(?:des|der|dem|das|die)\s+([A-ZÄÖÜ][\p{L}-]*\p{L})`)
)

// detailKeywords maps the keywords of a citation's detail chain to their canonical abbreviation.
// Longer spellings come first so "Absätze" is not read as "Abs" plus garbage.
var detailKeywords = []struct{ spelling, canon string }{
	{"Unterabsätze", "UAbs."}, {"Unterabsatz", "UAbs."}, {"UAbs.", "UAbs."},
	{"Absätzen", "Abs."}, {"Absätze", "Abs."}, {"Absatz", "Abs."}, {"Abs.", "Abs."},
	{"Halbsatz", "Halbs."}, {"Halbs.", "Halbs."}, {"Hs.", "Halbs."},
	{"Sätzen", "S."}, {"Sätze", "S."}, {"Satz", "S."}, {"S.", "S."},
	{"Nummern", "Nr."}, {"Nummer", "Nr."}, {"Nrn.", "Nr."}, {"Nr.", "Nr."},
	{"Buchstaben", "Buchst."}, {"Buchstabe", "Buchst."}, {"Buchst.", "Buchst."}, {"lit.", "Buchst."},
	{"Alternative", "Alt."}, {"Alt.", "Alt."},
	{"Ziffern", "Ziff."}, {"Ziffer", "Ziff."}, {"Ziff.", "Ziff."},
	{"Teile", "Teil"}, {"Teil", "Teil"},
	{"Abschnitt", "Abschn."}, {"Abschn.", "Abschn."},
	{"Spalten", "Spalte"}, {"Spalte", "Spalte"},
	{"Eintrag", "Eintrag"}, {"Zeile", "Zeile"},
}

// genericLawWords name a law without identifying it ("§ 5 des Gesetzes", "der Verordnung"). They
// still count as a document context, because the citation certainly leaves the current document,
// but they are never reported as document mentions on their own.
var genericLawWords = map[string]bool{
	"Gesetz": true, "Gesetzes": true, "Gesetzs": true, "Verordnung": true, "Rechtsverordnung": true,
	"Durchführungsverordnung": true, "Änderungsverordnung": true, "Änderungsgesetz": true,
	"Änderungsgesetzes": true, "Bundesgesetz": true, "Bundesgesetzes": true, "Landesgesetz": true,
	"Landesgesetzes": true, "Strafgesetz": true, "Strafgesetzes": true, "Vertrag": true,
	"Vertrages": true, "Vertrags": true, "Ordnung": true, "Anordnung": true, "Zuordnung": true,
	"Einordnung": true, "Unterordnung": true, "Abkommen": true, "Abkommens": true,
	"Übereinkommen": true, "Übereinkommens": true,
}

// titleLinks open the long title of a generic law: "Gesetz über die Umweltverträglichkeitsprüfung",
// "Verordnung zur arbeitsmedizinischen Vorsorge".
var titleLinks = map[string]bool{"über": true, "zur": true, "zum": true, "zu": true, "für": true, "betreffend": true}

// titleGlue are lowercase words that may sit inside a long law title between capitalised words.
var titleGlue = map[string]bool{
	"die": true, "der": true, "das": true, "den": true, "dem": true, "des": true, "und": true,
	"von": true, "vor": true, "bei": true, "mit": true, "über": true, "zur": true, "zum": true,
	"für": true, "auf": true, "gegen": true,
}

// legalPart is one cited section: its head ("§ 6") and canonical detail chain ("Abs. 1 S. 2").
type legalPart struct {
	head    string
	details string
	rangeTo bool // the separator before this part was "bis", so it closes a range
}

// detectLegal finds "§"/"§§", "Artikel", "Anhang" and "Anlage" citations.
func detectLegal(text string) []found {
	var out []found
	for _, loc := range legalAnchor.FindAllStringIndex(text, -1) {
		if isHeadingLabel(text, loc[0]) {
			continue
		}
		out = append(out, parseLegal(text, loc[0], loc[1])...)
	}
	inheritListContext(text, out)
	return out
}

// isHeadingLabel reports the "§ 6" in a Markdown heading "# § 6 Informationsermittlung": it
// labels the section itself and is no reference.
func isHeadingLabel(text string, p int) bool {
	prefix := strings.TrimSpace(text[lineStart(text, p):p])
	return prefix != "" && strings.Trim(prefix, "#") == ""
}

func parseLegal(text string, start, anchorEnd int) []found {
	anchor := strings.TrimSpace(strings.TrimRight(text[start:anchorEnd], "\u00a0"))
	var head string
	var numRe *regexp.Regexp
	multi := false
	switch anchor {
	case "§":
		head, numRe = "§", paraNumber
	case "§§":
		head, numRe, multi = "§", paraNumber, true
	case "Artikel", "Art.":
		head, numRe = "Art.", paraNumber
	case "Anhang":
		head, numRe = "Anhang", annexNumber
	case "Anhänge":
		head, numRe, multi = "Anhang", annexNumber, true
	case "Anlage":
		head, numRe = "Anlage", annexNumber
	case "Anlagen":
		head, numRe, multi = "Anlage", annexNumber, true
	default:
		return nil
	}
	p := skipSpace(text, anchorEnd)
	num, p, ok := legalNumber(text, p, numRe)
	if !ok || (head == "Anhang" || head == "Anlage") && annexIsEnumeration(text, p, num, multi) {
		return nil
	}
	details, p := parseDetails(text, p)
	parts := []legalPart{{head: head + " " + num, details: details}}
	if multi {
		for {
			m := matchAt(listSep, text, p)
			if m == nil {
				break
			}
			sep := strings.TrimSpace(text[m[0]:m[1]])
			q := skipSpace(text, m[1])
			// Lists may repeat the sign: "§§ 3, 4 Absatz 1 und 2, §§ 5 bis 9".
			if head == "§" {
				for strings.HasPrefix(text[q:], "§") {
					q += len("§")
				}
				q = skipSpace(text, q)
			}
			n, q2, ok := legalNumber(text, q, numRe)
			if !ok || endsInEnumeration(text, q2, sep) {
				break
			}
			d, q3 := parseDetails(text, q2)
			parts = append(parts, legalPart{head: head + " " + n, details: d, rangeTo: sep == "bis"})
			p = q3
		}
	}
	context, end, explicit := parseLawContext(text, p)
	var out []found
	for _, target := range expandLegalParts(head, parts) {
		f := newFound(text, TypeLegalSection, target, context, start, end)
		f.explicitCurrent = explicit
		out = append(out, f)
	}
	return out
}

// legalNumber reads a section or annex number at p. The number must end the word: "§ 5a" is
// section 5a, but "§ 5abc" is nothing we understand.
func legalNumber(text string, p int, re *regexp.Regexp) (string, int, bool) {
	m := matchAt(re, text, p)
	if m == nil || isWordRune(runeAt(text, m[1])) {
		return "", p, false
	}
	return text[m[0]:m[1]], m[1], true
}

// annexIsEnumeration reports "bei genehmigungsbedürftigen Anlagen 1. nach der Inbetriebnahme":
// "Anlage" also means an installation, and a flattened enumeration may follow it. A plural
// followed by "1. " is always such a list; a singular only when a lowercase word follows, since
// "… nach Anlage 2. Die …" ends a sentence. Roman numerals never number enumerations.
func annexIsEnumeration(text string, p int, num string, plural bool) bool {
	if !isDigit(runeAt(num, 0)) || !isEnumerationMarker(text, p) {
		return false
	}
	if plural {
		return true
	}
	return unicode.IsLower(nextNonSpace(text, p+1))
}

// endsInEnumeration reports whether a list item that ended at p is really the number of the next
// enumeration item: after a comma any "N. " is ("…, 4. Möglichkeiten"); after "und" or "oder" only
// when a lowercase word follows ("nach § 7 Absatz 3 und 3. unverzüglich"), because "… Absatz 1
// und 2. Der Arbeitgeber …" ends a sentence with a real list item.
func endsInEnumeration(text string, p int, sep string) bool {
	if !isEnumerationMarker(text, p) {
		return false
	}
	if sep == "," {
		return true
	}
	return unicode.IsLower(nextNonSpace(text, p+1))
}

// isEnumerationMarker reports whether the number that ended at p is followed by ". ", the marker
// of a flattened enumeration item ("…, 4. Möglichkeiten einer Substitution") rather than another
// list item of the citation.
func isEnumerationMarker(text string, p int) bool {
	if runeAt(text, p) != '.' {
		return false
	}
	next := runeAt(text, p+1)
	return next == 0 || next == ' ' || next == '\n' || next == '\t' || next == '\u00a0'
}

// parseDetails reads the detail chain after a section number, "Absatz 1 Satz 2 Nummer 4" or
// "Absatz 1 Nummer 1, Absatz 2 bis 4", and returns it in canonical form with the offset after it.
func parseDetails(text string, p int) (string, int) {
	var b strings.Builder
	for {
		q := skipSpace(text, p)
		canon, q2, ok := detailKeyword(text, q)
		if !ok {
			break
		}
		items, q3, ok := detailItems(text, skipSpace(text, q2), canon)
		if !ok {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(canon + " " + items)
		p = q3
		// A separator followed by another keyword continues the chain: "Nummer 1, Absatz 2".
		if m := matchAt(listSep, text, p); m != nil {
			sep := canonicalSep(text[m[0]:m[1]])
			r := skipSpace(text, m[1])
			if canon2, r2, ok := detailKeyword(text, r); ok {
				if _, _, ok := detailItems(text, skipSpace(text, r2), canon2); ok {
					if sep == "," {
						b.WriteByte(',')
					} else {
						b.WriteString(" " + sep)
					}
					p = r
				}
			}
		}
	}
	return b.String(), p
}

// detailKeyword matches one keyword of detailKeywords at p.
func detailKeyword(text string, p int) (string, int, bool) {
	rest := text[p:]
	for _, k := range detailKeywords {
		if !strings.HasPrefix(rest, k.spelling) {
			continue
		}
		end := p + len(k.spelling)
		if !strings.HasSuffix(k.spelling, ".") && isWordRune(runeAt(text, end)) {
			continue
		}
		return k.canon, end, true
	}
	return "", p, false
}

// detailItems reads the value of one keyword and any list after it: "1", "1 und 2", "8 bis 9",
// "a". The list stops before ", 4. " (an enumeration marker) and before anything that is not an
// item, such as "und § 7".
func detailItems(text string, p int, keyword string) (string, int, bool) {
	item, q, ok := detailItem1(text, p, keyword)
	if !ok {
		return "", p, false
	}
	var b strings.Builder
	b.WriteString(item)
	for {
		m := matchAt(listSep, text, q)
		if m == nil {
			break
		}
		sep := canonicalSep(text[m[0]:m[1]])
		r := skipSpace(text, m[1])
		next, r2, ok := detailItem1(text, r, keyword)
		if !ok || endsInEnumeration(text, r2, sep) {
			break
		}
		if sep == "," {
			b.WriteString(", " + next)
		} else {
			b.WriteString(" " + sep + " " + next)
		}
		q = r2
	}
	return b.String(), q, true
}

func detailItem1(text string, p int, keyword string) (string, int, bool) {
	re := detailItem
	switch keyword {
	case "Buchst.":
		re = letterItem
	case "Ziff.":
		re = romanItem
	}
	m := matchAt(re, text, p)
	if m == nil || isWordRune(runeAt(text, m[1])) {
		return "", p, false
	}
	return strings.TrimSuffix(text[m[0]:m[1]], ")"), m[1], true
}

// canonicalSep maps a list separator to ",", "und", "oder" or "bis".
func canonicalSep(s string) string {
	switch s = strings.TrimSpace(s); s {
	case ",":
		return ","
	case "sowie", "bzw.":
		return "und"
	}
	return s
}

// parseLawContext reads what follows a citation: "des Arbeitsschutzgesetzes", "der Verordnung (EG)
// Nr. 1272/2008", "GefStoffV", "dieser Verordnung". It returns the context as written (empty for
// the current document), the offset after it, and whether the current document was named
// explicitly.
func parseLawContext(text string, p int) (string, int, bool) {
	q := skipSpace(text, p)
	if m := matchAt(currentLaw, text, q); m != nil {
		return "", m[1], true
	}
	if m := matchAt(lawArticle, text, q); m != nil {
		if name, end, ok := lawName(text, m[1], true); ok {
			return name, end, false
		}
		return "", p, false
	}
	if name, end, ok := lawName(text, q, false); ok {
		return name, end, false
	}
	return "", p, false
}

// lawName reads a law's name at p. After an article any law word counts, generic ones included
// ("der Verordnung über …"); without one only a specific name or abbreviation does ("§ 6
// GefStoffV", "§ 3 Chemikaliengesetz"), so "§ 6 Informationsermittlung" stays a bare section.
func lawName(text string, p int, afterArticle bool) (string, int, bool) {
	if m := matchAt(euAct, text, p); m != nil {
		return normalizeEUAct(text, m), m[1], true
	}
	if m := matchAt(socialCode, text, p); m != nil {
		return strings.Join(strings.Fields(text[m[0]:m[1]]), " "), m[1], true
	}
	if m := matchAt(capWord, text, p); m != nil && isLawWord(text[m[0]:m[1]]) {
		word := text[m[0]:m[1]]
		if genericLawWords[word] {
			if !afterArticle {
				return "", p, false
			}
			end := extendTitle(text, m[1])
			if end == m[1] {
				// "der Verordnung vom 6. Juli 2021": an amending act known only by its date.
				if d := matchAt(lawDate, text, end); d != nil {
					end = d[1]
				}
			}
			return strings.Join(strings.Fields(text[m[0]:end]), " "), end, true
		}
		return word, m[1], true
	}
	if m := matchAt(lawAbbrev, text, p); m != nil && isLawAbbrev(text[m[0]:m[1]]) && !isWordRune(runeAt(text, m[1])) {
		return strings.Join(strings.Fields(text[m[0]:m[1]]), " "), m[1], true
	}
	return "", p, false
}

// lawSuffixes end the words that name a law: Arbeitsschutzgesetzes, Gefahrstoffverordnung,
// Störfall-Verordnung, Gewerbeordnung, Strafgesetzbuches, Einigungsvertrages.
var lawSuffixes = []string{
	"gesetz", "gesetzes", "gesetzs", "gesetzbuch", "gesetzbuches", "gesetzbuchs", "verordnung",
	"ordnung", "vertrag", "vertrages", "vertrags", "übereinkommen", "übereinkommens", "abkommen",
	"abkommens",
}

// isLawWord reports whether a capitalised word names a law by its ending.
func isLawWord(w string) bool {
	lw := strings.ToLower(w)
	for _, suf := range lawSuffixes {
		if strings.HasSuffix(lw, suf) {
			return true
		}
	}
	return false
}

// isLawAbbrev accepts the shape of German law abbreviations: a capitalised word with at least two
// capitals ending in G (Gesetz), V (Verordnung), O (Ordnung) or B (Buch), such as GefStoffV,
// ChemG, BImSchG, StörfallV, StGB, or an ordinal before a "…V" ("12. BImSchV"). Ordinary nouns
// end in a lowercase letter, and acronyms such as GLP end in another capital.
func isLawAbbrev(s string) bool {
	word := s
	ordinal := false
	if i := strings.IndexByte(s, '.'); i >= 0 {
		word, ordinal = strings.TrimSpace(s[i+1:]), true
	}
	if len(word) < 3 {
		return false
	}
	upper := 0
	for _, r := range word {
		if r >= 'A' && r <= 'Z' || r == 'Ä' || r == 'Ö' || r == 'Ü' {
			upper++
		}
	}
	last := word[len(word)-1]
	if ordinal {
		return upper >= 2 && last == 'V'
	}
	return upper >= 2 && strings.IndexByte("GVOB", last) >= 0
}

// extendTitle extends a generic law word over its long title, "Gesetz über die
// Umweltverträglichkeitsprüfung", and returns the end of the title. It keeps capitalised words
// and hyphenated stems ("Kraft- und Brennstoffen"), lets function words and adjectives through only
// when a capitalised word follows, and stops at punctuation, numbers and verbs, since German
// titles have no closing mark.
func extendTitle(text string, p int) int {
	first, q := nextToken(text, skipSpace(text, p))
	if !titleLinks[first] {
		return p
	}
	end := p
	for i := 0; i < 14; i++ {
		s := skipSpace(text, q)
		tok, e := nextToken(text, s)
		word := strings.TrimRight(tok, ",;:.)")
		if word == "" {
			break
		}
		// "Feuerungs-, Gasturbinen- und Verbrennungsmotoranlagen": a hyphenated stem before a
		// comma still belongs to the title.
		if strings.HasSuffix(tok, "-,") {
			end = s + len(tok) - 1
			q = e
			continue
		}
		switch r := runeAt(word, 0); {
		case isUpperRune(r) || strings.HasSuffix(word, "-") || r == '-':
			end = s + len(word)
		case titleGlue[word]:
			// Tentative: kept only if a capitalised word follows.
		case isAdjective(word) && isUpperRune(nextNonSpace(text, e)):
			// Tentative, as above: "überwachungsbedürftige Anlagen".
		default:
			return end
		}
		if word != tok {
			break
		}
		q = e
	}
	return end
}

func nextToken(text string, p int) (string, int) {
	e := p
	for e < len(text) {
		// The decoded size, not len(string(r)): an invalid byte decodes to U+FFFD, three bytes.
		r, n := utf8.DecodeRuneInString(text[e:])
		if r == ' ' || r == '\n' || r == '\t' || r == '\u00a0' || r == '\r' {
			break
		}
		e += n
	}
	return text[p:e], e
}

func isUpperRune(r rune) bool { return r >= 'A' && r <= 'Z' || r == 'Ä' || r == 'Ö' || r == 'Ü' }

// isAdjective guesses a declined German adjective by its ending ("gefährlichen",
// "überwachungsbedürftige").
func isAdjective(w string) bool {
	for _, suf := range []string{"e", "en", "er", "es", "em"} {
		if strings.HasSuffix(w, suf) && !isUpperRune(runeAt(w, 0)) {
			return true
		}
	}
	return false
}

// normalizeEUAct writes an EU act in one spelling: "Verordnung (EG)Nr. 1907/2006" becomes
// "Verordnung (EG) Nr. 1907/2006", "Delegierten Verordnung (EU) …" loses its adjective (the
// number alone identifies the act) and "Beschlusses" becomes "Beschluss".
func normalizeEUAct(text string, m []int) string {
	kind := text[m[2]:m[3]]
	kind = strings.TrimSuffix(kind, "ses")
	if strings.HasSuffix(kind, "Beschlus") {
		kind += "s"
	}
	parts := []string{kind}
	if m[4] >= 0 {
		parts = append(parts, text[m[4]:m[5]])
	}
	if m[6] >= 0 {
		parts = append(parts, "Nr.")
	}
	parts = append(parts, text[m[8]:m[9]])
	return strings.Join(parts, " ")
}

// expandLegalParts turns the parsed parts into targets, expanding "§§ 3 bis 5" into § 3, § 4 and
// § 5 (see SplitNumbers for the limits).
func expandLegalParts(head string, parts []legalPart) []string {
	var out []string
	for i, pt := range parts {
		if pt.rangeTo && i > 0 && parts[i-1].details == "" && pt.details == "" {
			from := strings.TrimPrefix(parts[i-1].head, head+" ")
			to := strings.TrimPrefix(pt.head, head+" ")
			nums := SplitNumbers(from + " bis " + to)
			for _, n := range nums[1:] {
				out = append(out, head+" "+n)
			}
			continue
		}
		t := pt.head
		if pt.details != "" {
			t += " " + pt.details
		}
		out = append(out, t)
	}
	return out
}

// inheritListContext gives "§ 16 oder § 25 Absatz 1 der Gewerbeordnung" (and "Artikel 27 Absatz
// 2 und Artikel 28 … der Verordnung (EU) Nr. 528/2012") the law of its neighbour: German drafting
// names the law once after a list of citations of one kind joined by "und", "oder", "sowie" or a
// comma. Citations that said "dieses Gesetzes" keep the current document.
func inheritListContext(text string, fs []found) {
	for i := len(fs) - 2; i >= 0; i-- {
		a, b := &fs[i], &fs[i+1]
		if a.DocumentContext != "" || a.explicitCurrent || b.DocumentContext == "" || a.End > b.Start {
			continue
		}
		if headWord(a.Target) != headWord(b.Target) {
			continue
		}
		switch strings.TrimSpace(text[a.End:b.Start]) {
		case "und", "oder", "sowie", ",", "bzw.":
			a.DocumentContext = b.DocumentContext
		}
	}
}

// headWord returns the kind of a legal target: "§", "Art.", "Anhang" or "Anlage".
func headWord(target string) string {
	if i := strings.IndexByte(target, ' '); i >= 0 {
		return target[:i]
	}
	return target
}

// detectEUActs reports EU acts named anywhere: "Verordnung (EG) Nr. 1907/2006".
func detectEUActs(text string) []found {
	var out []found
	for _, loc := range euActAnywhere.FindAllStringIndex(text, -1) {
		m := matchAt(euAct, text, loc[0])
		if m == nil {
			continue
		}
		out = append(out, newFound(text, TypeDocumentMention, normalizeEUAct(text, m), "", m[0], m[1]))
	}
	return out
}

// detectLawMentions reports specific German laws named with an article, "nach dem
// Chemikaliengesetz", "im Sinne der Biostoffverordnung". Generic words ("der Verordnung") are
// skipped because they do not say which law is meant.
func detectLawMentions(text string) []found {
	var out []found
	for _, m := range lawMention.FindAllStringSubmatchIndex(text, -1) {
		word := text[m[2]:m[3]]
		if genericLawWords[word] || !isLawWord(word) || strings.HasSuffix(strings.ToLower(word), "ordnung") && !strings.HasSuffix(strings.ToLower(word), "verordnung") {
			continue
		}
		out = append(out, newFound(text, TypeDocumentMention, word, "", m[2], m[3]))
	}
	return out
}

package registry

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize returns the key under which a document name is compared. Two names with the same key
// are the same name; Resolve's exact tier and Check's duplicate test both compare these keys.
//
// The rules, applied in this order:
//
//   - Case is folded and umlauts are spelled out (ä→ae, ö→oe, ü→ue, ß→ss), so "Störfall" and
//     "Stoerfall" agree; other Latin accents are dropped (é→e).
//   - Everything that is not a letter or a digit (spaces, hyphens, underscores, dots, slashes,
//     brackets, "§") separates words, and a change between letters and digits does too, so
//     "RFC6901", "RFC 6901" and "rfc-6901" are the words "rfc" and "6901". Leading zeros of
//     numbers are dropped.
//   - Leading articles and prepositions ("der", "die", "das", "des", "dem", "den", "nach",
//     "gemäß", "gem.", "im", "in", "in der", "zum", "zur", "laut", "the") are dropped, but never
//     the last word.
//   - German inflection of the document-type words is undone: "…gesetzes"/"…gesetze" → "…gesetz",
//     "…gesetzbuchs" → "…gesetzbuch", "…ungen" → "…ung" ("Verordnungen"), "…richtlinien",
//     "…vorschriften", "…abkommens", "…vertrags"; adjective endings after "-lich"/"-isch" are
//     dropped ("Bürgerlichen" → "buergerlich").
//   - The key is all letter words joined without spaces (so compounds written apart, hyphenated
//     or closed agree: "Störfall-Verordnung" = "Störfallverordnung" = "störfall verordnung" =
//     "stoerfallverordnung"), followed by each number, in order, after a space: "12. BImSchV"
//     and "BImSchV 12" are both "bimschv 12", "RFC 6901" is "rfc 6901".
func Normalize(s string) string { return parseName(s).key }

// normName is a name taken apart by the rules of Normalize.
type normName struct {
	tokens  []string // words and numbers in their original order
	letters string   // the letter words joined without separators
	numbers []string // the numbers in their original order
	words   int      // how many letter words there are
	key     string   // letters, then " "+number for each number
}

// leadingWords are dropped from the start of a name: references are written "nach der
// Störfall-Verordnung", "gemäß GefStoffV", "im Chemikaliengesetz", and the article is no part of
// the name.
var leadingWords = map[string]bool{
	"der": true, "die": true, "das": true, "des": true, "dem": true, "den": true,
	"nach": true, "gemaess": true, "gemass": true, "gem": true, "laut": true, "lt": true,
	"im": true, "in": true, "zum": true, "zur": true, "the": true,
}

// inflections undo the German endings of document-type words; the first suffix that fits wins,
// so longer suffixes come first. They apply to both sides of every comparison, so they only need
// to be consistent, not linguistically complete.
var inflections = []struct{ from, to string }{
	{"gesetzes", "gesetz"}, {"gesetzen", "gesetz"}, {"gesetze", "gesetz"},
	{"buches", "buch"}, {"buchs", "buch"},
	{"ungen", "ung"},
	{"richtlinien", "richtlinie"},
	{"vorschriften", "vorschrift"},
	{"kommens", "kommen"},
	{"vertrages", "vertrag"}, {"vertrags", "vertrag"},
}

// adjectiveEndings are dropped after "lich"/"isch" ("des Bürgerlichen Gesetzbuchs",
// "der Europäischen Union").
var adjectiveEndings = []string{"en", "er", "es", "em", "e"}

// foldings spell out the characters that case folding leaves alone.
var foldings = map[rune]string{
	'ä': "ae", 'ö': "oe", 'ü': "ue", 'ß': "ss",
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'å': "a",
	'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ø': "o",
	'ù': "u", 'ú': "u", 'û': "u", 'ý': "y", 'ÿ': "y",
}

// parseName applies the rules documented on Normalize.
func parseName(s string) normName {
	tokens := tokenize(s)
	for len(tokens) > 1 && leadingWords[tokens[0]] {
		tokens = tokens[1:]
	}
	n := normName{tokens: tokens}
	var letters, key strings.Builder
	for i, t := range tokens {
		if isNumber(t) {
			n.numbers = append(n.numbers, t)
			continue
		}
		t = uninflect(t)
		tokens[i] = t
		letters.WriteString(t)
		n.words++
	}
	n.letters = letters.String()
	key.WriteString(n.letters)
	for _, num := range n.numbers {
		if key.Len() > 0 {
			key.WriteByte(' ')
		}
		key.WriteString(num)
	}
	n.key = key.String()
	return n
}

// tokenize folds s and splits it into letter words and numbers.
func tokenize(s string) []string {
	var tokens []string
	var cur strings.Builder
	curDigits := false
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		t := cur.String()
		if curDigits {
			if t = strings.TrimLeft(t, "0"); t == "" {
				t = "0"
			}
		}
		tokens = append(tokens, t)
		cur.Reset()
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsDigit(r):
			if !curDigits {
				flush()
			}
			curDigits = true
			cur.WriteRune(r)
		case unicode.IsLetter(r):
			if curDigits {
				flush()
			}
			curDigits = false
			if f, ok := foldings[r]; ok {
				cur.WriteString(f)
			} else {
				cur.WriteRune(r)
			}
		case unicode.Is(unicode.Mn, r):
			// A combining mark (a decomposed "ü" is "u" + U+0308): treat the diaeresis as the
			// umlaut it stands for and drop the other accents.
			if r == '\u0308' && !curDigits && cur.Len() > 0 {
				cur.WriteByte('e')
			}
		default:
			flush()
		}
	}
	flush()
	return tokens
}

func isNumber(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsDigit(r)
}

func uninflect(t string) string {
	for _, in := range inflections {
		if strings.HasSuffix(t, in.from) {
			return t[:len(t)-len(in.from)] + in.to
		}
	}
	for _, end := range adjectiveEndings {
		stem, ok := strings.CutSuffix(t, end)
		if ok && (strings.HasSuffix(stem, "lich") || strings.HasSuffix(stem, "isch")) {
			return stem
		}
	}
	return t
}

// sameNumbers reports whether two names carry the same numbers in the same order. Numbers are
// the most distinctive part of a name ("RFC 6901" and "RFC 6902", "12. BImSchV" and
// "13. BImSchV"), so no tier ever matches names whose numbers differ.
func sameNumbers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// JaroWinkler returns the Jaro-Winkler similarity of a and b, from 0 (nothing in common) to 1
// (equal), compared rune by rune. It uses the usual scaling factor 0.1 for a common prefix of up
// to four runes.
func JaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	j := jaro(ra, rb)
	prefix := 0
	for prefix < len(ra) && prefix < len(rb) && prefix < 4 && ra[prefix] == rb[prefix] {
		prefix++
	}
	return j + float64(prefix)*0.1*(1-j)
}

// jaro returns the Jaro similarity: matching runes within half the longer length, less half the
// transpositions among them.
func jaro(a, b []rune) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	aMatched := make([]bool, len(a))
	bMatched := make([]bool, len(b))
	matches := 0
	for i, r := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for k := lo; k < hi; k++ {
			if !bMatched[k] && b[k] == r {
				aMatched[i], bMatched[k] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range a {
		if !aMatched[i] {
			continue
		}
		for !bMatched[k] {
			k++
		}
		if a[i] != b[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	return (m/float64(len(a)) + m/float64(len(b)) + (m-float64(transpositions)/2)/m) / 3
}

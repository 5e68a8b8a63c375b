// Package analysis turns text into index terms for lexical search: Unicode-aware tokenising,
// case folding, stop-word removal, Snowball stemming for English and German, diacritics
// folding, and German compounds split into known words (compound.go). Documents and queries go
// through the same analyser, so a query for "Gefährdungsbeurteilungen" finds
// "Gefährdungsbeurteilung", and "Verordnung" finds "Gefahrstoffverordnung".
package analysis

import (
	"strings"
	"unicode"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/porter"
	"golang.org/x/text/unicode/norm"
)

// Languages the analyser knows.
const (
	English = "en"
	German  = "de"
)

// Terms analyses text in the given language ("en", "de"; anything else is treated as English)
// and returns its index terms in order, stop words removed.
func Terms(text, lang string) []string {
	var out []string
	for _, tok := range Tokens(text) {
		out = append(out, wordTerms(tok, lang)...)
	}
	return out
}

// wordTerms are a word's index terms: its own (none for a stop word) and, for a German
// compound, its parts' (compound.go).
func wordTerms(tok, lang string) []string {
	t := term(tok, lang)
	if t == "" {
		return nil
	}
	if lang != German {
		return []string{t}
	}
	return append([]string{t}, compoundTerms(germanForm(tok), t)...)
}

// QueryTerms analyses a query. A repeated word is kept each time, so it weighs more, as in the
// usual BM25 setups. When the language is unknown, each word is stemmed in both languages and
// its distinct forms are all kept, so a mixed knowledge base matches either way.
func QueryTerms(text, lang string) []string {
	var out []string
	for _, w := range QueryWords(text, lang) {
		out = append(out, w.Terms...)
	}
	return out
}

// QueryWord is one word of a query: its terms (one; or, when the language is unknown, its
// English and German forms; and a German compound's parts) and each term's weight.
type QueryWord struct {
	Terms   []string
	Weights []float64
}

// QueryWords analyses a query word by word, as QueryTerms does, stop words left out: which
// query terms were next to each other (proximity), and what each weighs. A German compound
// and its parts share one word's weight, as Lucene scores terms at one position as synonyms:
// a chunk that holds the compound holds its parts too, and would otherwise count the word
// once for each.
func QueryWords(text, lang string) []QueryWord {
	var out []QueryWord
	for _, tok := range Tokens(text) {
		var w QueryWord
		add := func(t string, weight float64) {
			if !contains(w.Terms, t) {
				w.Terms, w.Weights = append(w.Terms, t), append(w.Weights, weight)
			}
		}
		var de []string
		if lang != English {
			de = wordTerms(tok, German)
		}
		if lang != German {
			// The English form of a word the German analysis also gives is that form: it
			// shares the German word's weight.
			if en := term(tok, English); en != "" && !contains(de, en) {
				add(en, 1)
			}
		}
		for _, t := range de {
			add(t, 1/float64(len(de)))
		}
		if len(w.Terms) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// Tokens splits text into lower-case words: runs of letters and digits. A decimal point or
// separator between two digits stays inside the number ("2.5", "1,000"), as in Unicode word
// segmentation, so "2.5" does not also match every "2" and "5"; so do the dots of an
// abbreviation of single letters ("e.g.", "U.S.", "z.B." → "e.g", "u.s", "z.b"), whose letters
// would otherwise match every "e" and "s" (Unicode's rule keeps any letters.letters together,
// which would also glue "warren.toml"). An apostrophe-s possessive is dropped ("cylinder's" →
// "cylinder"), as an English analyser does.
func Tokens(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.ToLower(string(cur))
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r == '\'' || r == '’' }) {
			out = append(out, part)
		}
		cur = cur[:0]
	}
	runes := []rune(text)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case (r == '.' || r == ',') && len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) &&
			i+1 < len(runes) && unicode.IsDigit(runes[i+1]):
			cur = append(cur, r)
		case (r == '\'' || r == '’') && len(cur) > 0 && i+1 < len(runes) && unicode.IsLetter(runes[i+1]):
			cur = append(cur, r)
		case r == '.' && abbreviationSoFar(cur) && i+1 < len(runes) && unicode.IsLetter(runes[i+1]) &&
			(i+2 >= len(runes) || !unicode.IsLetter(runes[i+2]) && !unicode.IsDigit(runes[i+2])):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func term(tok, lang string) string {
	if len(tok) == 0 {
		return ""
	}
	if lang == German {
		if germanStop[tok] {
			return ""
		}
		w := germanForm(tok)
		if germanStop[w] {
			return ""
		}
		return germanStem(w)
	}
	if englishStop[tok] {
		return ""
	}
	folded := Fold(tok)
	if !isASCIILetters(folded) {
		return folded // numbers, abbreviations and mixed tokens ("5a", "2.5", "u.s") as they are
	}
	env := snowball.NewEnv(folded)
	porter.Stem(env)
	return env.Current()
}

// Fold removes diacritics and expands ß, so "Störfall" and "Storfall" meet.
func Fold(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			b.WriteString("ss")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// DetectLanguage guesses German or English from stop-word counts; "" when the text gives no
// evidence either way.
func DetectLanguage(text string) string {
	de, en := 0, 0
	for i, tok := range Tokens(text) {
		if i > 2000 {
			break
		}
		if germanMarkers[tok] {
			de++
		}
		if englishMarkers[tok] {
			en++
		}
	}
	switch {
	case de > en && de >= 2:
		return German
	case en > de && en >= 2:
		return English
	case strings.ContainsAny(text, "äöüßÄÖÜ"):
		return German
	}
	return ""
}

// abbreviationSoFar reports whether cur is single letters joined by dots ("e", "u.s"): the
// next dot and letter continue an abbreviation.
func abbreviationSoFar(cur []rune) bool {
	if len(cur) == 0 || len(cur)%2 == 0 {
		return false
	}
	for i, r := range cur {
		if i%2 == 0 && !unicode.IsLetter(r) || i%2 == 1 && r != '.' {
			return false
		}
	}
	return true
}

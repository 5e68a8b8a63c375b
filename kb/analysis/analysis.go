// Package analysis turns text into index terms for lexical search: Unicode-aware tokenising,
// case folding, stop-word removal, Snowball stemming for English and German, and diacritics
// folding. Documents and queries go through the same analyser, so a query for
// "Gefährdungsbeurteilungen" finds "Gefährdungsbeurteilung".
package analysis

import (
	"strings"
	"unicode"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/german"
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
		if t := term(tok, lang); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// QueryTerms analyses a query. A repeated word is kept each time, so it weighs more, as in the
// usual BM25 setups. When the language is unknown, each word is stemmed in both languages and
// its distinct forms are all kept, so a mixed knowledge base matches either way.
func QueryTerms(text, lang string) []string {
	if lang == English || lang == German {
		return Terms(text, lang)
	}
	var out []string
	for _, tok := range Tokens(text) {
		en, de := term(tok, English), term(tok, German)
		if en != "" {
			out = append(out, en)
		}
		if de != "" && de != en {
			out = append(out, de)
		}
	}
	return out
}

// Tokens splits text into lower-case words: runs of letters and digits. A decimal point or
// separator between two digits stays inside the number ("2.5", "1,000"), as in Unicode word
// segmentation, so "2.5" does not also match every "2" and "5". An apostrophe-s possessive is
// dropped ("cylinder's" → "cylinder"), as an English analyser does.
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
		env := snowball.NewEnv(tok)
		german.Stem(env)
		return Fold(env.Current())
	}
	if englishStop[tok] {
		return ""
	}
	folded := Fold(tok)
	if !isASCIILetters(folded) {
		return folded // numbers and mixed tokens ("5a", "2.5") are kept as they are
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

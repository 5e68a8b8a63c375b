// Package evidence finds a claim in a passage: a number with its unit (converted and rounded
// as far as the claim allows), a CAS number, a phrase, a yes/no statement. warren uses it to
// check that a cited passage states what a stored value or a sentence of a report says. It
// knows units and spellings, not fields: its callers (the gas desk, the report check) say what
// a claim is. Every match is a whole token or a run of whole tokens, so "no" is never found in
// "Nordgas", nor 62.5 in 162.5.
package evidence

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is where a match stands in the text searched, in bytes.
type Span struct{ Start, End int }

// token is a run of letters and digits, folded for comparison, with where it stands.
type token struct {
	text       string
	start, end int
}

// fold is how a word is compared: lower case, accents dropped, umlauts spelled out, sub- and
// superscript digits as digits (SiH₄ = SiH4), and British and American spellings met
// (odour = odor, harmonised = harmonized).
var letterFold = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss",
	"á", "a", "à", "a", "â", "a", "å", "a", "ã", "a", "é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ó", "o", "ò", "o", "ô", "o", "õ", "o", "ø", "o",
	"ú", "u", "ù", "u", "û", "u", "ç", "c", "ñ", "n",
	"₀", "0", "₁", "1", "₂", "2", "₃", "3", "₄", "4", "₅", "5", "₆", "6", "₇", "7", "₈", "8", "₉", "9",
	"⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5", "⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9")

var (
	iseEnding = regexp.MustCompile(`is(e|ed|es|ing|ation|ations|er|ers)$`)
	ourEnding = regexp.MustCompile(`our(s|less)?$`)
)

func fold(word string) string {
	w := letterFold.Replace(strings.ToLower(word))
	if len(w) > 4 {
		w = iseEnding.ReplaceAllString(w, "iz$1")
		w = ourEnding.ReplaceAllString(w, "or$1")
	}
	return w
}

// wordRune is a rune that belongs to a word: letters, digits, and the sub- and superscript
// digits of formulas and units.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r >= '₀' && r <= '₉' || r == '²' || r == '³' || r == '¹' || r >= '⁴' && r <= '⁹' || r == '⁰'
}

// tokens splits text into words; punctuation and spacing separate them and are otherwise
// ignored, so "2.3 (5.1, 8)" and "2.3 (5.1,8)" are the same words.
func tokens(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, token{fold(text[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{fold(text[start:]), start, len(text)})
	}
	return out
}

func words(phrase string) []string {
	var out []string
	for _, t := range tokens(phrase) {
		out = append(out, t.text)
	}
	return out
}

// phraseAt reports whether the words of a phrase stand in toks from index i on.
func phraseAt(toks []token, i int, ws []string) bool {
	if len(ws) == 0 || i+len(ws) > len(toks) {
		return false
	}
	for k, w := range ws {
		if toks[i+k].text != w {
			return false
		}
	}
	return true
}

// FindPhrase finds the first of the phrases that occurs in text as whole words (case, accents,
// punctuation and spacing aside).
func FindPhrase(text string, phrases ...string) (Span, bool) {
	return FindPhraseNear(text, nil, 0, phrases...)
}

// FindPhraseNear is FindPhrase where one of labels must end at most window words before the
// phrase: "Physical state: gas" states the state, "gas" alone on a gas's sheet does not. No
// labels means none is needed.
func FindPhraseNear(text string, labels []string, window int, phrases ...string) (Span, bool) {
	toks := tokens(text)
	for _, p := range phrases {
		ws := words(p)
		for i := range toks {
			if !phraseAt(toks, i, ws) {
				continue
			}
			sp := Span{toks[i].start, toks[i+len(ws)-1].end}
			if len(labels) == 0 {
				return sp, true
			}
			if ls, ok := labelBefore(toks, i, labels, window); ok {
				return Span{ls, sp.End}, true
			}
			if ls, ok := rowLabel(text, sp.Start, labels); ok {
				return Span{ls, sp.End}, true
			}
		}
	}
	return Span{}, false
}

// rowLabel finds one of labels in the first cell of the Markdown table row that pos stands in,
// when pos is in a later cell: in "| State at 20 °C | gas | liquid |" the label names the
// row's values however many columns come before. It returns where the label starts.
func rowLabel(text string, pos int, labels []string) (int, bool) {
	lineStart := strings.LastIndexByte(text[:pos], '\n') + 1
	lineEnd := len(text)
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		lineEnd = pos + i
	}
	line := text[lineStart:lineEnd]
	trimmed := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(trimmed, "|") {
		return 0, false
	}
	offset := lineStart + len(line) - len(trimmed) + 1
	first, _, ok := strings.Cut(trimmed[1:], "|")
	if !ok || pos < offset+len(first) {
		return 0, false
	}
	toks := tokens(first)
	for _, l := range labels {
		ws := words(l)
		for i := range toks {
			if phraseAt(toks, i, ws) {
				return offset + toks[i].start, true
			}
		}
	}
	return 0, false
}

// labelBefore finds one of labels ending at most window words before toks[i] and returns where
// it starts.
func labelBefore(toks []token, i int, labels []string, window int) (int, bool) {
	for _, l := range labels {
		ws := words(l)
		for end := i - 1; end >= 0 && end >= i-1-window; end-- {
			if s := end - len(ws) + 1; s >= 0 && phraseAt(toks, s, ws) {
				return toks[s].start, true
			}
		}
	}
	return 0, false
}

// The words that answer yes or no after a label, and those that negate a label before it.
var (
	yesWords = map[string]bool{"yes": true, "y": true, "true": true, "ja": true, "j": true, "wahr": true, "applies": true}
	noWords  = map[string]bool{"no": true, "n": true, "false": true, "nein": true, "falsch": true, "none": true, "keine": true}
	negators = map[string]bool{"not": true, "non": true, "no": true, "nicht": true, "kein": true, "keine": true, "without": true, "ohne": true, "never": true}
)

// FindStatement finds where text states yes (or no) about a property named by one of labels:
// the label answered by a yes/no word ("Pyrophoric: no", "| GHS02 | yes |"), or, for yes, the
// label standing unnegated ("Pyrophoric gas"), for no, negated ("not pyrophoric",
// "non-pyrophoric"). A bare "no" is no statement; a label answered the other way states the
// opposite and does not count.
func FindStatement(text string, labels []string, yes bool) (Span, bool) {
	toks := tokens(text)
	for _, l := range labels {
		ws := words(l)
		for i := range toks {
			if !phraseAt(toks, i, ws) {
				continue
			}
			end := i + len(ws)
			if end < len(toks) && (yesWords[toks[end].text] || noWords[toks[end].text]) && separated(text, toks[end-1], toks[end]) {
				if yesWords[toks[end].text] == yes {
					return Span{toks[i].start, toks[end].end}, true
				}
				continue // stated the other way
			}
			negated := i > 0 && negators[toks[i-1].text] || i > 1 && negators[toks[i-2].text] && len(toks[i-1].text) <= 3
			if negated != yes {
				start := toks[i].start
				if negated {
					start = toks[i-1].start
					if !negators[toks[i-1].text] {
						start = toks[i-2].start
					}
				}
				return Span{start, toks[end-1].end}, true
			}
		}
	}
	return Span{}, false
}

// separated reports that an answer word follows its label across a separator (":", "|", "=",
// a dash) or a line break, not as the next word of a sentence ("Pyrophoric no more").
func separated(text string, label, answer token) bool {
	between := text[label.end:answer.start]
	return strings.ContainsAny(between, ":|=–-\n\t")
}

// casShape is a CAS number with any of the hyphens documents use.
var casShape = regexp.MustCompile(`\d{2,7}[-‐‑–]\d{2}[-‐‑–]\d`)

// FindCAS finds a CAS number exactly, as a whole token: 7803-62-5 is not in 17803-62-5.
func FindCAS(text, cas string) (Span, bool) {
	want := strings.NewReplacer("‐", "-", "‑", "-", "–", "-").Replace(strings.TrimSpace(cas))
	for _, loc := range casShape.FindAllStringIndex(text, -1) {
		got := strings.NewReplacer("‐", "-", "‑", "-", "–", "-").Replace(text[loc[0]:loc[1]])
		if got == want && !digitNear(text, loc[0], loc[1]) {
			return Span{loc[0], loc[1]}, true
		}
	}
	return Span{}, false
}

// digitNear reports a digit, or a hyphen and a digit, right before start or after end: the
// match is part of a longer number.
func digitNear(text string, start, end int) bool {
	before, n := utf8.DecodeLastRuneInString(text[:start])
	if n > 0 && (unicode.IsDigit(before) || before == '-' && start-n > 0 && unicode.IsDigit(rune(text[start-n-1]))) {
		return true
	}
	after, n := utf8.DecodeRuneInString(text[end:])
	return n > 0 && (unicode.IsDigit(after) || after == '-' && end+n < len(text) && unicode.IsDigit(rune(text[end+n])))
}

// FindCode finds a code such as "UN1203" whether written as one word or with its prefix apart
// ("UN 1203", "UN-Nr. 1203"): the number as a whole token with at most one word between it
// and the prefix.
func FindCode(text, prefix, number string) (Span, bool) {
	toks := tokens(text)
	p, n := fold(prefix), fold(number)
	for i, t := range toks {
		switch {
		case t.text == p+n:
			return Span{t.start, t.end}, true
		case t.text == n:
			if s, ok := labelBefore(toks, i, []string{prefix}, 1); ok {
				return Span{s, t.end}, true
			}
		}
	}
	return Span{}, false
}

package gas

import (
	"strings"

	edlib "github.com/hbollon/go-edlib"
)

// Suggestions for headers that match no field. MatchHeader is exact about words (up to case,
// accents, punctuation, order and units); SuggestField is the forgiving second look that the
// import report uses to ask "did you mean …?" about an abbreviation ("Boiling Pt", "Mol Wt",
// "Crit. Temp") or a typo ("Molecualr Weight"). It never decides a column by itself.

// minSuggestScore is how alike a header and a field's spelling must be to suggest the field.
const minSuggestScore = 0.6

// SuggestField returns the field a header that matches none probably means, and false when
// no field comes close.
func SuggestField(header string) (Field, bool) {
	hw := suggestWords(header)
	if len(hw) == 0 {
		return Field{}, false
	}
	best, bestScore := -1, 0.0
	for i, f := range fields {
		spellings := append([]string{strings.ReplaceAll(f.Name, "_", " "), f.Label}, f.Aliases...)
		for _, s := range spellings {
			cw := suggestWords(s)
			if len(cw) == 0 || len(strings.Join(cw, "")) < 3 { // "BP", "Tc": only an exact match means them
				continue
			}
			score := max(wordsScore(hw, cw), squashedSim(strings.Join(hw, ""), strings.Join(cw, "")))
			if score > bestScore {
				best, bestScore = i, score
			}
		}
	}
	if best < 0 || bestScore < minSuggestScore {
		return Field{}, false
	}
	return fields[best], true
}

// suggestWords are the words of a header without its bracketed part and trailing unit words.
func suggestWords(h string) []string {
	ws := headerWords(h, true)
	if t := trimUnitWord(ws); t != nil {
		ws = t
	}
	return ws
}

// wordsScore pairs each word of the header with its most similar unused word of the spelling
// and averages over the longer of the two.
func wordsScore(hw, cw []string) float64 {
	used := make([]bool, len(cw))
	sum := 0.0
	for _, h := range hw {
		bi, bs := -1, 0.0
		for i, c := range cw {
			if s := wordSim(h, c); !used[i] && s > bs {
				bi, bs = i, s
			}
		}
		if bi >= 0 {
			used[bi] = true
			sum += bs
		}
	}
	return sum / float64(max(len(hw), len(cw)))
}

// wordSim says how alike a word of a header is to a word of a field's spelling: 1 for the
// same word, less for an abbreviation by prefix ("temp") or by dropped letters ("pt"), and for
// a word a letter or two off (by optimal string alignment: a swap of neighbours is one edit).
func wordSim(h, c string) float64 {
	switch {
	case h == c:
		return 1
	case len(h) >= 3 && strings.HasPrefix(c, h), len(c) >= 4 && strings.HasPrefix(h, c):
		return 0.85
	case len(h) >= 2 && h[0] == c[0] && len(h) < len(c) && isSubsequence(h, c):
		return 0.7
	}
	n := max(len([]rune(h)), len([]rune(c)))
	if n < 4 {
		return 0
	}
	if r := 1 - float64(edlib.OSADamerauLevenshteinDistance(h, c))/float64(n); r >= 0.75 {
		return 0.9 * r
	}
	return 0
}

// squashedSim compares a header and a spelling written without spaces ("Auto Ignition Temp",
// "Autoignition Temperature"): by a prefix that covers most of the longer, or by edit distance.
func squashedSim(h, c string) float64 {
	short, long := len([]rune(h)), len([]rune(c))
	if short > long {
		short, long = long, short
	}
	if (strings.HasPrefix(c, h) || strings.HasPrefix(h, c)) && float64(short) >= 0.6*float64(long) {
		return 0.85
	}
	if r := 1 - float64(edlib.OSADamerauLevenshteinDistance(h, c))/float64(long); long >= 4 && r >= 0.75 {
		return 0.9 * r
	}
	return 0
}

// isSubsequence reports whether the letters of a appear in b in order.
func isSubsequence(a, b string) bool {
	ra, i := []rune(a), 0
	for _, r := range b {
		if i < len(ra) && ra[i] == r {
			i++
		}
	}
	return i == len(ra)
}

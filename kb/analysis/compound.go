package analysis

import (
	"strings"
	"unicode"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/german"
)

// German compounds. "Gefahrstoffverordnung" is one word where English writes three, so a
// query for "Verordnung über Gefahrstoffe" would miss it, and a query for the compound would
// miss "die Verordnung zu Gefahrstoffen". As Lucene's dictionary compound filter does, a word
// that splits into known words (compoundParts, with the linking elements German puts between
// them: Arbeit-s-schutz, Bund-es-land) is indexed as itself and as its parts: the whole
// stem keeps exact matches first, the parts find the other phrasings. The word list is
// warren's own, of the words that make up the compounds of chemical safety, occupational
// safety and law; a word it does not know stays whole, as before.

// minCompound is the shortest word that is split; minPart the shortest part.
const (
	minCompound = 8
	minPart     = 3
)

// linkingElements may join a part to the next ("Arbeit|s|schutz", "Bund|es|amt",
// "Straße|n|verkehr", "Kind|er|garten").
var linkingElements = []string{"s", "es", "n", "en", "er", "e", "ns"}

// compoundParts are the known words (lower-case, ß as ss: compoundKey); compoundStems their
// stems, so that a compound's last part may carry any inflection ("…verordnungen").
var compoundParts, compoundStems = func() (map[string]bool, map[string]bool) {
	parts, stems := map[string]bool{}, map[string]bool{}
	for _, w := range strings.Fields(compoundWords) {
		w = compoundKey(w)
		parts[w] = true
		stems[germanStem(w)] = true
	}
	return parts, stems
}()

// compoundKey is how a word is looked up among the parts: lower-case, umlauts kept (the
// stemmer reads them), ß written ss as Swiss German and many keyboards do.
func compoundKey(w string) string { return strings.ReplaceAll(strings.ToLower(w), "ß", "ss") }

// germanStem stems a German word and folds the stem.
func germanStem(w string) string {
	env := snowball.NewEnv(w)
	german.Stem(env)
	return Fold(env.Current())
}

// splitCompound splits a German word (compoundKey) into the fewest known parts (each part as
// written in the word, its linking element dropped); nil when the word is short, is itself a
// known word, or does not split. Lengths are in bytes: an umlaut counts two.
func splitCompound(w string) []string {
	if len(w) < minCompound || !allLetters(w) || compoundParts[w] || compoundStems[germanStem(w)] {
		return nil
	}
	// best[i]: the fewest parts that make up w[:i], and where the last of them starts and ends
	// (before its linking element).
	type step struct{ parts, start, end int }
	best := make([]step, len(w)+1)
	for i := range best {
		best[i].parts = -1
	}
	best[0].parts = 0
	for i := 0; i < len(w); i++ {
		if best[i].parts < 0 {
			continue
		}
		for j := i + minPart; j <= len(w); j++ {
			part := w[i:j]
			last := j == len(w)
			if !(compoundParts[part] || !last && compoundStems[part] || last && compoundStems[germanStem(part)]) {
				continue
			}
			ends := []int{j}
			if !last {
				for _, l := range linkingElements {
					if strings.HasPrefix(w[j:], l) && j+len(l) < len(w) {
						ends = append(ends, j+len(l))
					}
				}
			}
			for _, e := range ends {
				if n := best[i].parts + 1; best[e].parts < 0 || n < best[e].parts {
					best[e] = step{parts: n, start: i, end: j}
				}
			}
		}
	}
	if best[len(w)].parts < 2 {
		return nil
	}
	parts := make([]string, best[len(w)].parts)
	for at, i := len(w), len(parts)-1; i >= 0; i-- {
		s := best[at]
		parts[i] = w[s.start:s.end]
		at = s.start
	}
	return parts
}

// compoundTerms are the index terms of a German compound's parts (stemmed and folded, in
// order, each once and none equal to the whole word's term), or nil. w is the word as
// germanForm reads it.
func compoundTerms(w, whole string) []string {
	var out []string
	for _, p := range splitCompound(compoundKey(w)) {
		t := germanStem(p)
		if t != whole && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func allLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// germanForm reads a lower-case German word as the stemmer should see it: "ae", "oe" and "ue"
// as the umlauts they stand for when typed without them ("Gefaehrdung" is "Gefährdung"), as
// Snowball's German variant and Lucene's German normalisation do; not after a vowel, where
// they are two letters ("Feuer", "neue", "Poet" … "Mauer"), nor "ue" after q ("Quelle").
func germanForm(w string) string {
	if !strings.Contains(w, "ae") && !strings.Contains(w, "oe") && !strings.Contains(w, "ue") {
		return w
	}
	var b strings.Builder
	prev := rune(0)
	rs := []rune(w)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if i+1 < len(rs) && rs[i+1] == 'e' && !isVowel(prev) {
			umlaut := map[rune]rune{'a': 'ä', 'o': 'ö', 'u': 'ü'}[r]
			if umlaut != 0 && !(r == 'u' && prev == 'q') {
				b.WriteRune(umlaut)
				prev = umlaut
				i++
				continue
			}
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func isVowel(r rune) bool { return strings.ContainsRune("aeiouäöüy", r) }

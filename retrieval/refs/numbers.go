package refs

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExpand bounds how many items a range such as "[5-7]" or "§§ 3 bis 5" expands to. Longer
// ranges keep only their two ends, so one careless "[1-300]" cannot flood the reference budget.
const maxExpand = 20

var (
	numberListSep = regexp.MustCompile(`\s*(?:,\s*(?:and|und|or|oder)?|;|\band\b|\bund\b|\bor\b|\boder\b|\bsowie\b)\s*`)
	numberRange   = regexp.MustCompile(`^\s*(\d+)([a-z]?)\s*(?:-|–|—|\bbis\b|\bthrough\b|\bto\b)\s*(\d+)([a-z]?)\s*$`)
)

// SplitNumbers splits a written list of numbers into its items and expands short ranges:
// "3, 4" → [3 4], "5-7" → [5 6 7], "3 bis 5" → [3 4 5], "93, 97" → [93 97], "15e bis 15g" →
// [15e 15f 15g], "3 and 4" → [3 4]. A range longer than maxExpand items, or one whose ends do not
// share a form ("5 bis 7a"), keeps only its ends. Empty items are dropped.
func SplitNumbers(s string) []string {
	var out []string
	for _, part := range numberListSep.Split(s, -1) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		out = append(out, expandRange(part)...)
	}
	return out
}

// expandRange expands "5-7", "3 bis 5" and "15e bis 15g"; anything else comes back unchanged.
func expandRange(s string) []string {
	m := numberRange.FindStringSubmatch(s)
	if m == nil {
		return []string{strings.TrimSpace(s)}
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[3])
	first, last := m[1]+m[2], m[3]+m[4]
	switch {
	case m[2] == "" && m[4] == "" && a < b && b-a < maxExpand:
		out := make([]string, 0, b-a+1)
		for i := a; i <= b; i++ {
			out = append(out, strconv.Itoa(i))
		}
		return out
	case m[2] != "" && m[4] != "" && a == b && m[2][0] < m[4][0]:
		// Inserted sections such as §§ 15e bis 15k: same number, consecutive letters.
		var out []string
		for c := m[2][0]; c <= m[4][0]; c++ {
			out = append(out, m[1]+string(c))
		}
		return out
	}
	return []string{first, last}
}

// skipSpace returns the offset of the first non-space rune at or after p. Non-breaking and thin
// spaces count as space because statutes use them between "§" and its number.
func skipSpace(text string, p int) int {
	for p < len(text) {
		r, n := utf8.DecodeRuneInString(text[p:])
		if !unicode.IsSpace(r) && r != '\u00a0' && r != '\u202f' {
			break
		}
		p += n
	}
	return p
}

// runeAt returns the rune at byte offset p, or 0 past the end.
func runeAt(text string, p int) rune {
	if p < 0 || p >= len(text) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(text[p:])
	return r
}

// runeBefore returns the rune ending at byte offset p, or 0 at the start.
func runeBefore(text string, p int) rune {
	if p <= 0 {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(text[:p])
	return r
}

// isWordRune reports letters and digits, the runes that glue tokens into one word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// prevNonSpace returns the last non-space rune before p, or 0.
func prevNonSpace(text string, p int) rune {
	for p > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:p])
		if !unicode.IsSpace(r) {
			return r
		}
		p -= n
	}
	return 0
}

// nextNonSpace returns the first non-space rune at or after p, or 0.
func nextNonSpace(text string, p int) rune {
	return runeAt(text, skipSpace(text, p))
}

// lineStart returns the offset of the first byte of the line holding p.
func lineStart(text string, p int) int {
	return strings.LastIndexByte(text[:p], '\n') + 1
}

// lineOf returns the whole line holding p, without its newline.
func lineOf(text string, p int) string {
	s := lineStart(text, p)
	e := strings.IndexByte(text[p:], '\n')
	if e < 0 {
		return text[s:]
	}
	return text[s : p+e]
}

// matchAt matches re (which must start with ^) at offset p and returns the submatch offsets
// shifted to text coordinates, or nil.
func matchAt(re *regexp.Regexp, text string, p int) []int {
	m := re.FindStringSubmatchIndex(text[p:])
	if m == nil {
		return nil
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += p
		}
	}
	return m
}

// Package citation reads the numbered citations of a research report: "[3]", a list
// "[2, 5]" and a range "[4–6]" (en dash or hyphen). The research graph checks and rewrites
// them; the workbench lets the analyst step through them. It is a leaf package so that
// front ends and agents can share it without importing each other.
package citation

import (
	"regexp"
	"strconv"
	"strings"
)

// maxRange is the widest range that is expanded; a wider one, like a backwards one, stands
// for its first number only, so that a typo such as [1–1000] cannot flood a caller.
const maxRange = 50

// pattern matches one citation: a bracket of numbers separated by commas, en dashes or hyphens.
var pattern = regexp.MustCompile(`\[(\d+(?:\s*[,–-]\s*\d+)*)\]`)

// Contains reports whether text holds at least one citation. A citation whose numbers cannot
// be read (one too large for an int) still counts.
func Contains(text string) bool {
	return pattern.MatchString(text)
}

// Numbers returns the numbers cited in text, in order, ranges expanded, repeats kept. It does
// not check that a number names a source: [0] gives 0.
func Numbers(text string) []int {
	var out []int
	for _, m := range pattern.FindAllStringSubmatch(text, -1) {
		out = append(out, expand(m[1])...)
	}
	return out
}

// Locate returns where the citations of text are, as [start, end) byte offsets of the whole
// bracket: a document writer links each where it stands.
func Locate(text string) [][2]int {
	var out [][2]int
	for _, m := range pattern.FindAllStringIndex(text, -1) {
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

// Rewrite replaces each citation of text with what f returns for its numbers (ranges
// expanded); f returning "" removes the citation.
func Rewrite(text string, f func(numbers []int) string) string {
	return pattern.ReplaceAllStringFunc(text, func(m string) string {
		return f(expand(m[1 : len(m)-1]))
	})
}

// expand reads the inside of one citation: "1, 3" gives 1 and 3, "2–4" gives 2, 3 and 4. A
// part that is not a number is passed over.
func expand(list string) []int {
	var out []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.ReplaceAll(strings.TrimSpace(part), "–", "-"), "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if x, err := strconv.Atoi(strings.TrimSpace(hi)); err == nil && x >= a && x-a < maxRange {
				b = x
			}
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	return out
}

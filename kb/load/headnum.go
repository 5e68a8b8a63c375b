package load

import (
	"strconv"
	"strings"
)

// headingNumbers keeps the running numbers of automatically numbered headings, as a word
// processor shows them but does not store them: Word's numbering definitions and
// OpenDocument's outline style only say how to count.
type headingNumbers struct {
	counts [9]int
}

// numberLevel is how one outline level is counted and shown.
type numberLevel struct {
	format string // decimal, lowerLetter, upperRoman, … (Word's names); none or bullet shows nothing
	start  int
	// text is Word's level text ("%1.%2."): %N stands for level N's number. Empty when the
	// number shows the levels from shown up to this one, as OpenDocument's display-levels does.
	text  string
	shown int
}

// next counts a heading at level (0-based) and returns its number as shown, without the
// trailing dot ("2.1"), or "" when the level is not numbered.
func (h *headingNumbers) next(level int, levels map[int]numberLevel) string {
	if level < 0 || level >= len(h.counts) {
		return ""
	}
	lv, ok := levels[level]
	if !ok || lv.format == "" || lv.format == "none" || lv.format == "bullet" {
		return ""
	}
	if h.counts[level] == 0 {
		h.counts[level] = max(lv.start, 0)
	} else {
		h.counts[level]++
	}
	for i := level + 1; i < len(h.counts); i++ {
		h.counts[i] = 0 // a deeper level starts over under each heading
	}
	shown := func(l int) string {
		n := h.counts[l]
		if n == 0 { // a level skipped above this heading counts as its start
			n = max(levels[l].start, 1)
		}
		return formatNumber(n, levels[l].format)
	}
	var label string
	if lv.text != "" {
		var b strings.Builder
		for i := 0; i < len(lv.text); i++ {
			if lv.text[i] == '%' && i+1 < len(lv.text) && lv.text[i+1] >= '1' && lv.text[i+1] <= '9' {
				b.WriteString(shown(int(lv.text[i+1] - '1')))
				i++
				continue
			}
			b.WriteByte(lv.text[i])
		}
		label = b.String()
	} else {
		var parts []string
		for l := max(level-max(lv.shown, 1)+1, 0); l <= level; l++ {
			parts = append(parts, shown(l))
		}
		label = strings.Join(parts, ".")
	}
	return strings.TrimRight(strings.TrimSpace(label), ".)")
}

// formatNumber writes n in a numbering format, by Word's or OpenDocument's name for it.
func formatNumber(n int, format string) string {
	switch format {
	case "lowerLetter", "a":
		return letters(n, 'a')
	case "upperLetter", "A":
		return letters(n, 'A')
	case "lowerRoman", "i":
		return strings.ToLower(roman(n))
	case "upperRoman", "I":
		return roman(n)
	case "decimalZero":
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
	}
	return strconv.Itoa(n)
}

// letters is a, b, … z, aa, bb, … as word processors count with letters.
func letters(n int, first byte) string {
	if n < 1 {
		return strconv.Itoa(n)
	}
	return strings.Repeat(string(rune(first)+rune((n-1)%26)), (n-1)/26+1)
}

func roman(n int) string {
	if n < 1 || n > 3999 {
		return strconv.Itoa(n)
	}
	var b strings.Builder
	for _, p := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= p.v {
			b.WriteString(p.s)
			n -= p.v
		}
	}
	return b.String()
}

// withNumber puts a heading's number in front of its text, unless the text starts with it
// already (a document numbered by hand and by its style).
func withNumber(number, text string) string {
	t := strings.TrimSpace(text)
	if number == "" || strings.HasPrefix(t, number) {
		return text
	}
	return number + " " + t
}

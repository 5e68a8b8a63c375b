// Package delimiter guesses the separator of a delimited text file: spreadsheet exports use a
// comma, a semicolon or a tab depending on the locale. The gas table's import and the
// knowledge base's CSV loader read the same files, so they guess alike.
package delimiter

// sniffBytes bounds the text looked at: the first line is what counts.
const sniffBytes = 64 << 10

// Sniff picks the separator (comma, semicolon or tab) that occurs most often, outside quotes,
// in the first non-empty line; a comma when there is none.
func Sniff(data []byte) rune {
	counts := map[rune]int{}
	inQuote, seen := false, false
scan:
	for _, c := range string(data[:min(len(data), sniffBytes)]) {
		switch {
		case c == '"':
			inQuote = !inQuote
		case (c == '\n' || c == '\r') && !inQuote:
			if seen {
				break scan
			}
		case !inQuote && (c == ',' || c == ';' || c == '\t'):
			counts[c]++
			seen = true
		case !inQuote && c != ' ':
			seen = true
		}
	}
	best := ','
	for _, c := range []rune{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best
}

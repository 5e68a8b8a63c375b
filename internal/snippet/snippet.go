// Package snippet shortens text for a line of output or a prompt.
package snippet

import (
	"strings"
	"unicode/utf8"
)

// Cut folds the whitespace of text and cuts it to at most n bytes, at a word boundary when one
// lies in the second half (never inside a character), marking the cut with " …".
func Cut(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut-- // never inside a character
		}
	}
	return text[:cut] + " …"
}

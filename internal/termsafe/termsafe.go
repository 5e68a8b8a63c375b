// Package termsafe makes text that comes from outside warren (documents, file names, model
// output, what other analysts typed) safe to show on a terminal: nothing in it can move the
// cursor, change colours, set the window title or write the clipboard (OSC 52), whether it is
// printed by the CLI or drawn by the workbench, locally or over SSH.
//
// The policy is removal: escape sequences are removed whole, other control characters one by
// one; nothing is shown in their place. Precisely:
//
//   - CSI (ESC [ or 0x9B) with its parameter and intermediate bytes and its final byte;
//   - OSC (ESC ] or 0x9D), DCS (ESC P or 0x90), SOS (ESC X or 0x98), PM (ESC ^ or 0x9E) and
//     APC (ESC _ or 0x9F) with their payload up to the terminator: BEL, ST (ESC \ or 0x9C) or
//     the next ESC. Without a terminator only the introducer is removed and the payload stays
//     as text, so a stray introducer never hides the rest of a document;
//   - the other ESC sequences (ESC, intermediate bytes 0x20–0x2F, a final byte 0x30–0x7E);
//   - C0 controls except newline and tab, DEL, and C1 controls (U+0080–U+009F), also as raw
//     bytes that are not part of valid UTF-8, which an 8-bit terminal would read as C1;
//   - the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which can
//     make a file name read backwards.
//
// A carriage return ends a line: CR LF and a lone CR become LF. Other invalid UTF-8 becomes
// U+FFFD. Text that needs none of this is returned as it is, without allocating.
package termsafe

import (
	"io"
	"strings"
	"unicode/utf8"
)

// LineBreak is what Line shows in place of a line break.
const LineBreak = "⏎"

// Text is s made safe to display: escape sequences and control characters are removed (see
// the package documentation); newlines and tabs stay.
func Text(s string) string { return clean(s, false, false) }

// Line is s made safe to display on one line, as a file name, a title or a table cell: as
// Text, and line breaks (LF, CR, CR LF, U+2028, U+2029) show as ⏎ and tabs as a space, so a
// value never breaks a table's rows or columns.
func Line(s string) string { return clean(s, true, false) }

// Styled is Text for a frame that warren drew itself: it keeps SGR sequences (ESC [ digits,
// ';' and ':' m), warren's own colours, and removes everything else. It is the last line of
// defence in front of the terminal; it cannot tell a document's colours from warren's, so text
// from outside warren still goes through Text or Line before it is styled.
func Styled(s string) string { return clean(s, false, true) }

func clean(s string, line, sgr bool) string {
	i := firstUnsafe(s, line, sgr)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	lineBreak := func() {
		if line {
			b.WriteString(LineBreak)
		} else {
			b.WriteByte('\n')
		}
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0x1b:
				end := skipEscape(s, i)
				if sgr && isSGR(s[i:end]) {
					b.WriteString(s[i:end])
				}
				i = end
				continue
			case c == '\n':
				lineBreak()
			case c == '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++ // CR LF is one break
				}
				lineBreak()
			case c == '\t' && line:
				b.WriteByte(' ')
			case c == '\t' || c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if c <= 0x9f { // a raw C1 byte, as an 8-bit terminal reads it
				i = skipC1(s, i+1, rune(c))
				continue
			}
			b.WriteString(string(utf8.RuneError))
		case r <= 0x9f:
			i = skipC1(s, i+n, r)
			continue
		case isBidi(r):
		case line && (r == '\u2028' || r == '\u2029'):
			b.WriteString(LineBreak)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte that clean must change, or len(s).
func firstUnsafe(s string, line, sgr bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b && sgr {
			end := skipEscape(s, i)
			if !isSGR(s[i:end]) {
				return i
			}
			i = end
			continue
		}
		if c < utf8.RuneSelf {
			if c < 0x20 && (line || c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r <= 0x9f || isBidi(r) || line && (r == '\u2028' || r == '\u2029') {
			return i
		}
		i += n
	}
	return len(s)
}

// isSGR reports whether seq, a whole escape sequence, selects graphic rendition (colours,
// bold, reverse…) and nothing else.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[0] != 0x1b || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for i := 2; i < len(seq)-1; i++ {
		if c := seq[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// isBidi reports the bidi embeddings, overrides and isolates.
func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// skipEscape returns where the escape sequence that starts with the ESC at s[i] ends.
func skipEscape(s string, i int) int {
	j := i + 1
	if j == len(s) {
		return j
	}
	switch c := s[j]; {
	case c == '[':
		return skipCSI(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, j+1)
	case c >= 0x20 && c <= 0x2f: // intermediate bytes, then the final byte
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	case c >= 0x30 && c <= 0x7e:
		return j + 1
	}
	return j // ESC before a control or a non-ASCII character: only the ESC goes
}

// skipC1 returns where the sequence that the C1 control r introduces ends; j follows r.
func skipC1(s string, j int, r rune) int {
	switch r {
	case 0x9b:
		return skipCSI(s, j)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
		return skipString(s, j)
	}
	return j
}

// skipCSI returns where a control sequence whose parameters start at s[j] ends: after its
// final byte, or at the first byte that cannot be part of it.
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}

// skipString returns where a control string whose payload starts at s[j] ends: after BEL or
// ST, or at the next ESC (a terminal ends the string there too). Without any of them only the
// introducer goes: it returns j.
func skipString(s string, j int) int {
	for k := j; k < len(s); {
		c := s[k]
		switch {
		case c == 0x07:
			return k + 1
		case c == 0x1b:
			if k+1 < len(s) && s[k+1] == '\\' {
				return k + 2
			}
			return k
		case c < utf8.RuneSelf:
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[k:])
		if r == 0x9c || r == utf8.RuneError && n == 1 && c == 0x9c {
			return k + n
		}
		k += n
	}
	return j
}

// Writer passes what is written to it through Text. Each Write is cleaned on its own (fmt's
// Fprint functions write once per call), except that a UTF-8 character cut at the end of a
// Write waits for the next one; an escape sequence split between two Writes loses its
// introducer and shows its rest as text, which is safe. Call Flush when done.
type Writer struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 character cut at the end of the last Write
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap is the writer the Writer writes to.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write writes Text(p) to the underlying writer; it reports all of p written when that
// succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(w.pending) > 0 {
		p = append(w.pending, p...)
		w.pending = nil
	}
	if cut := cutRune(p); cut < len(p) {
		w.pending = append([]byte(nil), p[cut:]...)
		p = p[:cut]
	}
	if len(p) == 0 {
		return n, nil
	}
	if _, err := io.WriteString(w.w, Text(string(p))); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes what a Write left waiting (an incomplete character, shown as U+FFFD).
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	p := w.pending
	w.pending = nil
	_, err := io.WriteString(w.w, Text(string(p)))
	return err
}

// cutRune is where an incomplete UTF-8 character at the end of p starts, or len(p).
func cutRune(p []byte) int {
	for k := len(p) - 1; k >= 0 && k >= len(p)-utf8.UTFMax+1; k-- {
		if utf8.RuneStart(p[k]) {
			if p[k] >= 0xc0 && !utf8.FullRune(p[k:]) {
				return k
			}
			break
		}
	}
	return len(p)
}

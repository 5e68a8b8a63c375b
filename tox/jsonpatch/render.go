package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// DefaultContext is the number of unchanged lines Render shows around each change.
const DefaultContext = 3

// Pretty renders a JSON document with sorted object keys and a two-space indent. Empty input
// (only whitespace) renders as "".
func Pretty(doc []byte) (string, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return "", nil
	}
	v, err := decode(doc)
	if err != nil {
		return "", fmt.Errorf("jsonpatch: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("jsonpatch: %w", err)
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// LineKind marks a line of a diff.
type LineKind byte

const (
	Context LineKind = ' '
	Removed LineKind = '-'
	Added   LineKind = '+'
)

// Line is one line of a line diff. Old and New are 1-based line numbers in the pretty-printed
// before and after documents, 0 where the line does not exist on that side.
type Line struct {
	Kind     LineKind
	Text     string
	Old, New int
}

// Hunk is a run of changes with its surrounding context, as in a unified diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Header is the unified-diff hunk header, e.g. "@@ -3,7 +3,7 @@".
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", span(h.OldStart, h.OldLines), span(h.NewStart, h.NewLines))
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// Hunks computes the line diff of the two documents pretty-printed by Pretty (Myers' algorithm,
// from go-udiff), grouped into hunks with context unchanged lines around changes; hunks closer
// than 2*context lines merge, and removals come before additions within a changed block. Equal
// documents give no hunks. Either document may be empty (a profile created or deleted).
func Hunks(before, after []byte, context int) ([]Hunk, error) {
	a, err := Pretty(before)
	if err != nil {
		return nil, err
	}
	b, err := Pretty(after)
	if err != nil {
		return nil, err
	}
	if a != "" {
		a += "\n"
	}
	if b != "" {
		b += "\n"
	}
	u, err := udiff.ToUnifiedDiff("", "", a, udiff.Lines(a, b), max(context, 0))
	if err != nil {
		return nil, fmt.Errorf("jsonpatch: %w", err)
	}
	hunks := make([]Hunk, len(u.Hunks))
	shift := 0 // lines added less lines removed by the hunks so far
	for i, uh := range u.Hunks {
		// A hunk's new start follows from its old start and the hunks before it. (Hunk.ToLine
		// is not used: go-udiff, like x/tools/internal/diff it copies (golang/go#81453), leaves it
		// short after a hunk that joined nearby edits.)
		oldNo, newNo := uh.FromLine, uh.FromLine+shift
		h := Hunk{OldStart: oldNo, NewStart: newNo, Lines: make([]Line, len(uh.Lines))}
		for j, l := range uh.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				h.Lines[j] = Line{Removed, text, oldNo, 0}
				oldNo++
			case udiff.Insert:
				h.Lines[j] = Line{Added, text, 0, newNo}
				newNo++
			default:
				h.Lines[j] = Line{Context, text, oldNo, newNo}
				oldNo, newNo = oldNo+1, newNo+1
			}
		}
		h.OldLines, h.NewLines = oldNo-h.OldStart, newNo-h.NewStart
		shift += h.NewLines - h.OldLines
		// A side with no lines in the hunk starts at the line before it (unified diff convention).
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		hunks[i] = h
	}
	return hunks, nil
}

// Render returns a unified line diff of the two documents pretty-printed with sorted keys:
// "@@" hunk headers, then lines prefixed "-" (removed), "+" (added) or " " (context), with
// DefaultContext lines of context and no colours. Lines longer than width runes are cut and end
// in "…" (width <= 0: no limit). Equal documents render as "".
func Render(before, after []byte, width int) (string, error) {
	hunks, err := Hunks(before, after, DefaultContext)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, h := range hunks {
		b.WriteString(fit(h.Header(), width))
		b.WriteByte('\n')
		for _, l := range h.Lines {
			b.WriteString(fit(string(l.Kind)+l.Text, width))
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// fit cuts s to width runes, marking the cut with "…".
func fit(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max(width-1, 0)]), " ") + "…"
}

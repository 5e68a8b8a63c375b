package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultContext is the number of unchanged lines Render shows around each change.
const DefaultContext = 3

// maxDiffCells bounds the line-diff table (changed lines before × after); beyond it the changed
// region is shown as all removed then all added, which is still correct, just less precise.
const maxDiffCells = 4_000_000

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

// Hunks computes the line diff of the two documents pretty-printed by Pretty, grouped into hunks
// with context unchanged lines around changes. Equal documents give no hunks. Either document
// may be empty (a profile created or deleted).
func Hunks(before, after []byte, context int) ([]Hunk, error) {
	a, err := Pretty(before)
	if err != nil {
		return nil, err
	}
	b, err := Pretty(after)
	if err != nil {
		return nil, err
	}
	return group(diffLines(splitLines(a), splitLines(b)), max(context, 0)), nil
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

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines returns the edit script from a to b: a longest common subsequence of lines, removals
// before additions within a changed block.
func diffLines(a, b []string) []Line {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []Line
	for i := 0; i < pre; i++ {
		out = append(out, Line{Context, a[i], i + 1, i + 1})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(am), len(bm)
	oldNo, newNo := pre+1, pre+1
	if n*m > maxDiffCells || n == 0 || m == 0 {
		for _, t := range am {
			out = append(out, Line{Removed, t, oldNo, 0})
			oldNo++
		}
		for _, t := range bm {
			out = append(out, Line{Added, t, 0, newNo})
			newNo++
		}
	} else {
		// lcs[i*(m+1)+j] = length of the LCS of am[i:] and bm[j:].
		lcs := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
				} else {
					lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				out = append(out, Line{Context, am[i], oldNo, newNo})
				i, j, oldNo, newNo = i+1, j+1, oldNo+1, newNo+1
			case j == m || (i < n && lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]):
				out = append(out, Line{Removed, am[i], oldNo, 0})
				i, oldNo = i+1, oldNo+1
			default:
				out = append(out, Line{Added, bm[j], 0, newNo})
				j, newNo = j+1, newNo+1
			}
		}
	}
	for k := 0; k < suf; k++ {
		out = append(out, Line{Context, a[len(a)-suf+k], oldNo, newNo})
		oldNo, newNo = oldNo+1, newNo+1
	}
	return out
}

// group cuts an edit script into hunks with ctx context lines; hunks closer than 2*ctx merge.
func group(lines []Line, ctx int) []Hunk {
	var hunks []Hunk
	i := 0
	for i < len(lines) {
		if lines[i].Kind == Context {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i // exclusive end of the changed region so far
		for end < len(lines) {
			if lines[end].Kind != Context {
				end++
				continue
			}
			// a run of context: does another change follow within 2*ctx lines?
			k := end
			for k < len(lines) && lines[k].Kind == Context {
				k++
			}
			if k < len(lines) && k-end <= 2*ctx {
				end = k
				continue
			}
			break
		}
		stop := min(end+ctx, len(lines))
		hunks = append(hunks, makeHunk(lines[start:stop], lines, start))
		i = stop
	}
	return hunks
}

func makeHunk(ls []Line, all []Line, start int) Hunk {
	h := Hunk{Lines: ls}
	for _, l := range ls {
		if l.Kind != Added {
			h.OldLines++
			if h.OldStart == 0 {
				h.OldStart = l.Old
			}
		}
		if l.Kind != Removed {
			h.NewLines++
			if h.NewStart == 0 {
				h.NewStart = l.New
			}
		}
	}
	// A side with no lines in the hunk starts at the line before it (unified diff convention).
	if h.OldLines == 0 || h.NewLines == 0 {
		prevOld, prevNew := 0, 0
		for _, l := range all[:start] {
			if l.Old > 0 {
				prevOld = l.Old
			}
			if l.New > 0 {
				prevNew = l.New
			}
		}
		if h.OldLines == 0 {
			h.OldStart = prevOld
		}
		if h.NewLines == 0 {
			h.NewStart = prevNew
		}
	}
	return h
}

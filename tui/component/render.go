package component

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/internal/termsafe"
	"warren/tui/styles"
)

// Text from outside warren (documents, passages, file names, model output, job and run names,
// table values, what other analysts typed) goes through Safe or SafeLine before it is styled
// or rendered: no escape sequence or control character in it reaches the terminal, and a
// one-line value stays on its line. The root passes the whole frame through termsafe.Styled as
// well, which keeps warren's own colours and removes anything else that a place drawing
// outside text without these might have let through.

// Safe is outside text with its line breaks, such as a passage or a report.
func Safe(s string) string { return termsafe.Text(s) }

// SafeLine is an outside value shown on one line: a name, a title, a cell.
func SafeLine(s string) string { return termsafe.Line(s) }

// OneLine puts a value on one line: sheet text that didn't validate is kept as written, line
// breaks of the spreadsheet cell included, and a break would split a grid's row in two. It
// makes the value safe as well (see Safe): it is how outside text is put on a line.
func OneLine(s string) string { return strings.Join(strings.Fields(Safe(s)), " ") }

// OrNone is an outside value on one line (SafeLine), or "(none)" for an empty one.
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return SafeLine(s)
}

// Truncate cuts a styled line to width cells.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// Bar draws used/limit as a labelled bar; limit 0 means unlimited.
func Bar(st *styles.Styles, label string, used, limit, width int) string {
	if limit <= 0 {
		return fmt.Sprintf("%-10s %d (no limit)", label, used)
	}
	w := max(width-30, 10)
	filled := min(w, w*used/limit)
	return fmt.Sprintf("%-10s %s%s %d/%d", label, st.BarFull.Render(strings.Repeat("█", filled)),
		st.BarEmpty.Render(strings.Repeat("░", w-filled)), used, limit)
}

// Wrap soft-wraps plain text to width.
func Wrap(s string, width int) string {
	return lipgloss.NewStyle().Width(max(width, 10)).Render(s)
}

// LineCount is the number of lines of s.
func LineCount(s string) int { return strings.Count(s, "\n") + 1 }

// ListWindow draws the rows of a list of n around the cursor cur, at most room of them.
func ListWindow(n, cur, room int, row func(int) string, st *styles.Styles, width int) string {
	start := max(cur-room+1, 0)
	var lines []string
	for i := start; i < n && len(lines) < room; i++ {
		line := "  " + row(i)
		if i == cur {
			line = st.Selected.Render("▸ " + row(i))
		}
		lines = append(lines, Truncate(line, width))
	}
	return strings.Join(lines, "\n")
}

// Pad cuts or fills a styled string to exactly w cells.
func Pad(s string, w int) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

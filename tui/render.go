package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/tui/styles"
)

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// fit makes content exactly height lines of at most width cells: long lines are cut, missing
// lines are blank, extra lines are dropped.
func fit(content string, width, height int) string {
	lines := strings.Split(content, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		lines[i] = truncate(l, width)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// bar draws used/limit as a labelled bar; limit 0 means unlimited.
func bar(st *styles.Styles, label string, used, limit, width int) string {
	if limit <= 0 {
		return fmt.Sprintf("%-10s %d (no limit)", label, used)
	}
	w := max(width-30, 10)
	filled := min(w, w*used/limit)
	return fmt.Sprintf("%-10s %s%s %d/%d", label, st.BarFull.Render(strings.Repeat("█", filled)),
		st.BarEmpty.Render(strings.Repeat("░", w-filled)), used, limit)
}

// wrap soft-wraps plain text to width.
func wrap(s string, width int) string {
	return lipgloss.NewStyle().Width(max(width, 10)).Render(s)
}

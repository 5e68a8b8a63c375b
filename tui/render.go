package tui

import (
	"strings"

	"warren/tui/component"
)

// Text from outside warren (documents, passages, file names, model output, job and run names,
// table values, what other analysts typed) goes through safe or safeLine before it is styled
// or rendered: no escape sequence or control character in it reaches the terminal, and a
// one-line value stays on its line. Render passes the whole frame through termsafe.Styled as
// well, which keeps warren's own colours and removes anything else that a place drawing
// outside text without these might have let through.

// safe is outside text with its line breaks, such as a passage or a report.
func safe(s string) string { return component.Safe(s) }

// safeLine is an outside value shown on one line: a name, a title, a cell.
func safeLine(s string) string { return component.SafeLine(s) }

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string { return component.Truncate(s, width) }

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

// wrap soft-wraps plain text to width.
func wrap(s string, width int) string { return component.Wrap(s, width) }

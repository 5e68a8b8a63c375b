package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/kb"
	"warren/service"
)

// copyText puts text on the clipboard through OSC 52, which the terminal (also at the far end
// of an SSH connection, and tmux with set-clipboard on) turns into a clipboard write. The text
// is made safe first (see safe): pasted into a terminal, escape sequences would drive it.
func copyText(text, what string) tea.Cmd {
	text = safe(text)
	return tea.Batch(tea.SetClipboard(text), setStatus(fmt.Sprintf("copied %s (%d characters) to the clipboard", what, len(text)), false))
}

// passageCitation is a passage as an analyst pastes it: where it comes from, then its text.
func passageCitation(c kb.Chunk) string {
	where := c.Doc
	if c.Section != "" {
		where += " § " + c.Section
	}
	if c.Heading != "" {
		where += " — " + c.Heading
	}
	return fmt.Sprintf("%s (collection %s, chunk %s)\n\n%s\n", where, c.Collection, c.ID, strings.TrimSpace(c.Text))
}

// copyFromReport copies the selected citation's source, or the whole report as Markdown when
// no citation is selected.
func (r *researchTab) copyFromReport() tea.Cmd {
	if r.state == nil || r.state.Report == "" {
		return setStatus("no report to copy yet", false)
	}
	if n := r.report.selected(); n > 0 {
		for _, src := range r.state.Sources {
			if src.N == n {
				text := fmt.Sprintf("[%d] %s", n, src.Doc)
				if src.Section != "" {
					text += " § " + src.Section
				}
				text += fmt.Sprintf(" (collection %s, chunk %s): %s\n", src.Collection, src.ChunkID, strings.TrimSpace(src.Excerpt))
				return copyText(text, fmt.Sprintf("citation [%d]", n))
			}
		}
	}
	return copyText(service.ResearchReport(r.state), "the report as Markdown")
}

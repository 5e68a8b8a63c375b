package component

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/kb/chunk"
)

// CopyText puts text on the clipboard through OSC 52, which the terminal (also at the far end
// of an SSH connection, and tmux with set-clipboard on) turns into a clipboard write, and says
// so in the status line. The text is made safe first (see Safe): pasted into a terminal,
// escape sequences would drive it.
func CopyText(text, what string) tea.Cmd {
	text = Safe(text)
	return tea.Batch(tea.SetClipboard(text), SetStatus(fmt.Sprintf("copied %s (%d characters) to the clipboard", what, len(text)), false))
}

// PassageCitation is a passage as an analyst pastes it: where it comes from, then its text.
func PassageCitation(c chunk.Chunk) string {
	where := c.Doc
	if c.Section != "" {
		where += " § " + c.Section
	}
	if c.Heading != "" {
		where += " — " + c.Heading
	}
	return fmt.Sprintf("%s (collection %s, chunk %s)\n\n%s\n", where, c.Collection, c.ID, strings.TrimSpace(c.Text))
}

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

// PlaceSuffix is what follows a document's name in a citation: " § 4.1, p. 3", " § 7",
// " Slide 2", or " p. 3" for a page without a section; "" for neither.
func PlaceSuffix(section string, page chunk.PageRef) string {
	place := chunk.Place(section, page)
	switch {
	case place == "":
		return ""
	case section == "" || section[0] < '0' || section[0] > '9':
		// Only a bare number takes the sign: "§ 7", "Slide 2" and "Anhang I" name themselves.
		return " " + place
	}
	return " § " + place
}

// PassageCitation is a passage as an analyst pastes it: where it comes from, then its text.
func PassageCitation(c chunk.Chunk) string {
	where := c.Doc + PlaceSuffix(c.Section, c.PageRef())
	if c.Heading != "" {
		where += " — " + c.Heading
	}
	return fmt.Sprintf("%s (collection %s, chunk %s)\n\n%s\n", where, c.Collection, c.ID, strings.TrimSpace(c.Text))
}

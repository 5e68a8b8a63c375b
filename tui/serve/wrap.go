package serve

import (
	"strings"

	"charm.land/ssh"
	"github.com/charmbracelet/x/ansi"
)

// termWidth is the width of the analyst's terminal as the connection last reported it, 80
// when it reported none.
func termWidth(sess ssh.Session) int {
	if pty, _, ok := sess.Pty(); ok && pty.Window.Width > 0 {
		return pty.Window.Width
	}
	return 80
}

// wrapWords breaks text into lines of at most width cells at spaces, ending each with \r\n:
// a line written after the workbench ended is wrapped by the terminal mid-word otherwise.
func wrapWords(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && ansi.StringWidth(line)+1+ansi.StringWidth(w) > width-1 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	lines = append(lines, line)
	return strings.Join(lines, "\r\n")
}

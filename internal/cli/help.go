package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// SetHelp gives root and every command under it its description (Long) and examples (Example)
// from text, which keeps the help prose apart from the code: a line "## warren gas fill" starts
// the description of the command with that path, a line "### Example" its examples; each is
// taken as written, without the blank lines around it. Lines before the first "## " are not
// read. It returns the paths of the commands text has no entry for, and of the entries that
// name no command.
func SetHelp(root *cobra.Command, text string) (missing, orphaned []string) {
	entries := map[string]*[2]string{} // path → description, examples
	var cur *[2]string
	part := 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			cur, part = &[2]string{}, 0
			entries[strings.TrimSpace(line[3:])] = cur
		case line == "### Example" && cur != nil:
			part = 1
		case cur != nil:
			cur[part] += line + "\n"
		}
	}
	var set func(c *cobra.Command)
	set = func(c *cobra.Command) {
		if e, ok := entries[c.CommandPath()]; ok {
			c.Long, c.Example = strings.Trim(e[0], "\n"), strings.Trim(e[1], "\n")
			delete(entries, c.CommandPath())
		} else {
			missing = append(missing, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			set(sub)
		}
	}
	set(root)
	for path := range entries {
		orphaned = append(orphaned, path)
	}
	sort.Strings(orphaned)
	return missing, orphaned
}

package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// SetHelp gives root and every command under it its short line (Short), description (Long)
// and examples (Example) from text, which keeps the help prose apart from the code. A line
// "## warren gas fill" starts the entry of the command with that path; the line right under it,
// when not blank, is the short line; then comes the description, and after a line
// "### Example" the examples. Each is taken as written, without the blank lines around it;
// what an entry leaves out stays as the code set it. Lines before the first "## " are not
// read. SetHelp returns the paths of the commands text has no entry for, and of the entries
// that name no command.
func SetHelp(root *cobra.Command, text string) (missing, orphaned []string) {
	entries := map[string]*[3]string{} // path → short line, description, examples
	var cur *[3]string
	part := 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			cur, part = &[3]string{}, 0
			entries[strings.TrimSpace(line[3:])] = cur
		case line == "### Example" && cur != nil:
			part = 2
		case cur != nil && part == 0 && line != "":
			cur[0], part = line, 1
		case cur != nil:
			part = max(part, 1)
			cur[part] += line + "\n"
		}
	}
	var set func(c *cobra.Command)
	set = func(c *cobra.Command) {
		if e, ok := entries[c.CommandPath()]; ok {
			for i, field := range []*string{&c.Short, &c.Long, &c.Example} {
				if v := strings.Trim(e[i], "\n"); v != "" {
					*field = v
				}
			}
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

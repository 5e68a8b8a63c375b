package component

import (
	"fmt"

	"warren/service"
)

// NewsLine says in one line what other analysts changed: the latest change, and how many came
// with it.
func NewsLine(cs []service.Change) string {
	if len(cs) == 0 {
		return ""
	}
	line := cs[len(cs)-1].String()
	if n := len(cs) - 1; n > 0 {
		line += fmt.Sprintf(" (and %d more change(s))", n)
	}
	return line
}

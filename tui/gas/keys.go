package gas

import (
	"charm.land/bubbles/v2/key"

	"warren/service"
	"warren/tui/component"
)

// Keys are the Gas tab's bindings for what has the keyboard; a binding that can't be used on
// the cell under the cursor says why.
func (g *Model) Keys() component.KeyMap {
	switch {
	case g.mode == gasEdit:
		short := []key.Binding{component.Bind("enter", "check and save"), component.Bind("esc", "cancel the edit")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case g.mode == gasAsk:
		short := []key.Binding{component.Bind("enter", "ask the model"), component.Bind("esc", "cancel")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case g.mode == gasExpr:
		short := []key.Binding{component.Bind("enter", "run the expression"), component.Bind("esc", "keep the current query")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case g.table == nil:
		short := []key.Binding{component.Bind("r", "reload")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	}

	approve, reject := component.Bind("a", "approve"), component.Bind("x", "reject")
	if r, f, ok := g.current(); ok {
		c := r.Cells[f.Name]
		if service.GasCanApprove(f.Name, c) != nil {
			approve = component.Disabled("a", "approve (not a filled value)")
		}
		switch {
		case service.GasCanReject(f.Name, c) == nil:
		case f.Name == service.GasNameField:
			reject = component.Disabled("x", "reject (the row's name)")
		default:
			reject = component.Disabled("x", "reject (empty)")
		}
	} else {
		approve, reject = component.Disabled("a", "approve (no row shown)"), component.Disabled("x", "reject (no row shown)")
	}
	next := component.Bind("n/N", "next/previous flagged", "n", "N")
	if !g.hasFlagged() {
		next = component.Disabled("n/N", "flagged (none)")
	}
	fill := component.Bind("F", "fill empty cells")
	switch {
	case g.filling():
		fill = component.Disabled("F", "fill (one is running: esc cancels it)")
	case g.unfinished:
		fill = component.Bind("F", "resume the fill")
	case g.needFill == 0:
		fill = component.Disabled("F", "fill (no empty cells)")
	}
	review := []key.Binding{approve, component.Bind("e", "edit"), reject, fill, next, component.Bind("f", "flagged rows only"), component.Bind("/", "ask"),
		component.Bind("u", "undo"), component.Bind("A", "approve the row (high confidence)")}
	var short []key.Binding
	switch {
	case g.filling() && !g.running():
		short = append([]key.Binding{component.Bind("esc", "cancel the fill")}, review...)
	case g.running():
		short = append([]key.Binding{component.Bind("esc", "cancel the question")}, review...)
	case g.barFocus:
		short = []key.Binding{component.Bind("e/enter", "edit the expression", "e", "enter"), component.Bind("esc", "clear the query"), component.Bind("↓", "to the table", "down")}
	case g.query != nil:
		short = append([]key.Binding{component.Bind("esc", "clear the query"), component.Bind("enter", "edit the expression")}, review...)
	default:
		short = review
	}
	// The full help is the reference: every key, whether or not it applies to this cell.
	move := []key.Binding{component.Bind("↑/↓ j/k", "row", "up", "down", "j", "k"), component.Bind("←/→ h/l", "column", "left", "right", "h", "l"),
		component.Bind("pgup/pgdn", "page", "pgup", "pgdown"), component.Bind("g/G", "first/last row", "g", "G"), component.Bind("home/end", "first/last column", "home", "end"),
		component.Bind("t", "next table"), component.Bind("r", "reload")}
	decide := []key.Binding{component.Bind("a", "approve a filled/review cell"), component.Bind("e", "edit (esc cancels)"), component.Bind("x", "reject (empties it)"),
		component.Bind("A", "approve the row's cells ≥ 0.7"), component.Bind("u", "undo the last decision"),
		component.Bind("F", "fill empty cells / resume")}
	find := []key.Binding{component.Bind("n/N", "next/previous flagged"), component.Bind("f", "flagged rows only"), component.Bind("/", "ask in plain language"),
		component.Bind("enter", "edit the query"), component.Bind("esc", "cancel / clear the query")}
	return component.KeyMap{Short: short, Full: [][]key.Binding{move, decide, find}}
}

// hasFlagged reports whether any shown row has a cell to review.
func (g *Model) hasFlagged() bool {
	for _, i := range g.shown {
		if hasReview(g.table.Rows[i]) {
			return true
		}
	}
	return false
}

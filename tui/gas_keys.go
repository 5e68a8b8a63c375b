package tui

import "warren/service"

// Keys are the Gas tab's bindings for what has the keyboard; a binding that can't be used on
// the cell under the cursor says why.
func (g *gasTab) Keys() keyMap {
	switch {
	case g.mode == gasEdit:
		short := []keyBinding{bind("enter", "check and save"), bind("esc", "cancel the edit")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case g.mode == gasAsk:
		short := []keyBinding{bind("enter", "ask the model"), bind("esc", "cancel")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case g.mode == gasExpr:
		short := []keyBinding{bind("enter", "run the expression"), bind("esc", "keep the current query")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case g.table == nil:
		short := []keyBinding{bind("r", "reload")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	}

	approve, reject := bind("a", "approve"), bind("x", "reject")
	if r, f, ok := g.current(); ok {
		c := r.Cells[f.Name]
		if service.GasCanApprove(c) != nil {
			approve = disabled("a", "approve (not a filled value)")
		}
		switch {
		case service.GasCanReject(f.Name, c) == nil:
		case f.Name == service.GasNameField:
			reject = disabled("x", "reject (the row's name)")
		default:
			reject = disabled("x", "reject (empty)")
		}
	} else {
		approve, reject = disabled("a", "approve (no row shown)"), disabled("x", "reject (no row shown)")
	}
	next := bind("n/N", "next/previous flagged", "n", "N")
	if !g.hasFlagged() {
		next = disabled("n/N", "flagged (none)")
	}
	fill := bind("F", "fill empty cells")
	switch {
	case g.filling():
		fill = disabled("F", "fill (one is running: esc cancels it)")
	case g.unfinished:
		fill = bind("F", "resume the fill")
	case g.needFill == 0:
		fill = disabled("F", "fill (no empty cells)")
	}
	review := []keyBinding{approve, bind("e", "edit"), reject, fill, next, bind("f", "flagged rows only"), bind("/", "ask"),
		bind("u", "undo"), bind("A", "approve the row (high confidence)")}
	var short []keyBinding
	switch {
	case g.filling() && !g.running():
		short = append([]keyBinding{bind("esc", "cancel the fill")}, review...)
	case g.running():
		short = append([]keyBinding{bind("esc", "cancel the question")}, review...)
	case g.barFocus:
		short = []keyBinding{bind("e/enter", "edit the expression", "e", "enter"), bind("esc", "clear the query"), bind("↓", "to the table", "down")}
	case g.query != nil:
		short = append([]keyBinding{bind("esc", "clear the query"), bind("enter", "edit the expression")}, review...)
	default:
		short = review
	}
	// The full help is the reference: every key, whether or not it applies to this cell.
	move := []keyBinding{bind("↑/↓ j/k", "row", "up", "down", "j", "k"), bind("←/→ h/l", "column", "left", "right", "h", "l"),
		bind("pgup/pgdn", "page", "pgup", "pgdown"), bind("g/G", "first/last row", "g", "G"), bind("home/end", "first/last column", "home", "end"),
		bind("t", "next table"), bind("r", "reload")}
	decide := []keyBinding{bind("a", "approve a filled/review cell"), bind("e", "edit (esc cancels)"), bind("x", "reject (empties it)"),
		bind("A", "approve the row's cells ≥ 0.7"), bind("u", "undo the last decision"),
		bind("F", "fill empty cells / resume")}
	find := []keyBinding{bind("n/N", "next/previous flagged"), bind("f", "flagged rows only"), bind("/", "ask in plain language"),
		bind("enter", "edit the query"), bind("esc", "cancel / clear the query")}
	return keyMap{short: short, full: [][]keyBinding{move, decide, find}}
}

// hasFlagged reports whether any shown row has a cell to review.
func (g *gasTab) hasFlagged() bool {
	for _, i := range g.shown {
		if hasReview(g.table.Rows[i]) {
			return true
		}
	}
	return false
}

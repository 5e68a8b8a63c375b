package tui

import "fmt"

// Keys are the Toxicology tab's bindings for what has the keyboard; a binding that can't be
// used now says why.
func (x *toxTab) Keys() keyMap {
	switch {
	case x.running():
		short := []keyBinding{bind("esc", "cancel the proposal")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case x.input == toxFilter:
		short := []keyBinding{bind("enter", "keep the filter"), bind("esc", "close")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case x.input == toxComment:
		short := []keyBinding{bind("enter", "keep the comment"), bind("esc", "cancel")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case x.input == toxInstruction:
		short := []keyBinding{bind("ctrl+s", "propose"), bind("enter", "propose (one-line instruction) or new line"), bind("esc", "cancel")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case x.input == toxOps:
		short := []keyBinding{bind("ctrl+s", "check and propose again"), bind("esc", "keep the proposal as it was")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	case !x.loaded || len(x.profiles) == 0:
		short := []keyBinding{bind("r", "reload")}
		return keyMap{short: short, full: [][]keyBinding{short}}
	}

	full := x.fullKeys()
	var short []keyBinding
	switch x.view {
	case toxProposal:
		approve := bind("a", "approve")
		if x.proposal.Empty() {
			approve = disabled("a", "approve (changes nothing)")
		}
		if x.saving {
			approve = disabled("a", "approve (saving)")
		}
		short = []keyBinding{approve, bind("r", "reject"), bind("e", "edit the operations"), bind("c", "comment"), bind("↑/↓", "scroll", "up", "down")}
		if x.onWaiting() {
			short = []keyBinding{approve, bind("r", "reject"), bind("esc", "leave it waiting"), bind("w", "next waiting"),
				bind("e", "edit the operations"), bind("c", "comment"), bind("↑/↓", "scroll", "up", "down")}
		}
	case toxHistory:
		diff := bind("d", "diff the two")
		if len(x.marked) != 2 {
			diff = disabled("d", fmt.Sprintf("diff (%d of 2 selected)", len(x.marked)))
		}
		rollback := bind("R", "roll back to this version")
		if len(x.history) == 0 || x.hcur == 0 {
			rollback = disabled("R", "roll back (this is the latest)")
		}
		short = []keyBinding{bind("↑/↓", "version", "up", "down"), bind("space", "select", "space", " "), diff, rollback, bind("esc", "back")}
	case toxVersions:
		short = []keyBinding{bind("↑/↓", "scroll", "up", "down"), bind("esc", "back to the history")}
	case toxConfirm:
		short = []keyBinding{bind("y", "roll back"), bind("n/esc", "cancel", "n", "esc"), bind("↑/↓", "scroll", "up", "down")}
	default:
		edit := bind("i", "edit")
		if x.profile == nil {
			edit = disabled("i", "edit (no profile)")
		}
		move := bind("↑/↓", "profile", "up", "down")
		if x.onProf {
			move = bind("↑/↓", "scroll", "up", "down")
		}
		short = []keyBinding{move, edit, bind("h", "history"), bind("/", "filter")}
		if x.onProf {
			short = append(short, bind("←/esc", "to the list", "left", "esc"))
		} else {
			short = append(short, bind("enter", "to the profile"))
		}
		if w := x.waitingKeyBinding(); w.Enabled() {
			short = append(short[:1], append([]keyBinding{w}, short[1:]...)...) // up front, where it fits
		} else {
			short = append(short, w)
		}
	}
	return keyMap{short: short, full: full}
}

// fullKeys is the reference: every key of the desk, whether or not it applies now.
func (x *toxTab) fullKeys() [][]keyBinding {
	browse := []keyBinding{bind("↑/↓ j/k", "profile, or scroll it", "up", "down", "j", "k"), bind("enter/→", "to the profile", "enter", "right"),
		bind("←/esc", "to the list", "left", "esc"), bind("/", "filter by name"), bind("i", "edit (enter on the profile too)"),
		bind("h", "history"), bind("r", "reload")}
	proposal := []keyBinding{bind("ctrl+s", "propose (enter for one line)"), bind("esc", "cancel the proposal"), bind("a", "approve: save a version"),
		bind("r", "reject"), bind("e", "edit the operations"), bind("c", "comment (the summary)"),
		bind("w", "next waiting proposal")}
	history := []keyBinding{bind("space", "select a version", "space", " "), bind("d", "diff the two selected"),
		bind("R", "roll back (y/n, with the diff)"), bind("esc", "back")}
	return [][]keyBinding{browse, proposal, history}
}

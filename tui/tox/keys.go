package tox

import (
	"fmt"

	"charm.land/bubbles/v2/key"

	"warren/tui/component"
)

// Keys are the Toxicology tab's bindings for what has the keyboard; a binding that can't be
// used now says why.
func (x *Model) Keys() component.KeyMap {
	switch {
	case x.running():
		short := []key.Binding{component.Bind("esc", "cancel the proposal")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case x.input == toxFilter:
		short := []key.Binding{component.Bind("enter", "keep the filter"), component.Bind("esc", "close")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case x.input == toxComment:
		short := []key.Binding{component.Bind("enter", "keep the comment"), component.Bind("esc", "cancel")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case x.input == toxInstruction:
		short := []key.Binding{component.Bind("ctrl+s", "propose"), component.Bind("enter", "propose (one-line instruction) or new line"), component.Bind("esc", "cancel")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case x.input == toxOps:
		short := []key.Binding{component.Bind("ctrl+s", "check and propose again"), component.Bind("esc", "keep the proposal as it was")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	case !x.loaded || len(x.profiles) == 0:
		short := []key.Binding{component.Bind("r", "reload")}
		return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
	}

	full := x.fullKeys()
	var short []key.Binding
	switch x.view {
	case toxProposal:
		approve := component.Bind("a", "approve")
		if x.proposal.Empty() {
			approve = component.Disabled("a", "approve (changes nothing)")
		}
		if x.saving {
			approve = component.Disabled("a", "approve (saving)")
		}
		short = []key.Binding{approve, component.Bind("r", "reject"), component.Bind("e", "edit the operations"), component.Bind("c", "comment"), component.Bind("↑/↓", "scroll", "up", "down")}
		if x.onWaiting() {
			short = []key.Binding{approve, component.Bind("r", "reject"), component.Bind("esc", "leave it waiting"), component.Bind("w", "next waiting"),
				component.Bind("e", "edit the operations"), component.Bind("c", "comment"), component.Bind("↑/↓", "scroll", "up", "down")}
		}
	case toxHistory:
		diff := component.Bind("d", "diff the two")
		if len(x.marked) != 2 {
			diff = component.Disabled("d", fmt.Sprintf("diff (%d of 2 selected)", len(x.marked)))
		}
		rollback := component.Bind("R", "roll back to this version")
		if len(x.history) == 0 || x.hcur == 0 {
			rollback = component.Disabled("R", "roll back (this is the latest)")
		}
		short = []key.Binding{component.Bind("↑/↓", "version", "up", "down"), component.Bind("space", "select", "space", " "), diff, rollback, component.Bind("esc", "back")}
	case toxVersions:
		short = []key.Binding{component.Bind("↑/↓", "scroll", "up", "down"), component.Bind("esc", "back to the history")}
	case toxConfirm:
		short = []key.Binding{component.Bind("y", "roll back"), component.Bind("n/esc", "cancel", "n", "esc"), component.Bind("↑/↓", "scroll", "up", "down")}
	default:
		edit := component.Bind("i", "edit")
		if x.profile == nil {
			edit = component.Disabled("i", "edit (no profile)")
		}
		move := component.Bind("↑/↓", "profile", "up", "down")
		if x.onProf {
			move = component.Bind("↑/↓", "scroll", "up", "down")
		}
		short = []key.Binding{move, edit, component.Bind("h", "history"), component.Bind("/", "filter")}
		if x.onProf {
			short = append(short, component.Bind("←/esc", "to the list", "left", "esc"))
		} else {
			short = append(short, component.Bind("enter", "to the profile"))
		}
		if w := x.waitingKeyBinding(); w.Enabled() {
			short = append(short[:1], append([]key.Binding{w}, short[1:]...)...) // up front, where it fits
		} else {
			short = append(short, w)
		}
	}
	return component.KeyMap{Short: short, Full: full}
}

// fullKeys is the reference: every key of the desk, whether or not it applies now.
func (x *Model) fullKeys() [][]key.Binding {
	browse := []key.Binding{component.Bind("↑/↓ j/k", "profile, or scroll it", "up", "down", "j", "k"), component.Bind("enter/→", "to the profile", "enter", "right"),
		component.Bind("←/esc", "to the list", "left", "esc"), component.Bind("/", "filter by name"), component.Bind("i", "edit (enter on the profile too)"),
		component.Bind("h", "history"), component.Bind("r", "reload")}
	proposal := []key.Binding{component.Bind("ctrl+s", "propose (enter for one line)"), component.Bind("esc", "cancel the proposal"), component.Bind("a", "approve: save a version"),
		component.Bind("r", "reject"), component.Bind("e", "edit the operations"), component.Bind("c", "comment (the summary)"),
		component.Bind("w", "next waiting proposal")}
	history := []key.Binding{component.Bind("space", "select a version", "space", " "), component.Bind("d", "diff the two selected"),
		component.Bind("R", "roll back (y/n, with the diff)"), component.Bind("esc", "back")}
	return [][]key.Binding{browse, proposal, history}
}

package tox

import (
	"context"
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tox"
	"warren/tui/component"
)

// The waiting proposals of the Toxicology tab: those that `warren tox edit` without --yes or
// `warren tox batch` left, or a workbench closed before its decision. The list header counts
// them, the list marks their profiles, and w opens them one after the other in the proposal
// view, where a approves and r rejects them as any proposal; esc leaves one waiting.

// toxWaitingList is what the tab knows of the waiting proposals.
type toxWaitingList struct {
	items   []service.ToxWaitingEdit
	next    int    // the index w opens next
	run     string // the run of the waiting proposal on screen
	opening bool   // a proposal is being loaded
}

// Messages of the waiting proposals.
type (
	toxWaitingMsg struct {
		items []service.ToxWaitingEdit
		err   error
	}
	toxWaitingOpenMsg struct {
		w   service.ToxWaitingEdit
		p   *service.ToxProposal
		err error
	}
)

// loadWaiting lists the waiting proposals; it touches no state, so a command that has just
// decided a proposal can run it after the decision.
func loadWaiting(be Service) tea.Cmd {
	return func() tea.Msg {
		ws, err := be.Waiting(context.Background())
		return toxWaitingMsg{items: ws, err: err}
	}
}

// LoadWaiting refreshes the waiting proposals, which another analyst or the CLI may have
// added or decided meanwhile (the root calls it when the tab is shown).
func (x *Model) LoadWaiting() tea.Cmd { return loadWaiting(x.be) }

func (x *Model) waitingLoaded(msg toxWaitingMsg) tea.Cmd {
	if msg.err != nil {
		return component.SetStatus("couldn't list the waiting proposals: "+msg.err.Error(), true)
	}
	x.waiting.items = msg.items
	x.waiting.next = min(x.waiting.next, max(len(msg.items)-1, 0))
	return nil
}

// waitingCount is the number of waiting proposals for a profile.
func (x *Model) waitingCount(inci string) int {
	n := 0
	for _, w := range x.waiting.items {
		if tox.Key(w.INCI) == tox.Key(inci) {
			n++
		}
	}
	return n
}

// waitingItem is the listed waiting proposal of a run.
func (x *Model) waitingItem(run string) (service.ToxWaitingEdit, bool) {
	for _, w := range x.waiting.items {
		if w.Run == run {
			return w, true
		}
	}
	return service.ToxWaitingEdit{}, false
}

// onWaiting reports that the proposal on screen is a listed waiting one (not one just made in
// the tab): esc leaves it waiting instead of rejecting it.
func (x *Model) onWaiting() bool {
	if x.view != toxProposal || x.proposal == nil || x.proposal.ID == "" || x.proposal.ID != x.waiting.run {
		return false
	}
	_, ok := x.waitingItem(x.waiting.run)
	return ok
}

// openNextWaiting loads the next waiting proposal, in the order they were made, and shows it.
func (x *Model) openNextWaiting() tea.Cmd {
	n := len(x.waiting.items)
	switch {
	case n == 0:
		return component.SetStatus("no proposal waits: `warren tox edit` without --yes and `warren tox batch` leave theirs here", false)
	case x.waiting.opening:
		return component.SetStatus("opening the waiting proposal…", false)
	}
	i := x.waiting.next % n
	if x.onWaiting() && n > 1 && x.waiting.items[i].Run == x.waiting.run {
		i = (i + 1) % n // w on a waiting proposal goes on to another
	}
	w, be := x.waiting.items[i], x.be
	x.waiting.next, x.waiting.opening = (i+1)%n, true
	return func() tea.Msg {
		p, err := be.WaitingProposal(context.Background(), w.Run)
		return toxWaitingOpenMsg{w: w, p: p, err: err}
	}
}

func (x *Model) waitingOpened(msg toxWaitingOpenMsg) tea.Cmd {
	x.waiting.opening = false
	if msg.err != nil {
		if errors.Is(msg.err, service.ErrNotWaiting) {
			return tea.Batch(component.SetStatus("the proposal for "+msg.w.INCI+" was decided meanwhile: nothing to do", false), loadWaiting(x.be))
		}
		return component.SetStatus(msg.err.Error(), true)
	}
	if (x.view != toxBrowse && !x.onWaiting()) || x.input != toxNoInput || x.running() || x.saving {
		return nil // the analyst went on to something else meanwhile
	}
	x.proposal, x.comment, x.view, x.scroll = msg.p, "", toxProposal, 0
	x.waiting.run = msg.p.ID
	// The list follows the proposal, so the profile shown after the decision is its own.
	before := x.selected()
	x.selectINCI(msg.p.INCI)
	if x.selected() != before {
		return x.loadProfile()
	}
	return nil
}

// waitingKey handles the keys that differ on a waiting proposal: esc leaves it waiting, w goes
// on to the next one. It reports whether it took the key.
func (x *Model) waitingKey(k string) (tea.Cmd, bool) {
	if !x.onWaiting() {
		return nil, false
	}
	switch k {
	case "esc":
		inci := x.proposal.INCI
		x.proposal, x.comment, x.view, x.scroll, x.waiting.run = nil, "", toxBrowse, 0, ""
		return component.SetStatus("the proposal for "+inci+" still waits: w opens it again", false), true
	case "w":
		return x.openNextWaiting(), true
	}
	return nil, false
}

// waitingHead is the list header's line about the waiting proposals, "" when none waits.
func (x *Model) waitingHead() string {
	n := len(x.waiting.items)
	switch n {
	case 0:
		return ""
	case 1:
		return x.st.Unresolved.Render("● 1 proposal waits (w)")
	}
	return x.st.Unresolved.Render(fmt.Sprintf("● %d proposals wait (w)", n))
}

// waitingMark is the marker beside a profile in the list: "●" for one waiting proposal, "●3"
// for three; "" for none.
func (x *Model) waitingMark(inci string) string {
	switch n := x.waitingCount(inci); n {
	case 0:
		return ""
	case 1:
		return "●"
	default:
		return fmt.Sprintf("●%d", n)
	}
}

// waitingLine is the proposal view's line about where a waiting proposal came from.
func (x *Model) waitingLine() string {
	w, ok := x.waitingItem(x.waiting.run)
	if !x.onWaiting() || !ok {
		return ""
	}
	from := "run " + w.Run
	if w.BatchID != "" {
		from += " · batch " + w.BatchID
	}
	return x.st.Unresolved.Render("waiting") + x.st.Subtle.Render(" since "+w.Since.In(x.loc).Format(toxTimeFormat)+" · esc leaves it waiting · "+component.SafeLine(from))
}

// waitingKeyBinding is w in the browse view's help: enabled with the count, or why not.
func (x *Model) waitingKeyBinding() key.Binding {
	if n := len(x.waiting.items); n > 0 {
		return component.Bind("w", fmt.Sprintf("next waiting (%d)", n))
	}
	return component.Disabled("w", "waiting (none)")
}

package tox

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tox"
	"warren/tui/component"
)

// The decisions of the Toxicology tab: on a proposal (approve, reject, edit, comment), in the
// history (select, diff, roll back) and on a rollback's confirmation.

func (x *Model) proposalKey(k string) tea.Cmd {
	if cmd, ok := x.waitingKey(k); ok {
		return cmd
	}
	p := x.proposal
	switch k {
	case "up", "k":
		x.scroll = max(x.scroll-1, 0)
	case "down", "j":
		x.scroll++
	case "pgup":
		x.scroll = max(x.scroll-x.height/2, 0)
	case "pgdown":
		x.scroll += x.height / 2
	case "a":
		if p.Empty() {
			return component.SetStatus("nothing to approve: the proposal changes nothing (r discards it)", false)
		}
		return x.approve()
	case "r", "esc":
		be := x.be
		x.proposal, x.comment, x.view, x.scroll = nil, "", toxBrowse, 0
		return func() tea.Msg {
			// The edit run is closed as rejected, so it does not wait for approval forever.
			status := component.NewStatus("proposal for "+p.INCI+" rejected: nothing was saved", false)
			if err := be.Reject(context.Background(), p, "rejected in the Toxicology desk"); err != nil {
				status = component.NewStatus("proposal for "+p.INCI+" discarded, nothing was saved; its run could not be closed: "+err.Error(), true)
			}
			// The waiting proposals are listed again once the decision is recorded.
			return tea.BatchMsg{func() tea.Msg { return status }, loadWaiting(be)}
		}
	case "e":
		x.input, x.inputErr = toxOps, ""
		x.text.Placeholder = "JSON Patch operations (ctrl+s checks and proposes them)"
		x.text.SetValue(patchText(p))
		x.text.MoveToBegin()
		return x.text.Focus()
	case "c":
		x.input = toxComment
		x.line.Placeholder = "the version's summary"
		x.line.SetValue(x.comment)
		x.line.CursorEnd()
		return x.line.Focus()
	}
	return nil
}

func (x *Model) approve() tea.Cmd {
	p, be := x.proposal, x.be
	summary := x.comment
	if summary == "" {
		summary = p.Summary
	}
	x.saving = true
	return func() tea.Msg {
		v, err := be.Approve(context.Background(), p, summary)
		return toxSavedMsg{inci: p.INCI, version: v, err: err}
	}
}

func (x *Model) saved(msg toxSavedMsg) tea.Cmd {
	x.saving = false
	if msg.err != nil && msg.rollback > 0 && errors.Is(msg.err, tox.ErrStale) {
		// The history the rollback was asked from is out of date: show the new one.
		x.view, x.confirm = toxHistory, 0
		return tea.Batch(component.SetStatus("not rolled back: "+staleText(msg.err)+"; the history is refreshed — R asks again", true), x.Load(), x.loadHistory(msg.inci))
	}
	if msg.err != nil {
		if errors.Is(msg.err, tox.ErrStale) {
			// The proposal stays on screen: its operations can be edited (e) and proposed again.
			return tea.Batch(component.SetStatus("not saved: "+msg.err.Error()+" (the proposal is kept: e re-proposes its operations)", true), loadWaiting(x.be))
		}
		return tea.Batch(component.SetStatus("not saved: "+msg.err.Error(), true), loadWaiting(x.be))
	}
	var status string
	if msg.rollback > 0 {
		status = fmt.Sprintf("%s rolled back to version %d: saved as version %d", msg.inci, msg.rollback, msg.version)
		x.view, x.confirm = toxHistory, 0
		return tea.Batch(component.SetStatus(status, false), x.Load(), x.loadHistory(msg.inci))
	}
	status = fmt.Sprintf("%s saved as version %d", msg.inci, msg.version)
	x.proposal, x.comment, x.view, x.scroll = nil, "", toxBrowse, 0
	return tea.Batch(component.SetStatus(status, false), x.Load())
}

func (x *Model) historyKey(k string) tea.Cmd {
	switch k {
	case "up", "k":
		x.hcur = max(x.hcur-1, 0)
	case "down", "j":
		x.hcur = min(x.hcur+1, max(len(x.history)-1, 0))
	case "space", " ":
		if len(x.history) == 0 {
			return nil
		}
		v := x.history[x.hcur].Version
		for i, m := range x.marked {
			if m == v {
				x.marked = append(x.marked[:i], x.marked[i+1:]...)
				return nil
			}
		}
		x.marked = append(x.marked, v)
		if len(x.marked) > 2 {
			x.marked = x.marked[1:]
		}
	case "d":
		if len(x.marked) != 2 {
			return component.SetStatus("select two versions with space, then d shows their diff", false)
		}
		a, b := min(x.marked[0], x.marked[1]), max(x.marked[0], x.marked[1])
		return x.diffVersions(fmt.Sprintf("version %d → version %d", a, b), a, b, 0)
	case "R":
		if len(x.history) == 0 {
			return nil
		}
		to, latest := x.history[x.hcur].Version, x.history[0].Version
		if to == latest {
			return component.SetStatus(fmt.Sprintf("version %d is the latest: nothing to roll back", to), false)
		}
		x.confirmSeen = latest // the rollback is refused if another version is saved meanwhile
		return x.diffVersions(fmt.Sprintf("roll back: version %d (latest) → a new version equal to version %d", latest, to), latest, to, to)
	case "esc", "h":
		x.view, x.marked = toxBrowse, nil
	}
	return nil
}

// diffVersions loads two versions of the selected profile and shows their diff; confirm > 0
// asks for a rollback to that version.
func (x *Model) diffVersions(title string, a, b, confirm int) tea.Cmd {
	inci, be := x.selected(), x.be
	return func() tea.Msg {
		ctx := context.Background()
		va, err := be.Profile(ctx, inci, a)
		if err != nil {
			return toxDiffMsg{err: err}
		}
		vb, err := be.Profile(ctx, inci, b)
		if err != nil {
			return toxDiffMsg{err: err}
		}
		return toxDiffMsg{title: inci + ": " + title, before: va.Data, after: vb.Data, confirm: confirm}
	}
}

func (x *Model) versionsKey(k string) tea.Cmd {
	switch k {
	case "up", "k":
		x.scroll = max(x.scroll-1, 0)
	case "down", "j":
		x.scroll++
	case "esc", "q":
		x.view, x.scroll = toxHistory, 0
	}
	return nil
}

func (x *Model) confirmKey(k string) tea.Cmd {
	switch k {
	case "up", "k":
		x.scroll = max(x.scroll-1, 0)
	case "down", "j":
		x.scroll++
	case "y", "Y":
		inci, to, seen, be := x.selected(), x.confirm, x.confirmSeen, x.be
		x.saving = true
		return func() tea.Msg {
			v, err := be.Rollback(context.Background(), inci, to, seen, "")
			return toxSavedMsg{inci: inci, version: v, rollback: to, err: err}
		}
	case "n", "N", "esc":
		x.view, x.confirm, x.scroll = toxHistory, 0, 0
		return component.SetStatus("rollback cancelled: nothing was saved", false)
	}
	return nil
}

// Changed reloads the profile list, and the history or profile shown, when other analysts
// saved versions, and says who saved what; a proposal or rollback on screen is kept, and told
// that it is now out of date.
func (x *Model) Changed(cs []service.Change) tea.Cmd {
	var ours []service.Change
	touched := map[string]bool{}
	for _, c := range cs {
		if c.Kind == service.ChangeToxVersion {
			ours = append(ours, c)
			touched[tox.Key(c.INCI)] = true
		}
	}
	if len(ours) == 0 {
		return nil
	}
	text := component.NewsLine(ours)
	cmds := []tea.Cmd{x.Load()}
	sel := x.selected()
	switch {
	case x.view == toxProposal && x.proposal != nil && touched[tox.Key(x.proposal.INCI)]:
		text += fmt.Sprintf(" — this proposal is from version %d: approving it will be refused (e re-proposes its operations)", x.proposal.BaseVersion)
	case x.view == toxConfirm && touched[tox.Key(sel)]:
		text += " — this rollback was asked on an older version: y will be refused"
	case x.view == toxHistory && touched[tox.Key(sel)]:
		cmds = append(cmds, x.loadHistory(sel))
	}
	return tea.Batch(append(cmds, component.SetStatus(text, false))...)
}

// staleText says who saved the version that made a toxicology decision stale.
func staleText(err error) string {
	var stale *tox.StaleError
	if !errors.As(err, &stale) {
		return err.Error()
	}
	if stale.At.IsZero() {
		return fmt.Sprintf("%s is at version %d now", stale.INCI, stale.Latest)
	}
	return fmt.Sprintf("%s saved version %d of %s at %s", tox.AnalystName(stale.By), stale.Latest, stale.INCI, stale.At.Local().Format("15:04"))
}

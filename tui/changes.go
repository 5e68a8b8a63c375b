package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tox"
)

// Other analysts' decisions reach the workbench live: the backend's change feed is drained
// into the program through a queue like a job's events, and the Gas and Toxicology tabs
// reload what a change names and say who changed it.

// watchChanges subscribes to the backend's change feed until Close.
func (m *Model) watchChanges() tea.Cmd {
	if m.changes != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := newQueue[service.Change]()
	m.changes, m.stopChanges = q, cancel
	feed := m.be.Changes(ctx)
	go func() {
		for c := range feed {
			q.Push(c)
		}
		q.Close()
	}()
	return q.wait()
}

// Close ends the workbench's subscription to other analysts' changes; call it when the program
// has ended (warren serve: when the connection closes).
func (m *Model) Close() {
	if m.stopChanges != nil {
		m.stopChanges()
	}
	m.checks.Wait()
}

// changed hands a batch to the tabs that show what it names, and waits for the next.
func (m *Model) changed(msg changesMsg) tea.Cmd {
	cmds := []tea.Cmd{
		tagStatus(m.gas.changed(msg.items), gasTabIndex),
		tagStatus(m.tox.changed(msg.items), toxTabIndex),
	}
	if msg.more {
		cmds = append(cmds, msg.queue.wait())
	}
	return tea.Batch(cmds...)
}

// newsLine says in one line what other analysts changed: the latest change, and how many came
// with it.
func newsLine(cs []service.Change) string {
	if len(cs) == 0 {
		return ""
	}
	line := cs[len(cs)-1].String()
	if n := len(cs) - 1; n > 0 {
		line += fmt.Sprintf(" (and %d more change(s))", n)
	}
	return line
}

// changed reloads the table when other analysts changed it, keeping the cursor and an open
// editor (whose value, if its cell was among the changes, is refused on enter and can be sent
// again), and says who changed what.
func (g *gasTab) changed(cs []service.Change) tea.Cmd {
	if g.table == nil {
		return nil
	}
	var ours []service.Change
	for _, c := range cs {
		if c.Kind == service.ChangeGasCell && c.Table == g.table.Name {
			ours = append(ours, c)
		}
	}
	if len(ours) == 0 {
		return nil
	}
	return tea.Batch(g.load(g.table.Name, nil), setStatus(newsLine(ours), false))
}

// changed reloads the profile list, and the history or profile shown, when other analysts
// saved versions, and says who saved what; a proposal or rollback on screen is kept, and told
// that it is now out of date.
func (x *toxTab) changed(cs []service.Change) tea.Cmd {
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
	text := newsLine(ours)
	cmds := []tea.Cmd{x.load()}
	sel := x.selected()
	switch {
	case x.view == toxProposal && x.proposal != nil && touched[tox.Key(x.proposal.INCI)]:
		text += fmt.Sprintf(" — this proposal is from version %d: approving it will be refused (e re-proposes its operations)", x.proposal.BaseVersion)
	case x.view == toxConfirm && touched[tox.Key(sel)]:
		text += " — this rollback was asked on an older version: y will be refused"
	case x.view == toxHistory && touched[tox.Key(sel)]:
		cmds = append(cmds, x.loadHistory(sel))
	}
	return tea.Batch(append(cmds, setStatus(text, false))...)
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

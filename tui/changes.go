package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/component"
)

// Other analysts' decisions reach the workbench live: the backend's change feed is drained
// into the program through a queue like a job's events, and the Gas and Toxicology tabs
// reload what a change names and say who changed it. What the inbox of warren serve ingested
// or removed comes the same way: the Knowledge tab reloads and every tab says it on one line.

// watchChanges subscribes to the backend's change feed until Close.
func (m *Model) watchChanges() tea.Cmd {
	if m.changes != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := component.NewQueue[service.Change]()
	m.changes, m.stopChanges = q, cancel
	feed := m.desks.Team.Changes(ctx)
	go func() {
		for c := range feed {
			q.Push(c)
		}
		q.Close()
	}()
	return q.Wait()
}

// Close ends the workbench's subscription to other analysts' changes; call it when the program
// has ended (warren serve: when the connection closes).
func (m *Model) Close() {
	m.research.Close()
	if m.stopChanges != nil {
		m.stopChanges()
	}
	m.checks.Wait()
}

// changed hands a batch to the tabs that show what it names, and waits for the next.
func (m *Model) changed(msg changesMsg) tea.Cmd {
	cmds := []tea.Cmd{
		tagStatus(m.gas.Changed(msg.Items), gasTabIndex),
		tagStatus(m.tox.Changed(msg.Items), toxTabIndex),
		m.knowledge.Changed(msg.Items),
		m.inboxNotice(msg.Items),
	}
	if msg.More {
		cmds = append(cmds, msg.Queue.Wait())
	}
	return tea.Batch(cmds...)
}

// inboxNotice says on every tab, in one line, what the inbox did with the files of the
// collections this analyst may read (the service delivers no others); a file that could not
// be taken shows as a problem.
func (m *Model) inboxNotice(cs []service.Change) tea.Cmd {
	var ours []service.Change
	problem := false
	for _, c := range cs {
		if c.Kind == service.ChangeInbox {
			ours = append(ours, c)
			problem = problem || c.Action == service.InboxFailed || c.Action == service.InboxSkipped || c.Action == service.InboxRefused
		}
	}
	if len(ours) == 0 {
		return nil
	}
	// File names and reasons come from the server's folders: one line, no escapes.
	return m.setStatusNow(anyTab, safeLine(component.NewsLine(ours)), problem)
}

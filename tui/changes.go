package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/component"
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
	}
	if msg.More {
		cmds = append(cmds, msg.Queue.Wait())
	}
	return tea.Batch(cmds...)
}

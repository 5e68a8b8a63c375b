package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/tui"
)

// workbench opens the TUI on the workspace.
func (a *app) workbench() error { return a.openWorkbench(nil) }

// openWorkbench opens the TUI; setup, when given, checks the workspace and prepares the
// workbench (a tab, a table) before the first frame.
func (a *app) openWorkbench(setup func(ctx context.Context, e *env, m *tui.Model) error) error {
	e, err := a.open()
	if err != nil {
		return err
	}
	defer e.Close()
	m := tui.New(tui.DesksOf(e))
	defer m.Close()
	if setup != nil {
		if err := setup(context.Background(), e, m); err != nil {
			return err
		}
	}
	p := tea.NewProgram(m, tea.WithInput(os.Stdin), tea.WithOutput(os.Stdout))
	if n := a.reindexed; n > 0 {
		// The line on stderr goes under the workbench's screen: the status line and the Log
		// say it again. Send waits for the program to run.
		go p.Send(tui.NoticeMsg{Text: fmt.Sprintf("Re-indexed %d passages: the knowledge base was indexed by an older warren", n)})
	}
	_, err = p.Run()
	// Closing waits for the jobs quitting stopped; an ingest saving its index takes a while,
	// which the shell would otherwise spend silent.
	if stopping := m.Stopping(); len(stopping) > 0 {
		fmt.Fprintf(a.stderr, "Stopping %s, keeping what is done; ingest the same path again to go on.\n", strings.Join(stopping, " and "))
	}
	return err
}

package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// quitQuestion is shown instead of quitting when quitting now would interrupt work or lose
// text: it lists what, and waits for y (quit) or anything else (stay).
type quitQuestion struct {
	reasons []string
}

// requestQuit quits at once when nothing is at stake, else asks first.
func (m *Model) requestQuit() tea.Cmd {
	var reasons []string
	for i, p := range m.panels {
		for _, r := range p.Pending() {
			reasons = append(reasons, tabNames[i]+": "+r)
		}
	}
	for _, r := range m.adminView.Pending() {
		reasons = append(reasons, "Admin: "+r)
	}
	if len(reasons) == 0 {
		return tea.Quit
	}
	m.quitting = &quitQuestion{reasons: reasons}
	return nil
}

// quitKey answers the question: y or a second ctrl+c quits, anything else stays.
func (m *Model) quitKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "y", "Y", "ctrl+c":
		m.quitting = nil
		if !m.served { // served, the jobs are the server's and go on without this connection
			m.stopAll()
		}
		return tea.Quit
	}
	m.quitting = nil
	return tagStatus(setStatus("still here: nothing was stopped", false), m.statusTab())
}

// Stopping names the work that quitting stopped and that is still saving what it did (an
// ingest saves its index), for the terminal once the workbench is gone.
func (m *Model) Stopping() []string {
	var out []string
	if w := m.knowledge.Stopping(); w != "" {
		out = append(out, w)
	}
	return out
}

// stopAll cancels every job before quitting, so each ends at a consistent checkpoint.
func (m *Model) stopAll() {
	m.research.Interrupt()
	m.knowledge.StopIngest()
	m.gas.StopQuery()
	m.gas.StopFill()
	m.tox.StopPropose()
}

func (m *Model) quitView() string {
	var b strings.Builder
	b.WriteString(m.st.Title.Render("Quit warren?") + "\n\n")
	for _, r := range m.quitting.reasons {
		b.WriteString(wrap("• "+safeLine(r), min(m.width, 100)) + "\n") // a reason may name a run or a table
	}
	closing := "Saved runs stay resumable from sessions (ctrl+o); text in a field is lost. y quits, any other key stays."
	if m.served {
		closing = "Your jobs go on on the server; a question, answer, instruction or search you typed comes back when you connect again. y quits, any other key stays."
	}
	b.WriteString("\n" + wrap(closing, min(m.width, 100)))
	return b.String()
}

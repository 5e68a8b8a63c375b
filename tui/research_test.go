package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	researchpanel "warren/tui/research"
)

// blocking runs until it is cancelled, like a slow model.
type blocking struct{ fixture }

func (blocking) Start(ctx context.Context, run, q string, o service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	<-ctx.Done()
	return service.RunOutcome{Run: run, Status: service.RunCanceled}, nil, ctx.Err()
}

// drain runs a command and returns the messages it produced (batches flattened).
func drain(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, drain(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// The budget bars show the run's own budget, which it keeps across resumes, not the one
// configured today.
func TestBudgetBarsShowTheRunsOwnBudget(t *testing.T) {
	m := sized(120, 40)
	s := fixtureState()
	s.Budget = &service.RunBudget{Calls: 60, Tokens: 50000}
	m.research.SetUp(researchpanel.Fixture{Run: "20261121-101500-a1b2c3", View: "run", Status: "finished", State: s, Calls: 42, Tokens: 18120})
	out := string(screen(m))
	if !strings.Contains(out, "42/60") || !strings.Contains(out, "18120/50000") {
		t.Errorf("want the bars against the run's budget (42/60 calls, 18120/50000 tokens):\n%s", out)
	}
}

// A node that ends with an error is marked as stopped in the trail, not left "running", and
// the log names it once.
func TestAFailedNodeIsMarkedInTheTrail(t *testing.T) {
	m := New(desksOf(fixture{}, noTox{}))
	r := m.research
	r.SetSize(80, 24)
	r.SetUp(researchpanel.Fixture{Run: "r1", View: "run"})
	start := time.Now()
	r.Update(eventsMsg{Items: []service.RunEvent{
		{Run: "r1", Kind: service.EventNodeStarted, Node: "init", Time: start},
		{Run: "r1", Kind: service.EventNodeFinished, Node: "init", Duration: time.Millisecond, Summary: "nothing new"},
		{Run: "r1", Kind: service.EventNodeStarted, Node: "generate_queries", Time: start},
		{Run: "r1", Kind: service.EventError, Node: "generate_queries", Time: start.Add(3 * time.Second), Summary: "Ollama is not reachable"},
	}})
	m.log.AddEvents([]service.RunEvent{{Run: "r1", Kind: service.EventError, Node: "generate_queries", Time: start,
		Summary: "generate_queries: Ollama is not reachable"}})
	m.log.AddEvents([]service.RunEvent{{Run: "r1", Kind: service.EventError, Node: "row", Time: start, Summary: "row 1 (Silane): couldn't extract"},
		{Run: "r1", Kind: service.EventError, Node: "report", Time: start, Summary: "no passages"}})
	n := len(m.log.Lines())
	for i, want := range []string{"error   writing search queries: Ollama", "error   row 1 (Silane)", "error   report: no passages"} {
		if got := m.log.Lines()[n-3+i]; !strings.Contains(got, want) {
			t.Errorf("the log names the failed node once: %q, want %q", got, want)
		}
	}
	view := r.View()
	var line string
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "writing search queries") { // the node in words, not generate_queries
			line = l
		}
	}
	if !strings.Contains(line, "✗") || strings.Contains(line, "…") || !strings.Contains(line, "3s") || !strings.Contains(line, "r resumes") {
		t.Errorf("the failed node's trail line: %q\n%s", line, view)
	}
}

package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/service"
)

// blocking runs until it is cancelled, like a slow model.
type blocking struct{ fixture }

func (blocking) StartResearch(ctx context.Context, run, q string, o service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
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

func TestARunCannotBeOrphaned(t *testing.T) {
	m := New(blocking{})
	r := m.research
	r.question.SetValue("How are cylinders purged?")
	cmd := r.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !r.running() || cmd == nil {
		t.Fatal("the run should be running")
	}
	queue := r.queue
	// Opening a session or starting another run while one runs is refused with a reason.
	for _, c := range []tea.Cmd{r.openRun("another"), r.startRun("second question")} {
		msgs := drain(c)
		if len(msgs) != 1 || !strings.Contains(msgs[0].(statusMsg).Text, "Esc cancels it") {
			t.Fatalf("want a refusal, got %+v", msgs)
		}
	}
	if r.queue != queue {
		t.Fatal("the running run was replaced")
	}
	r.cancel()
	var done runDoneMsg
	for _, c := range []tea.Cmd{cmd} {
		for _, msg := range drain(c) {
			if d, ok := msg.(runDoneMsg); ok {
				done = d
			}
		}
	}
	r.Update(done)
	if r.running() || r.status != "canceled" {
		t.Errorf("the cancelled run must end: running %v, status %q", r.running(), r.status)
	}
}

func TestAddingToAnEmptyPlanDoesNotPanic(t *testing.T) {
	m := New(fixture{})
	r := m.research
	r.view, r.plan = viewPlan, nil
	r.key(tea.KeyPressMsg{Code: 'a', Text: "a"})
	r.edit.SetValue("a first task")
	r.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(r.plan) != 1 || r.plan[0].Query != "a first task" {
		t.Errorf("plan: %+v", r.plan)
	}
}

func TestCitationsWithListsAndRanges(t *testing.T) {
	var v reportView
	v.setSize(80, 20)
	v.set("Claim [1, 3].\n\nOther claim [2–4].\n\n## Sources\n\n[1] a\n[2] b")
	var got []int
	for _, c := range v.cites {
		got = append(got, c.n)
	}
	if len(got) != 5 || got[0] != 1 || got[1] != 3 || got[4] != 4 {
		t.Errorf("cited numbers %v (the source list must not count)", got)
	}
	v.nextCitation(-1)
	if v.selected() != 4 {
		t.Errorf("going back first selects the last citation, got %d", v.selected())
	}
}

// The budget bars show the run's own budget, which it keeps across resumes, not the one
// configured today.
func TestBudgetBarsShowTheRunsOwnBudget(t *testing.T) {
	m := sized(120, 40)
	r := m.research
	s := fixtureState()
	s.Budget = &service.RunBudget{Calls: 60, Tokens: 50000}
	r.run, r.view, r.status, r.state, r.calls, r.tokens = "20261121-101500-a1b2c3", viewRun, "finished", s, 42, 18120
	out := string(screen(m))
	if !strings.Contains(out, "42/60") || !strings.Contains(out, "18120/50000") {
		t.Errorf("want the bars against the run's budget (42/60 calls, 18120/50000 tokens):\n%s", out)
	}
}

// A node that ends with an error is marked as stopped in the trail, not left "running", and
// the log names it once.
func TestAFailedNodeIsMarkedInTheTrail(t *testing.T) {
	m := New(fixture{})
	r := m.research
	r.width, r.height = 80, 24
	r.run = "r1"
	start := time.Now()
	r.absorb([]service.RunEvent{
		{Run: "r1", Kind: service.EventNodeStarted, Node: "init", Time: start},
		{Run: "r1", Kind: service.EventNodeFinished, Node: "init", Duration: time.Millisecond, Summary: "nothing new"},
		{Run: "r1", Kind: service.EventNodeStarted, Node: "generate_queries", Time: start},
		{Run: "r1", Kind: service.EventError, Node: "generate_queries", Time: start.Add(3 * time.Second), Summary: "Ollama is not reachable"},
	})
	m.log.AddEvents([]service.RunEvent{{Run: "r1", Kind: service.EventError, Node: "generate_queries", Time: start,
		Summary: "generate_queries: Ollama is not reachable"}})
	m.log.AddEvents([]service.RunEvent{{Run: "r1", Kind: service.EventError, Node: "row", Time: start, Summary: "row 1 (Silane): couldn't extract"},
		{Run: "r1", Kind: service.EventError, Node: "report", Time: start, Summary: "no passages"}})
	n := len(m.log.Lines())
	for i, want := range []string{"error   generate_queries: Ollama", "error   row 1 (Silane)", "error   report no passages"} {
		if got := m.log.Lines()[n-3+i]; !strings.Contains(got, want) {
			t.Errorf("the log names the failed node once: %q, want %q", got, want)
		}
	}
	view := r.runView()
	var line string
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "generate_queries") {
			line = l
		}
	}
	if !strings.Contains(line, "✗") || strings.Contains(line, "…") || !strings.Contains(line, "3s") || !strings.Contains(line, "r resumes") {
		t.Errorf("the failed node's trail line: %q\n%s", line, view)
	}
}

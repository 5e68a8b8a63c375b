package research

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/service"
	"warren/service/jobs"
	"warren/tui/styles"
)

// team is a desk over one run of alice's that waits at its questions, seen by analyst as
// (admin when admin); it refuses decisions as the service's desk does, and records what it
// was asked.
type team struct {
	stub
	analyst string
	admin   bool

	mu        sync.Mutex
	cancelled []string
	resumed   []string
}

const waitingRun = "run-alice"

var questions = &service.RunInterrupt{Kind: service.InterruptQuestions, Payload: json.RawMessage(`{"iteration":1,"questions":["Which gases?"]}`)}

func (d *team) Analyst() (string, bool) { return d.analyst, d.admin }

func (d *team) refusal(what string) error {
	if d.analyst == "alice" || d.admin {
		return nil
	}
	return fmt.Errorf("%w: %s was started by alice; only alice (or an admin) can %s it — you can watch it", service.ErrNotOwner, waitingRun, what)
}

func (d *team) Watch(_ context.Context, run string, _ service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{Run: run, Status: service.RunInterrupted, Interrupt: questions, Step: 3}, &service.ResearchState{Question: "Which gases?"}, nil
}

func (d *team) Resume(_ context.Context, run string, _ json.RawMessage, _ service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	d.mu.Lock()
	d.resumed = append(d.resumed, run)
	d.mu.Unlock()
	if err := d.refusal("answer or resume"); err != nil {
		return service.RunOutcome{Run: run}, nil, err
	}
	return service.RunOutcome{Run: run, Status: service.RunInterrupted, Interrupt: questions, Step: 3}, nil, nil
}

func (d *team) Cancel(_ context.Context, id string) error {
	d.mu.Lock()
	d.cancelled = append(d.cancelled, id)
	d.mu.Unlock()
	if err := d.refusal("cancel"); err != nil {
		return err
	}
	return fmt.Errorf("%w running: %s", jobs.ErrNoJob, id) // a waiting run is not running
}

// settleAll runs cmd and feeds its messages back until none are left.
func settleAll(r *Model, cmd tea.Cmd) []string {
	var status []string
	pending := drain(cmd)
	for len(pending) > 0 {
		msg := pending[0]
		pending = pending[1:]
		if s, ok := msg.(statusMsg); ok {
			status = append(status, s.Text)
			continue
		}
		pending = append(pending, drain(r.Update(msg))...)
	}
	return status
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "ctrl+s", "ctrl+x", "ctrl+o", "ctrl+e":
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

func helpText(r *Model) string {
	var parts []string
	for _, b := range r.Keys().Short {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " • ")
}

// TestAWatcherIsOfferedNoDecisionAndTheScreenSaysWhatTheDeskDid: bob watches alice's waiting
// run. His help line offers no send, cancel or approve; esc is not a cancellation; keys he
// presses anyway reach the desk and its refusal is what the screen says.
func TestAWatcherIsOfferedNoDecisionAndTheScreenSaysWhatTheDeskDid(t *testing.T) {
	d := &team{analyst: "bob"}
	r := New(d, styles.New(true))
	r.SetSize(100, 30)
	settleAll(r, r.watch(waitingRun, "alice"))
	if r.view != viewRefine || r.Field() != noField {
		t.Fatalf("bob should read alice's questions without a field: view %d, field %d", r.view, r.Field())
	}
	for _, bad := range []string{"ctrl+s", "ctrl+x", "send", "cancel", "approve"} {
		if h := helpText(r); strings.Contains(h, bad) {
			t.Errorf("bob's help line offers %q: %s", bad, h)
		}
	}
	if r.status != "waiting for alice" {
		t.Errorf("the run's state on bob's screen: %q", r.status)
	}
	// Esc only goes back to the run view: nothing claims the run was cancelled.
	status := settleAll(r, r.Update(keyPress("esc")))
	if r.view != viewRun || strings.Contains(r.StateLabel(), "cancel") || len(d.cancelled) > 0 {
		t.Fatalf("esc on a watched run: view %d, label %q, cancels %v, status %v", r.view, r.StateLabel(), d.cancelled, status)
	}
	// ctrl+x anyway: the desk refuses, in its words.
	status = settleAll(r, r.Update(keyPress("ctrl+x")))
	if len(d.cancelled) != 1 || len(status) != 1 || !strings.Contains(status[0], "only alice (or an admin) can cancel it") {
		t.Fatalf("ctrl+x by a watcher: desk asked %v, screen %v", d.cancelled, status)
	}
	if strings.Contains(r.StateLabel(), "cancel") {
		t.Errorf("the header claims a cancellation: %q", r.StateLabel())
	}
	// Back to the questions and send anyway: refused by the desk, the screen stays on them.
	settleAll(r, r.Update(keyPress("enter")))
	if r.view != viewRefine {
		t.Fatalf("enter on the run view did not go back to the questions: %d", r.view)
	}
	status = settleAll(r, r.Update(keyPress("ctrl+s")))
	if len(d.resumed) != 1 || len(status) == 0 || !strings.Contains(status[len(status)-1], "only alice (or an admin) can answer or resume it") {
		t.Fatalf("ctrl+s by a watcher: desk asked %v, screen %v", d.resumed, status)
	}
	if r.view != viewRefine || r.pending == nil || r.owner != "alice" || r.status != "waiting for alice" {
		t.Errorf("a refused answer changed the screen: view %d, pending %v, owner %q, status %q", r.view, r.pending != nil, r.owner, r.status)
	}
}

// TestEscInTheAnswerFieldOnlyLeavesIt: for the run's owner, esc in the answer leaves the field
// and the run waits; typing comes back into the field; cancelling is ctrl+x, labelled.
func TestEscInTheAnswerFieldOnlyLeavesIt(t *testing.T) {
	d := &team{analyst: "alice"}
	r := New(d, styles.New(true))
	r.SetSize(100, 30)
	settleAll(r, r.watch(waitingRun, "alice"))
	if r.view != viewRefine || !r.answer.Focused() {
		t.Fatalf("alice should be in her answer: view %d", r.view)
	}
	if h := helpText(r); !strings.Contains(h, "ctrl+s send") || strings.Contains(h, "esc cancel") {
		t.Errorf("alice's help line: %s", h)
	}
	for _, k := range []string{"G", "a", "s", "esc"} {
		settleAll(r, r.Update(keyPress(k)))
	}
	if r.view != viewRefine || r.answer.Focused() || r.pending == nil || len(d.cancelled) > 0 || !strings.HasPrefix(r.status, "waiting") {
		t.Fatalf("esc in the answer: view %d, focused %v, pending %v, cancels %v, status %q", r.view, r.answer.Focused(), r.pending != nil, d.cancelled, r.status)
	}
	if h := helpText(r); !strings.Contains(h, "type to write") {
		t.Errorf("after esc the help line does not say typing goes on: %s", h)
	}
	// Any letter, q too, types into the answer again.
	settleAll(r, r.Update(keyPress("q")))
	if got := r.answer.Value(); got != "Gasq" || !r.answer.Focused() {
		t.Errorf("typing after esc: %q, focused %v", got, r.answer.Focused())
	}
}

// TestEscFromTheSessionsGoesBackWhereCtrlOCameFrom: from a finished run's view, the sessions
// list and esc lead back to it, not into the old question; n there starts a new one.
func TestEscFromTheSessionsGoesBackWhereCtrlOCameFrom(t *testing.T) {
	r := New(stub{}, styles.New(true))
	r.SetSize(100, 30)
	r.question.SetValue("an old question")
	r.sent = r.question.Value()
	r.question.Blur()
	r.view, r.run, r.status = viewRun, "old", "done"
	for _, k := range []string{"ctrl+o", "esc"} {
		settleAll(r, r.Update(keyPress(k)))
	}
	if r.view != viewRun || r.Field() != noField {
		t.Fatalf("esc from the sessions: view %d, field %d", r.view, r.Field())
	}
	settleAll(r, r.Update(keyPress("n")))
	if r.view != viewEditor || r.question.Value() != "" {
		t.Errorf("n after the sessions typed into the old question: view %d, %q", r.view, r.question.Value())
	}
}

// recorded is a finished run with its record: 4 model calls in its ledger and its steps in its
// job's history.
type recorded struct{ stub }

func (recorded) RunState(context.Context, string) (service.RunCheckpoint, *service.ResearchState, error) {
	return service.RunCheckpoint{Run: "done-run", Status: service.RunDone, Node: "write_partial"}, &service.ResearchState{Question: "q?"}, nil
}

func (recorded) Ledger(context.Context, string) ([]service.LedgerEntry, error) {
	return make([]service.LedgerEntry, 4), nil
}

func (recorded) History(_ context.Context, run string, _ int64) ([]service.RunEvent, error) {
	t := time.Unix(0, 0)
	var out []service.RunEvent
	for _, n := range []string{"init", "generate_queries", "synthesize"} {
		out = append(out, service.RunEvent{Run: run, Node: n, Kind: service.EventNodeStarted, Time: t},
			service.RunEvent{Run: run, Node: n, Kind: service.EventLedger, Ledger: &service.LedgerEntry{PromptTokens: 1}},
			service.RunEvent{Run: run, Node: n, Kind: service.EventNodeFinished, Duration: time.Second, Summary: "did " + n})
	}
	return out, nil
}

// TestAReopenedRunIsDrawnFromItsRecord: its phase, step and trail come from the job's history,
// its spending from the ledger (not the history's calls counted again).
func TestAReopenedRunIsDrawnFromItsRecord(t *testing.T) {
	r := New(recorded{}, styles.New(true))
	r.SetSize(120, 30)
	settleAll(r, r.openRun("done-run"))
	view := ansi.Strip(r.View())
	if strings.Contains(view, "(none)") || len(r.trail) != 3 || !strings.Contains(view, "did generate_queries") {
		t.Fatalf("the reopened run lacks its record:\n%s", view)
	}
	if r.calls != 4 {
		t.Errorf("calls %d, want the ledger's 4", r.calls)
	}
}

// pausing is alice's run that waits at its questions until she answers elsewhere, then runs to
// its report; a watcher's second Watch sees the end.
type pausing struct {
	team
	watched int
}

func (d *pausing) Watch(ctx context.Context, run string, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	d.watched++
	if d.watched == 1 {
		return d.team.Watch(ctx, run, sink)
	}
	return service.RunOutcome{Run: run, Status: service.RunDone, Step: 9}, &service.ResearchState{Question: "Which gases?", Report: "Silane needs a cabinet [1]."}, nil
}

func (d *pausing) GoesOn(context.Context, string) bool { return true }

// A watcher left at the questions of someone else's run follows it on once they answer: the
// view does not stay at a question the watcher can't answer.
func TestAWatcherFollowsARunOnWhenItsAnalystAnswers(t *testing.T) {
	d := &pausing{team: team{analyst: "bob"}}
	r := New(d, styles.New(true))
	r.SetSize(100, 30)
	settleAll(r, r.watch(waitingRun, "alice"))
	if d.watched != 2 {
		t.Fatalf("the run was watched %d time(s), want 2: once to its questions, once on", d.watched)
	}
	if r.view != viewReport {
		t.Errorf("the watcher's view is %v, want the report", r.view)
	}

	// The analyst who may answer is not taken past the questions: the run waits for them.
	own := &pausing{team: team{analyst: "alice"}}
	r = New(own, styles.New(true))
	r.SetSize(100, 30)
	settleAll(r, r.watch(waitingRun, "alice"))
	if own.watched != 1 || r.view != viewRefine {
		t.Errorf("alice's own run: watched %d time(s), view %v; want once, at the questions", own.watched, r.view)
	}
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"warren/llm"
)

// bugGraph counts in "inc" and then, in "bug", half-changes the state and panics while
// *panics is set.
func bugGraph(panics *bool) *Graph[counter] {
	return NewGraph[counter]("bug").
		Node("inc", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) { s.N++; return nil, nil }).
		Edge("inc", "bug").
		Node("bug", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			s.N = 999 // must not survive the panic
			if *panics {
				var st *counter
				st.Done = true // a nil pointer: the kind of bug a node may have
			}
			s.Done = true
			return nil, nil
		}).
		Edge("bug", End)
}

func TestANodeThatPanicsFailsTheRunAndKeepsTheLastGoodStep(t *testing.T) {
	store := testStore(t)
	var mu sync.Mutex
	var events []Event
	panics := true
	r := &Runner[counter]{Graph: bugGraph(&panics), Store: store,
		Sink: func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() }}
	ctx := context.Background()
	var s counter
	out, err := r.Start(ctx, "run-1", "a bug", &s)

	var pe *PanicError
	if !errors.Is(err, ErrPanicked) || !errors.As(err, &pe) {
		t.Fatalf("want a *PanicError, got %v (%T)", err, err)
	}
	if pe.Node != "bug" || !strings.Contains(err.Error(), "internal error in step bug (panic: runtime error: invalid memory address") {
		t.Errorf("the error: %q (node %q)", err, pe.Node)
	}
	if !strings.Contains(string(pe.Stack), "panic_test.go") || strings.Contains(err.Error(), "goroutine") {
		t.Errorf("the stack belongs in the error's Stack, not its message:\n%s", pe.Stack)
	}
	if out.Status != StatusFailed || out.Step != 2 {
		t.Errorf("outcome: %+v", out)
	}

	// The step before the panic stays checkpointed, and the failed step holds the state from
	// before it, not the half-change.
	cps, _ := store.Checkpoints(ctx, "run-1")
	if len(cps) != 2 || cps[0].Node != "inc" || cps[0].Status != StatusRunning || cps[1].Node != "bug" || cps[1].Status != StatusFailed {
		t.Fatalf("checkpoints: %+v", cps)
	}
	last, _ := store.Latest(ctx, "run-1")
	var saved counter
	json.Unmarshal(last.State, &saved)
	if saved.N != 1 || last.Next != "bug" || !strings.Contains(last.Error, "panic:") {
		t.Errorf("the failed step's checkpoint: %+v, state %+v", last, saved)
	}
	mu.Lock()
	var reported bool
	for _, e := range events {
		if e.Kind == EventError && e.Node == "bug" && strings.Contains(e.Summary, "internal error") {
			reported = true
		}
	}
	mu.Unlock()
	if !reported {
		t.Errorf("no error event for the step: %+v", events)
	}

	// Once the bug is gone, a resume re-runs the step from the last good state.
	panics = false
	var again counter
	out, err = r.Resume(ctx, "run-1", nil, &again)
	if err != nil || out.Status != StatusDone || !again.Done || again.N != 999 {
		t.Fatalf("resume after the fix: %+v %+v %v", out, again, err)
	}
}

func TestARouterOrAnAnswerThatPanicsFailsTheRun(t *testing.T) {
	store := testStore(t)
	g := NewGraph[counter]("routes").
		Node("inc", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) { s.N++; return nil, nil }).
		Route("inc", func(s *counter) string { panic(fmt.Sprintf("no route at %d", s.N)) }).
		Node("ask", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			return NewInterrupt("question", nil)
		}).
		Edge("ask", End)
	r := &Runner[counter]{Graph: g, Store: store}
	ctx := context.Background()
	out, err := r.Start(ctx, "run-1", "routes", &counter{})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Node != "inc" || pe.Value != "no route at 1" || out.Status != StatusFailed {
		t.Fatalf("a router's panic: %+v %v", out, err)
	}
	if last, _ := store.Latest(ctx, "run-1"); last.Status != StatusFailed || last.Next != "inc" {
		t.Errorf("after a router's panic: %+v", last)
	}

	g.Start("ask")
	r.Answer = func(*counter, Interrupt, json.RawMessage) error { panic("the answer broke") }
	if _, err := r.Start(ctx, "run-2", "answers", &counter{}); err != nil {
		t.Fatal(err)
	}
	out, err = r.Resume(ctx, "run-2", json.RawMessage(`"y"`), &counter{})
	if !errors.As(err, &pe) || pe.Value != "the answer broke" || out.Status != StatusFailed {
		t.Fatalf("an answer's panic: %+v %v", out, err)
	}
	if last, _ := store.Latest(ctx, "run-2"); last.Status != StatusInterrupted {
		t.Errorf("the question it answered is no longer waiting: %+v", last)
	}
}

func TestCatchTurnsAGoroutinesPanicIntoAnError(t *testing.T) {
	errs := make(chan error, 1)
	go func() { errs <- Catch(func() error { panic("in a worker") }) }()
	err := <-errs
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "in a worker" || pe.Node != "" || err.Error() != "internal error (panic: in a worker)" {
		t.Fatalf("Catch: %v", err)
	}
	plain := errors.New("plain")
	if Catch(func() error { return plain }) != plain || Catch(func() error { return nil }) != nil {
		t.Fatal("Catch changed a result without a panic")
	}
}

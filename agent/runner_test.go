package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"slices"
	"warren/config"
	"warren/kb"
	"warren/llm"
)

type counter struct {
	N      int    `json:"n"`
	Answer string `json:"answer"`
	Done   bool   `json:"done"`
}

func testStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	kb.Init(dir, slices.Concat(kb.Migrations, Migrations))
	ws, err := kb.Open(dir, config.Sources{}, slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &Store{DB: ws.DB}
}

func counterGraph(failOnce *bool) *Graph[counter] {
	return NewGraph[counter]("counter").
		Node("inc", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) { s.N++; return nil, nil }).
		Route("inc", func(s *counter) string {
			if s.N < 3 {
				return "inc"
			}
			return "ask"
		}).
		Node("ask", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			return NewInterrupt("question", map[string]int{"n": s.N})
		}).
		Edge("ask", "finish").
		Node("finish", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			if failOnce != nil && *failOnce {
				*failOnce = false
				s.N = 999 // a half-done change that must not survive the failure
				return nil, errors.New("disk full")
			}
			s.Done = true
			return nil, nil
		}).
		Edge("finish", End)
}

func TestRunInterruptResumeAndFailureRecovery(t *testing.T) {
	store := testStore(t)
	var mu sync.Mutex
	var events []Event
	failOnce := true
	r := &Runner[counter]{Graph: counterGraph(&failOnce), Store: store,
		Sink: func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		Answer: func(s *counter, in Interrupt, answer json.RawMessage) error {
			return json.Unmarshal(answer, &s.Answer)
		}}
	ctx := context.Background()
	var s counter
	out, err := r.Start(ctx, "run-1", "count to three", &s)
	if err != nil || out.Status != StatusInterrupted || out.Interrupt.Kind != "question" || string(out.Interrupt.Payload) != `{"n":3}` {
		t.Fatalf("want an interrupt after three increments: %+v %v", out, err)
	}
	cps, _ := store.Checkpoints(ctx, "run-1")
	if len(cps) != 4 || cps[0].Node != "inc" || cps[3].Status != StatusInterrupted || cps[3].Parent != 3 {
		t.Errorf("a checkpoint after every node: %+v", cps)
	}

	var resumed counter
	out, err = r.Resume(ctx, "run-1", json.RawMessage(`"yes"`), &resumed)
	if err == nil || out.Status != StatusFailed || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("the failing node fails the run: %+v %v", out, err)
	}
	var again counter
	out, err = r.Resume(ctx, "run-1", nil, &again)
	if err != nil || out.Status != StatusDone || !again.Done || again.N != 3 || again.Answer != "yes" {
		t.Fatalf("resume re-runs the failed node from the state before it: %+v %+v %v", out, again, err)
	}
	if _, err := r.Resume(ctx, "run-1", nil, &again); err == nil {
		t.Error("a finished run cannot be resumed")
	}
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, e := range events {
		if e.Kind == EventNodeFinished && e.Node == "inc" && e.Summary != "changed n" {
			t.Errorf("the node summary says what changed: %q", e.Summary)
		}
		kinds = append(kinds, e.Kind)
	}
	if !strings.Contains(strings.Join(kinds, ","), "interrupt") || kinds[len(kinds)-1] != EventDone {
		t.Errorf("events: %v", kinds)
	}
}

func TestStepLimitStopsALoop(t *testing.T) {
	g := NewGraph[counter]("loop").
		Node("spin", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) { s.N++; return nil, nil }).
		Route("spin", func(*counter) string { return "spin" })
	r := &Runner[counter]{Graph: g, Store: testStore(t), StepLimit: 5}
	var s counter
	out, err := r.Start(context.Background(), "run-loop", "", &s)
	if !errors.Is(err, ErrStepLimit) || out.Status != StatusFailed {
		t.Fatalf("want the step limit: %+v %v", out, err)
	}
}

func TestCancelledRunIsResumable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g := NewGraph[counter]("cancel").
		Node("work", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			s.N++
			if s.N == 1 {
				cancel()
				return nil, ctx.Err()
			}
			return nil, nil
		}).
		Edge("work", End)
	store := testStore(t)
	r := &Runner[counter]{Graph: g, Store: store}
	var s counter
	if out, _ := r.Start(ctx, "run-c", "", &s); out.Status != StatusCanceled {
		t.Fatalf("want canceled, got %+v", out)
	}
	var again counter
	out, err := r.Resume(context.Background(), "run-c", nil, &again)
	if err != nil || out.Status != StatusDone || again.N != 1 {
		t.Fatalf("the cancelled node runs again from the state before it: %+v %+v %v", out, again, err)
	}
}

// A run cancelled before it starts (a server stopping as the analyst presses enter) is still
// recorded and checkpointed, so it can be resumed.
func TestRunCancelledAsItStartsIsResumable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := NewGraph[counter]("early").
		Node("work", func(ctx context.Context, _ llm.Call, s *counter) (*Interrupt, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s.N++
			return nil, nil
		}).
		Edge("work", End)
	store := testStore(t)
	r := &Runner[counter]{Graph: g, Store: store}
	if out, err := r.Start(ctx, "run-e", "early", &counter{}); out.Status != StatusCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("want a cancelled run, got %+v %v", out, err)
	}
	var again counter
	out, err := r.Resume(context.Background(), "run-e", nil, &again)
	if err != nil || out.Status != StatusDone || again.N != 1 {
		t.Fatalf("the run goes on from its start: %+v %+v %v", out, again, err)
	}
}

// Each node makes its model calls as the run's call, named after the node: that is how the
// ledger knows which node made a call.
func TestNodesGetTheRunsCallUnderTheirNames(t *testing.T) {
	meter := llm.NewRun("run-n", llm.Budget{}, nil)
	var got []llm.Call
	node := func(ctx context.Context, call llm.Call, s *counter) (*Interrupt, error) {
		got = append(got, call)
		return nil, nil
	}
	g := NewGraph[counter]("named").Node("first", node).Edge("first", "second").Node("second", node).Edge("second", End)
	r := &Runner[counter]{Graph: g, Store: testStore(t), Call: llm.Call{Run: meter}}
	if _, err := r.Start(context.Background(), "run-n", "", &counter{}); err != nil {
		t.Fatal(err)
	}
	want := []llm.Call{{Run: meter, Node: "first"}, {Run: meter, Node: "second"}}
	if !slices.Equal(got, want) {
		t.Errorf("the nodes got %+v, want %+v", got, want)
	}
}

func TestValidateFindsDanglingGraphs(t *testing.T) {
	g := NewGraph[counter]("bad").
		Node("a", func(context.Context, llm.Call, *counter) (*Interrupt, error) { return nil, nil }).
		Edge("a", "nowhere").
		Node("b", func(context.Context, llm.Call, *counter) (*Interrupt, error) { return nil, nil })
	err := g.Validate()
	if err == nil || !strings.Contains(err.Error(), "leads to no node") || !strings.Contains(err.Error(), `node "b" has no way on`) {
		t.Errorf("got %v", err)
	}
}

// Forget drops a recorded answer only while it is the one given: an identical request's
// answer recorded meanwhile stays.
func TestJournalForgetsOnlyTheAnswerGiven(t *testing.T) {
	j := testStore(t).Journal("run")
	ctx := context.Background()
	good, bad := llm.JournalEntry{Content: `{"ok":true}`}, llm.JournalEntry{Content: "prose"}
	if err := j.Record(ctx, "k", good); err != nil {
		t.Fatal(err)
	}
	if err := j.Forget(ctx, "k", bad); err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := j.Lookup(ctx, "k"); !ok || e.Content != good.Content {
		t.Fatalf("another answer under the key must stay: %+v %v", e, ok)
	}
	if err := j.Forget(ctx, "k", good); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := j.Lookup(ctx, "k"); ok {
		t.Error("the answer given is forgotten")
	}
}

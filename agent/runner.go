package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"warren/llm"
)

// Event kinds a run emits.
const (
	EventNodeStarted  = "node_started"
	EventNodeFinished = "node_finished"
	EventToken        = "token"
	EventLedger       = "ledger"
	EventInterrupt    = "interrupt"
	EventError        = "error"
	EventDone         = "done"
	EventNote         = "note" // a node's own progress message
)

// Event is one thing that happened in a run. The TUI and the headless CLI consume the same
// stream.
type Event struct {
	Time     time.Time        `json:"time"`
	Run      string           `json:"run"`
	Step     int              `json:"step"`
	Node     string           `json:"node,omitempty"`
	Kind     string           `json:"kind"`
	Summary  string           `json:"summary,omitempty"`
	Duration time.Duration    `json:"duration_ns,omitempty"`
	Ledger   *llm.LedgerEntry `json:"ledger,omitempty"`
	Intr     *Interrupt       `json:"interrupt,omitempty"`
	// State is the state after a node finished, for consumers that show it live.
	State json.RawMessage `json:"state,omitempty"`
}

// Sink receives events. It is called from the run's goroutines and should not block long.
type Sink func(Event)

// ErrStepLimit means a run took more steps than allowed: a loop in the graph that does not end.
var ErrStepLimit = errors.New("step limit reached")

// Outcome is how a Start or Resume call ended.
type Outcome struct {
	Run       string     `json:"run"`
	Status    string     `json:"status"`
	Interrupt *Interrupt `json:"interrupt,omitempty"`
	Step      int        `json:"step"`
}

// Runner runs a graph with checkpoints.
type Runner[S any] struct {
	Graph     *Graph[S]
	Store     *Store
	Sink      Sink
	StepLimit int // 0: 1000
	// Answer applies the analyst's answer to an interrupt before the run goes on.
	Answer func(s *S, in Interrupt, answer json.RawMessage) error
	// Loaded, when set, adjusts a resumed run's state as soon as it is read; the change is
	// saved with the next checkpoint.
	Loaded func(s *S)
	// Describe, when set, says in words what a node changed, for the analyst; without it the
	// summary names the changed state fields.
	Describe func(before, after *S) string
	// Call is what the run's model calls are made for: its meter and its journal. Each node
	// gets it named after itself.
	Call llm.Call
}

// Start begins a new run with the given state.
func (r *Runner[S]) Start(ctx context.Context, run, title string, state *S) (out Outcome, err error) {
	defer recoverRun(run, &out, &err)
	if err := r.Graph.Validate(); err != nil {
		return Outcome{}, err
	}
	// A run is recorded even when it is cancelled as it starts (a server stopping, say): its
	// first node then fails on the cancellation and checkpoints, so the run can be resumed.
	if err := r.Store.CreateRun(context.WithoutCancel(ctx), run, r.Graph.Name, title); err != nil {
		return Outcome{}, err
	}
	return r.loop(ctx, run, 0, r.Graph.start, state)
}

// Resume goes on with a run from its last checkpoint. An interrupted run needs the answer;
// a run that failed, was cancelled or died mid-node re-runs that node from the state before
// it.
func (r *Runner[S]) Resume(ctx context.Context, run string, answer json.RawMessage, state *S) (out Outcome, err error) {
	defer recoverRun(run, &out, &err)
	cp, err := r.Store.Latest(ctx, run)
	if err != nil {
		return Outcome{}, err
	}
	if err := json.Unmarshal(cp.State, state); err != nil {
		return Outcome{}, fmt.Errorf("couldn't read the state of run %s: %w", run, err)
	}
	if r.Loaded != nil {
		r.Loaded(state)
	}
	switch cp.Status {
	case StatusDone:
		return Outcome{Run: run, Status: StatusDone, Step: cp.Step}, fmt.Errorf("run %s has already finished", run)
	case StatusInterrupted:
		if answer == nil {
			return Outcome{Run: run, Status: StatusInterrupted, Interrupt: cp.Interrupt, Step: cp.Step}, nil
		}
		if r.Answer == nil || cp.Interrupt == nil {
			return Outcome{}, fmt.Errorf("run %s cannot take an answer", run)
		}
		if err := r.Answer(state, *cp.Interrupt, answer); err != nil {
			return Outcome{Run: run, Status: StatusInterrupted, Interrupt: cp.Interrupt, Step: cp.Step},
				fmt.Errorf("couldn't use the answer: %w", err)
		}
		next, err := r.Graph.next(cp.Node, state)
		if err != nil {
			return Outcome{}, err
		}
		// The answer is saved before anything else runs, so a crash cannot lose it.
		data, err := json.Marshal(state)
		if err != nil {
			return Outcome{}, err
		}
		if err := r.Store.Save(context.WithoutCancel(ctx), Checkpoint{Run: run, Step: cp.Step + 1, Node: cp.Node, Next: next,
			Status: StatusRunning, State: data}); err != nil {
			return Outcome{}, err
		}
		return r.loop(ctx, run, cp.Step+1, next, state)
	default:
		return r.loop(ctx, run, cp.Step, cp.Next, state)
	}
}

func (r *Runner[S]) emit(e Event) {
	if r.Sink != nil {
		e.Time = time.Now()
		r.Sink(e)
	}
}

func (r *Runner[S]) loop(ctx context.Context, run string, step int, node string, state *S) (Outcome, error) {
	limit := r.StepLimit
	if limit <= 0 {
		limit = 1000
	}
	for node != End {
		before, err := json.Marshal(state)
		if err != nil {
			return Outcome{}, fmt.Errorf("couldn't encode the state: %w", err)
		}
		step++
		if step > limit {
			return r.fail(ctx, run, step, node, before, fmt.Errorf("%w (%d) at %s", ErrStepLimit, limit, node))
		}
		fn, ok := r.Graph.nodes[node]
		if !ok {
			return r.fail(ctx, run, step, node, before, fmt.Errorf("unknown node %q", node))
		}
		r.emit(Event{Run: run, Step: step, Node: node, Kind: EventNodeStarted})
		start := time.Now()
		intr, err := callNode(ctx, r.Call.At(node), node, fn, state)
		if err != nil {
			// The state the node may have half-changed is dropped: a resume re-runs the node
			// from the state before it. A panic fails the run the same way.
			return r.fail(ctx, run, step, node, before, err)
		}
		after, err := json.Marshal(state)
		if err != nil {
			return Outcome{}, fmt.Errorf("couldn't encode the state: %w", err)
		}
		summary := r.describe(before, after, state)
		r.emit(Event{Run: run, Step: step, Node: node, Kind: EventNodeFinished, Summary: summary, Duration: time.Since(start), State: after})
		if intr != nil {
			cp := Checkpoint{Run: run, Step: step, Node: node, Status: StatusInterrupted, State: after, Interrupt: intr}
			if err := r.Store.Save(context.WithoutCancel(ctx), cp); err != nil {
				return Outcome{}, err
			}
			r.emit(Event{Run: run, Step: step, Node: node, Kind: EventInterrupt, Intr: intr})
			return Outcome{Run: run, Status: StatusInterrupted, Interrupt: intr, Step: step}, nil
		}
		next, err := r.Graph.next(node, state)
		if err != nil {
			return r.fail(ctx, run, step, node, before, err)
		}
		status := StatusRunning
		if next == End {
			status = StatusDone
		}
		if err := r.Store.Save(context.WithoutCancel(ctx), Checkpoint{Run: run, Step: step, Node: node, Next: next, Status: status, State: after}); err != nil {
			return Outcome{}, err
		}
		node = next
	}
	r.emit(Event{Run: run, Step: step, Kind: EventDone})
	return Outcome{Run: run, Status: StatusDone, Step: step}, nil
}

// callNode runs one node; a panic in it becomes a *PanicError, so that it fails this run
// only, checkpointed like any failed step.
func callNode[S any](ctx context.Context, call llm.Call, node string, fn Node[S], s *S) (intr *Interrupt, err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := NewPanicError(v)
			pe.Node = node
			intr, err = nil, pe
		}
	}()
	return fn(ctx, call, s)
}

// recoverRun, deferred, fails a run whose runner code outside a node panicked (a sink, an
// answer, a description): the checkpoints already saved stay as they are.
func recoverRun(run string, out *Outcome, err *error) {
	if v := recover(); v != nil {
		*out, *err = Outcome{Run: run, Status: StatusFailed}, NewPanicError(v)
	}
}

// fail checkpoints a run that stopped inside node, with the state from before it, so that a
// resume runs the node again.
func (r *Runner[S]) fail(ctx context.Context, run string, step int, node string, before []byte, cause error) (Outcome, error) {
	status := StatusFailed
	if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		status = StatusCanceled
	}
	cp := Checkpoint{Run: run, Step: step, Node: node, Next: node, Status: status, State: before, Error: cause.Error()}
	if err := r.Store.Save(context.WithoutCancel(ctx), cp); err != nil {
		return Outcome{}, errors.Join(cause, err)
	}
	r.emit(Event{Run: run, Step: step, Node: node, Kind: EventError, Summary: cause.Error()})
	return Outcome{Run: run, Status: status, Step: step}, cause
}

// describe says what a node changed: in the graph's own words when it has them.
func (r *Runner[S]) describe(before, after []byte, state *S) string {
	if r.Describe != nil {
		var old S
		if json.Unmarshal(before, &old) == nil {
			return r.Describe(&old, state)
		}
	}
	return changed(before, after)
}

// changed names the top-level state fields a node changed, for the event stream.
func changed(before, after []byte) string {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil {
		return ""
	}
	var names []string
	for k, v := range b {
		if !bytes.Equal(a[k], v) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no change"
	}
	return "changed " + strings.Join(names, ", ")
}

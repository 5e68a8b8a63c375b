package gasfill

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/agent"
	"warren/gas"
	"warren/llm"
	"warren/llm/llmtest"
)

// runner builds the fill's runner over the harness, as the service does: rows loaded as
// stored, each worked row saved into the fill record; journaled gives it the run's journal.
func (h *harness) runner(t testing.TB, sink agent.Sink) *agent.Runner[State] {
	t.Helper()
	steps := &Steps{Filler: h.filler,
		Row: func(ctx context.Context, table string, id int) (*gas.Row, error) {
			tab, err := h.tables.LoadTable(ctx, table)
			if err != nil {
				return nil, err
			}
			return tab.Row(id), nil
		},
		Save: func(ctx context.Context, s *State, r *RowResult) error {
			return SaveRow(ctx, h.tables, s, r)
		}}
	return &agent.Runner[State]{Graph: Graph(steps), Store: &agent.Store{DB: h.tables.DB}, Sink: sink, Describe: Describe}
}

// startState records a fill of rows and returns its first state.
func (h *harness) startState(t testing.TB, rows []int) *State {
	t.Helper()
	fill, err := h.tables.StartFill(context.Background(), h.table.Name, rows, DefaultTiers)
	if err != nil {
		t.Fatal(err)
	}
	return &State{Table: h.table.Name, Fill: fill, Tiers: DefaultTiers, Rows: rows}
}

// journaled is the call of the fill run named run, with the run's journal, as the service
// gives it to the runner.
func journaled(h *harness, run string) llm.Call {
	return llm.Call{Journal: (&agent.Store{DB: h.tables.DB}).Journal(run)}
}

// A fill run is one checkpointed step per row: each step works the next row, stores its cells
// and marks it done, and says in the event stream what it did.
func TestFillRunIsOneCheckpointedStepPerRow(t *testing.T) {
	h := newHarness(t)
	var off atomic.Bool
	scriptReader(t, h.srv, loadAnswerKey(t), &off)
	rows := []int{h.table.Rows[0].ID, h.table.Rows[1].ID, h.table.Rows[2].ID}
	var mu sync.Mutex
	var finished []string
	r := h.runner(t, func(e agent.Event) {
		if e.Kind == agent.EventNodeFinished {
			mu.Lock()
			finished = append(finished, e.Summary)
			mu.Unlock()
		}
	})
	state := h.startState(t, rows)
	r.Call = journaled(h, "fill-1")
	out, err := r.Start(context.Background(), "fill-1", "test fill", state)
	if err != nil || out.Status != agent.StatusDone {
		t.Fatalf("Start: %+v %v", out, err)
	}
	cps, err := r.Store.Checkpoints(context.Background(), "fill-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != len(rows) {
		t.Errorf("%d checkpoints, want one per row (%d)", len(cps), len(rows))
	}
	for i, cp := range cps {
		if cp.Node != NodeRow {
			t.Errorf("checkpoint %d after node %q", i, cp.Node)
		}
	}
	var saved State
	latest, _ := r.Store.Latest(context.Background(), "fill-1")
	if err := json.Unmarshal(latest.State, &saved); err != nil {
		t.Fatal(err)
	}
	var worked []int
	for _, res := range saved.Results {
		worked = append(worked, res.Row)
	}
	if saved.Next != len(rows) || !slices.Equal(worked, rows) || !slices.Equal(saved.Done, rows) {
		t.Errorf("state after the run: next %d, worked %v, done %v; want every row of %v", saved.Next, worked, saved.Done, rows)
	}
	last, _, err := h.tables.LastFill(context.Background(), h.table.Name)
	if err != nil || !slices.Equal(last.Done, rows) {
		t.Errorf("the fill record marks %v done (%v), want %v", last.Done, err, rows)
	}
	filled := 0
	for _, res := range saved.Results {
		filled += res.Filled
	}
	if filled == 0 {
		t.Errorf("the run filled nothing: %+v", saved.Results)
	}
	if len(finished) != len(rows) || !strings.Contains(finished[0], h.table.Rows[0].Name()) {
		t.Errorf("step summaries %q: want one per row, naming it", finished)
	}
}

// answerTaken is more than the run needs to take an answer the server has written.
const answerTaken = 400 * time.Millisecond

// A run cancelled inside a row keeps the rows taken before it (rows are worked ahead, but
// taken, saved and checkpointed in order); resumed, it works that row again and the rest, and
// no model call that had completed is made again: the journal replays it.
func TestFillRunResumesWithoutRepeatingCalls(t *testing.T) {
	h := newHarness(t)
	rows := []int{h.table.Rows[0].ID, h.table.Rows[1].ID, h.table.Rows[2].ID}
	second := h.table.Rows[1].Name()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var extractions atomic.Int32
	var trigger atomic.Value     // the prompt in flight when the run was cancelled
	var cancelledAt atomic.Value // when: an answer written after it may be thrown away
	h.srv.Handle(&llmtest.Rule{Name: "ctrl-c in row 2", SchemaHas: "values", Match: func(c llmtest.Call) bool {
		if strings.HasPrefix(c.LastUser(), "Substance: "+second+" ") && extractions.Add(1) == 2 {
			trigger.Store(c.LastUser())
			// The run takes an answer a moment after the server has written it: the calls
			// answered before this pause are taken by the time of the cancel.
			time.Sleep(answerTaken)
			cancelledAt.Store(time.Now())
			cancel() // while the row's second extraction runs
			time.Sleep(100 * time.Millisecond)
		}
		return false // the reader answers
	}})
	var off atomic.Bool
	scriptReader(t, h.srv, loadAnswerKey(t), &off)

	r := h.runner(t, nil)
	r.Call = journaled(h, "fill-2")
	out, err := r.Start(ctx, "fill-2", "test fill", h.startState(t, rows))
	if !errors.Is(err, context.Canceled) || out.Status != agent.StatusCanceled {
		t.Fatalf("Start: %+v %v, want cancelled", out, err)
	}
	if extractions.Load() < 2 {
		t.Fatalf("%s had %d extraction calls; the test needs the second one cancelled", second, extractions.Load())
	}
	var kept State
	latest, _ := r.Store.Latest(context.Background(), "fill-2")
	if err := json.Unmarshal(latest.State, &kept); err != nil {
		t.Fatal(err)
	}
	if kept.Next > 1 || !slices.Equal(kept.Done, rows[:kept.Next]) {
		t.Fatalf("a cancelled run keeps the rows taken before the cancelled one, in order: next %d, done %v", kept.Next, kept.Done)
	}
	// A call answered well before the cancel was taken by the run and must not be paid again;
	// one answered just before it or while the run was stopping (another of the row's calls
	// in flight) may be: the cancel can reach the run before the answer it was reading.
	completed := map[string]bool{}
	firstSitting := h.srv.Requests()
	stopped, _ := cancelledAt.Load().(time.Time)
	for _, q := range firstSitting {
		if q.Path == "/api/chat" && q.Answered && q.End.Before(stopped.Add(-answerTaken/2)) {
			completed[lastUser(q)+string(q.Format)] = true
		}
	}
	if len(completed) == 0 {
		t.Fatal("no call was answered well before the cancel: the test checks nothing")
	}
	inFlight, _ := trigger.Load().(string)

	var state State
	out, err = r.Resume(context.Background(), "fill-2", nil, &state)
	if err != nil || out.Status != agent.StatusDone {
		t.Fatalf("Resume: %+v %v", out, err)
	}
	var worked []int
	for _, res := range state.Results {
		worked = append(worked, res.Row)
	}
	if !slices.Equal(worked, rows) || !slices.Equal(state.Done, rows) {
		t.Errorf("after the resume: worked %v, done %v, want %v", worked, state.Done, rows)
	}
	again := 0
	for _, q := range h.srv.Requests()[len(firstSitting):] {
		if q.Path != "/api/chat" {
			continue
		}
		if lastUser(q) != inFlight && completed[lastUser(q)+string(q.Format)] {
			t.Errorf("the resume repeated a completed call: %.80q", lastUser(q))
		}
		again++
	}
	if again == 0 {
		t.Errorf("the resume made no call: rows 2 and 3 were not worked again")
	}
}

func lastUser(q llmtest.Recorded) string {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return q.Messages[i].Content
		}
	}
	return ""
}

// A finished run with failed rows queues them again; one without has nothing to retry.
func TestRequeueRetriesOnlyFailedRows(t *testing.T) {
	s := &State{Rows: []int{1, 2, 3}, Next: 3, Done: []int{1, 3},
		Results: []RowResult{{Row: 1}, {Row: 2, Err: "bad answer"}, {Row: 3}}}
	if !Requeue(s) || !slices.Equal(s.Pending(), []int{2}) {
		t.Fatalf("requeue: pending %v, want [2]", s.Pending())
	}
	s.Results = append(s.Results, RowResult{Row: 2})
	s.Done, s.Next = append(s.Done, 2), len(s.Rows)
	if Requeue(s) || len(s.Failed()) != 0 {
		t.Errorf("a row that succeeded on retry is queued again: %v", s.Failed())
	}
}

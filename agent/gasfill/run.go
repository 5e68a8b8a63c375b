package gasfill

import (
	"context"
	"fmt"
	"slices"

	"warren/agent"
	"warren/gas"
	"warren/llm"
)

// GraphName names the fill's graph among the workspace's runs.
const GraphName = "gasfill"

// NodeRow is the fill's one node: it fills the next pending row and stores its cells.
const NodeRow = "row"

// State is a fill run's state, checkpointed after every row: the table, the rows to work in
// order, how far the run has come, and what each worked row did.
type State struct {
	Table string   `json:"table"`
	Fill  int64    `json:"fill"` // the fill record in the gas table's store (gas.Fill)
	Tiers []string `json:"tiers"`
	Rows  []int    `json:"rows"` // the rows to work, in order; a retry appends the failed ones again
	Next  int      `json:"next"` // index into Rows of the row to work next
	Done  []int    `json:"done"` // rows finished and saved
	// Results holds one result per worked row, in the order worked.
	Results []RowResult `json:"results"`
}

// Pending lists the rows not yet worked.
func (s *State) Pending() []int {
	if s.Next >= len(s.Rows) {
		return nil
	}
	return slices.Clone(s.Rows[s.Next:])
}

// Failed lists the rows whose latest result is a failure and that are not done.
func (s *State) Failed() []int {
	latest := map[int]RowResult{}
	var order []int
	for _, r := range s.Results {
		if _, ok := latest[r.Row]; !ok {
			order = append(order, r.Row)
		}
		latest[r.Row] = r
	}
	var out []int
	for _, id := range order {
		if latest[id].Err != "" && !slices.Contains(s.Done, id) {
			out = append(out, id)
		}
	}
	return out
}

// SaveRow is the usual Save: it writes a worked row into store in one transaction, marks it
// done in the fill record unless it failed (a resume works it again), and keeps in r only the
// changes written, not those the analyst overtook meanwhile.
func SaveRow(ctx context.Context, store *gas.Store, s *State, r *RowResult) error {
	changes := make([]gas.FillChange, len(r.Changes))
	for i, c := range r.Changes {
		changes[i] = gas.FillChange{Field: c.Field, Before: c.Before, After: c.After, Reason: "fill: " + c.Reason}
	}
	fill := s.Fill
	if r.Err != "" {
		fill = 0
	}
	written, err := store.SaveFillRow(ctx, fill, s.Table, r.Row, changes)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, w := range written {
		kept[w.Field] = true
	}
	r.Changes = slices.DeleteFunc(r.Changes, func(c CellChange) bool { return !kept[c.Field] })
	r.count()
	return nil
}

// Steps is what a fill run needs besides the filler: the table's rows as stored now, and a
// place to store a finished row. A run works up to the chat role's capacity of rows at once
// (see Filler.workers), ahead of the step that takes them: each step still takes one row, in
// the run's order, saves it and is checkpointed. Call Stop when the run returns.
type Steps struct {
	Filler *Filler
	// Row loads one row of the table as it is stored now, so a cell the analyst decided while
	// the fill ran is seen as decided. It may be called from several rows at once.
	Row func(ctx context.Context, table string, id int) (*gas.Row, error)
	// Save stores a worked row's changes, marking it done in the fill record unless it failed;
	// it may drop changes the analyst overtook, and must survive the caller's cancellation.
	// Rows are saved one at a time, in the run's order.
	Save func(ctx context.Context, s *State, r *RowResult) error
	// Working, when set, is told when the run starts working a row (rows done so far, all
	// rows, the row's name), for progress; it may be called from several rows at once.
	Working func(done, total int, name string)

	ahead *ahead // the rows in work, while the run works
}

// Stop cancels the rows still in work ahead of the run and waits for them; a run that
// returned early (an error, a step limit) leaves them running until Stop. It is safe to call
// more than once.
func (st *Steps) Stop() {
	if st.ahead != nil {
		st.ahead.stop()
		st.ahead = nil
	}
}

// Graph is the fill as a checkpointed run: one step per row, looping until no row is
// pending. A row that fails for itself is recorded and the run goes on; an error no row can
// get past (model host down, model missing, collection embedded otherwise), a failed save or
// a cancellation stops the run before the row, which a resume works again (the call journal
// replays the model calls the row, and the rows worked ahead of it, had finished).
func Graph(st *Steps) *agent.Graph[State] {
	return agent.NewGraph[State](GraphName).
		Node(NodeRow, st.fillNext).
		Route(NodeRow, func(s *State) string {
			if s.Next < len(s.Rows) {
				return NodeRow
			}
			return agent.End
		})
}

// fillNext is the fill's node: it takes the next row, worked ahead with the run's call (see
// FillRow), and saves it.
func (st *Steps) fillNext(ctx context.Context, call llm.Call, s *State) (*agent.Interrupt, error) {
	if s.Next >= len(s.Rows) {
		st.Stop()
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		st.Stop()
		return nil, err
	}
	if st.ahead != nil && !st.ahead.fits(s) {
		st.Stop() // another run, or this one going again from an earlier row
	}
	if st.ahead == nil {
		st.ahead = st.startAhead(ctx, call, s)
	}
	job := st.ahead.wait(ctx, s.Next)
	switch {
	case ctx.Err() != nil:
		st.Stop()
		return nil, ctx.Err()
	case job == nil:
		st.Stop()
		return nil, fmt.Errorf("row %d of gas table %q was not worked", s.Rows[s.Next], s.Table)
	case job.err != nil:
		st.Stop()
		return nil, job.err
	}
	res := job.res
	if res.err != nil && stopsTheFill(res.err) {
		st.Stop()
		return nil, fmt.Errorf("row %d (%s): %w", res.Row, res.Name, res.err)
	}
	if err := st.Save(context.WithoutCancel(ctx), s, &res); err != nil {
		st.Stop()
		return nil, fmt.Errorf("couldn't save row %d (%s): %w", res.Row, res.Name, err)
	}
	st.ahead.take(s.Next)
	if res.Err == "" {
		s.Done = append(s.Done, res.Row)
	}
	s.Results = append(s.Results, res)
	s.Next++
	if s.Next == len(s.Rows) {
		st.Stop()
		if st.Working != nil {
			st.Working(s.Next, len(s.Rows), "")
		}
	}
	return nil, nil
}

// Describe says what a step did, for the event stream.
func Describe(before, after *State) string {
	if len(after.Results) == len(before.Results) {
		return "no row left"
	}
	r := after.Results[len(after.Results)-1]
	name := r.Name
	if name == "" {
		name = "(no name)"
	}
	head := fmt.Sprintf("row %d %s (%d of %d)", r.Row, name, after.Next, len(after.Rows))
	switch {
	case r.Err != "":
		return head + ": failed: " + r.Err
	case !r.Grounded:
		return head + ": not filled: " + r.Identity
	}
	if r.Unsupported > 0 {
		return fmt.Sprintf("%s: %d cells filled, %d values no passage states (unsupported), %d model calls", head, r.Filled, r.Unsupported, r.Calls)
	}
	return fmt.Sprintf("%s: %d cells filled, %d model calls", head, r.Filled, r.Calls)
}

// Requeue makes a finished run work its failed rows again: they are appended to the pending
// rows. It reports whether there was any.
func Requeue(s *State) bool {
	failed := s.Failed()
	if len(failed) == 0 {
		return false
	}
	s.Rows = append(s.Rows[:s.Next:s.Next], failed...)
	return true
}

// NeedsFill reports whether a fill would ask for any of the row's cells: an empty, rejected or
// to-review cell other than the name.
func NeedsFill(row *gas.Row) bool { return len(emptyFields(row)) > 0 }

// FillRow works one row and returns what it did; the row is changed in place as cells fill.
// Nothing is saved. An error that stopped the row is in the result (Err). The row's model
// calls are made as call (the fill run's, whose journal replays the calls of a row worked
// before a crash) but metered by a run of the row's own, which counts them (RowResult.Calls)
// and hands them to Ledger under the node name gasfill.
func (f *Filler) FillRow(ctx context.Context, call llm.Call, row *gas.Row) RowResult {
	return f.fillRow(ctx, call, row)
}

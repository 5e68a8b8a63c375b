package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"warren/agent"
	"warren/agent/gasfill"
	"warren/gas"
	"warren/llm"
	"warren/service/jobs"
)

// ErrNoUnfinishedFill means a table has no fill to resume: none ran, or the latest finished.
var ErrNoUnfinishedFill = errors.New("no interrupted fill")

// What the front ends see of a fill's run, under names of the gas desk.

// GasFillState is a fill run's state: its table, fill, tiers and rows, the next row to work
// and the results of the rows worked.
type GasFillState = gasfill.State

// GasRowResult is what a fill did in one row: the cells it filled, its model calls, whether
// the substance was grounded, and the error that stopped the row, if any.
type GasRowResult = gasfill.RowResult

// GasFillNodeRow is the node of a fill's run that works one row; its notes say which
// ("filling row 3 of 41: Silane").
const GasFillNodeRow = gasfill.NodeRow

// GasFillResult is how one Start or Resume call of a gas fill ended.
type GasFillResult struct {
	Run     string              `json:"run"` // the fill's run and job id, and its ledger run
	Fill    int64               `json:"fill"`
	Table   string              `json:"table"`
	Status  string              `json:"status"`  // the run's status (agent.StatusDone, …)
	Results []gasfill.RowResult `json:"results"` // the rows worked in this call, in the order worked
	// AlreadyDone reports a resume that found every row of the fill done: nothing ran.
	AlreadyDone bool `json:"already_done,omitempty"`
	// Finished reports that the fill is complete: every row done (a failed row leaves it open).
	Finished bool `json:"finished"`
	// State is the run's state after the call.
	State *gasfill.State `json:"state,omitempty"`
}

// GasFillRun names the run (and job, and ledger run) of a recorded fill.
func GasFillRun(fill int64) string { return fmt.Sprintf("gasfill-%d", fill) }

// StartFill fills the empty cells of a gas table, rows in table order, searching the
// collections tiers in order (the default tiers when empty). Without rows it takes the rows a
// fill would ask cells of (GasDefaultFillRows); a table without any is refused with a
// *GasRefusal that wraps ErrGasNothingToFill. The fill runs as a job on the graph runtime, one
// checkpointed step per row: each finished row is saved at once, its model calls go into the
// workspace ledger under the run id and its events to sink (which may be nil). Cancelling ctx
// cancels the job; finished rows stay saved and ResumeFill goes on with the rest. The table
// is the one Resolve names, and it must have every row asked for (a *GasRowError names
// the first it has not).
func (g *Gas) StartFill(ctx context.Context, table string, rows []int, tiers []string, sink RunSink) (GasFillResult, error) {
	s := g.s
	t, err := s.Gas().Table(ctx, table, rows...)
	if err != nil {
		return GasFillResult{}, err
	}
	if len(rows) == 0 {
		if rows, err = GasFillRows(t); err != nil {
			return GasFillResult{Table: t.Name}, err
		}
	}
	if len(tiers) == 0 {
		tiers = gasfill.DefaultTiers
	}
	want := map[int]bool{}
	for _, id := range rows {
		want[id] = true
	}
	var ids []int
	for _, r := range t.Rows {
		if want[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	table = t.Name
	fill, err := s.GasStore().StartFill(ctx, table, rows, tiers)
	if err != nil {
		return GasFillResult{}, err
	}
	state := &gasfill.State{Table: table, Fill: fill, Tiers: tiers, Rows: ids}
	run := GasFillRun(fill)
	title := fmt.Sprintf("gas fill of %s (%d rows)", table, len(ids))
	return s.gasFillJob(ctx, run, title, state, sink, func(ctx context.Context, r *agent.Runner[gasfill.State]) (agent.Outcome, error) {
		return r.Start(ctx, run, title, state)
	})
}

// UnfinishedFill returns the table's latest fill when it has not finished: ResumeFill
// goes on with it.
func (g *Gas) UnfinishedFill(ctx context.Context, table string) (gas.Fill, bool, error) {
	last, ok, err := g.s.GasStore().LastFill(ctx, table)
	if err != nil || !ok || last.Finished {
		return gas.Fill{}, false, err
	}
	return last, true, nil
}

// ResumeFill goes on with the table's latest unfinished fill: a cancelled, stopped or
// killed run continues with its remaining rows (the row in flight is worked again, and the
// call journal replays the model calls it had finished), and a run whose rows all ran works
// its failed rows again. The error wraps ErrNoUnfinishedFill when there is nothing to resume.
func (g *Gas) ResumeFill(ctx context.Context, table string, sink agent.Sink) (GasFillResult, error) {
	last, ok, err := g.UnfinishedFill(ctx, table)
	if err != nil {
		return GasFillResult{}, err
	}
	if !ok {
		return GasFillResult{Table: table}, fmt.Errorf("%w of %q to resume", ErrNoUnfinishedFill, table)
	}
	run, store := GasFillRun(last.ID), g.s.RunStore()
	title := "gas fill of " + table // a job recorded before keeps its own title
	nothingLeft := func() (GasFillResult, error) {
		if err := g.s.GasStore().FinishFill(ctx, last.ID); err != nil {
			return GasFillResult{}, fmt.Errorf("couldn't close fill %d: %w", last.ID, err)
		}
		return GasFillResult{Run: run, Fill: last.ID, Table: table, Status: agent.StatusDone, AlreadyDone: true, Finished: true}, nil
	}
	cp, err := store.Latest(ctx, run)
	if errors.Is(err, agent.ErrNoRun) {
		// A fill recorded without a run (an older warren, or a run removed with `warren
		// sessions rm`): a new run under its id works the rows it had not finished.
		t, err := g.s.GasStore().LoadTable(ctx, table)
		if err != nil {
			return GasFillResult{}, err
		}
		state := &gasfill.State{Table: table, Fill: last.ID, Tiers: last.Tiers, Rows: remainingRows(t, last)}
		if len(state.Rows) == 0 {
			return nothingLeft()
		}
		title = fmt.Sprintf("gas fill of %s (%d rows)", table, len(state.Rows))
		return g.s.gasFillJob(ctx, run, title, state, sink, func(ctx context.Context, r *agent.Runner[gasfill.State]) (agent.Outcome, error) {
			return r.Start(ctx, run, title, state)
		})
	}
	if err != nil {
		return GasFillResult{}, err
	}
	state := &gasfill.State{}
	if err := json.Unmarshal(cp.State, state); err != nil {
		return GasFillResult{}, fmt.Errorf("couldn't read the state of run %s: %w", run, err)
	}
	if cp.Status == agent.StatusDone {
		if !gasfill.Requeue(state) {
			return nothingLeft()
		}
		// The failed rows are queued again in a checkpoint of their own, so the run goes on
		// from there under the same id, journal and ledger.
		data, err := json.Marshal(state)
		if err != nil {
			return GasFillResult{}, fmt.Errorf("couldn't encode the state of run %s: %w", run, err)
		}
		if err := store.Save(ctx, agent.Checkpoint{Run: run, Step: cp.Step + 1, Node: gasfill.NodeRow, Next: gasfill.NodeRow,
			Status: agent.StatusRunning, State: data}); err != nil {
			return GasFillResult{}, err
		}
	}
	return g.s.gasFillJob(ctx, run, title, state, sink, func(ctx context.Context, r *agent.Runner[gasfill.State]) (agent.Outcome, error) {
		return r.Resume(ctx, run, nil, state)
	})
}

// gasFillCall is one Start or Resume call of a fill run.
type gasFillCall func(ctx context.Context, r *agent.Runner[gasfill.State]) (agent.Outcome, error)

// gasFillJob runs one call of a fill run as its job: progress in rows, events to every
// subscriber (sink among them), the model calls metered into the ledger under the run id and
// replayed from its journal.
func (s *Service) gasFillJob(ctx context.Context, run, title string, state *gasfill.State, sink agent.Sink, call gasFillCall) (GasFillResult, error) {
	res := GasFillResult{Run: run, Fill: state.Fill, Table: state.Table, State: state}
	before := len(state.Results)
	decisions, err := s.GasStore().Decisions(ctx, state.Table, 0, "")
	if err != nil {
		return res, err
	}
	opts := gasfill.DefaultOptions()
	opts.MinConfidence = s.ws.Config.Thresholds.FillConfidence
	opts.OverwriteMargin = s.ws.Config.Thresholds.OverwriteMargin
	opts.Tiers = state.Tiers
	store := s.RunStore()
	var outcome agent.Outcome
	var callErr error
	work := func(jctx context.Context, em *jobs.Emitter) (_ string, err error) {
		// A panic anywhere in the call fails it, for the caller as for the job.
		defer func() {
			if v := recover(); v != nil {
				outcome, err = agent.Outcome{Run: run, Status: agent.StatusFailed}, agent.NewPanicError(v)
				callErr = err
			}
		}()
		filler := s.gasFiller(opts, gasfill.RejectedValues(decisions))
		filler.Ledger = func(e llm.LedgerEntry) {
			e.Run = run
			if err := store.RecordLedger(context.WithoutCancel(jctx), e); err != nil {
				s.log.Warn("couldn't keep a ledger entry", "run", run, "error", err)
			}
			em.Agent(agent.Event{Time: time.Now(), Run: run, Node: e.Node, Kind: agent.EventLedger, Ledger: &e})
		}
		// A worked row is written in one transaction; cells the analyst changed meanwhile are
		// kept, and a failed row is not marked done, so that a resume works it again.
		save := func(ctx context.Context, state *gasfill.State, r *gasfill.RowResult) error {
			return gasfill.SaveRow(ctx, s.GasStore(), state, r)
		}
		steps := &gasfill.Steps{Filler: filler, Row: s.gasRow, Save: save,
			Working: func(done, total int, name string) {
				if name != "" {
					em.Agent(agent.Event{Time: time.Now(), Run: run, Node: gasfill.NodeRow, Kind: agent.EventNote,
						Summary: fmt.Sprintf("filling row %d of %d: %s", done+1, total, name)})
				}
				em.Progress(jobs.Progress{Done: done, Total: total, Current: name})
			}}
		r := &agent.Runner[gasfill.State]{Graph: gasfill.Graph(steps), Store: store, Sink: em.Agent, Describe: gasfill.Describe,
			StepLimit: math.MaxInt32} // one step per row: the run ends when the rows do
		r.Call = llm.Call{Journal: store.Journal(run)} // rows worked before a crash replay their calls
		outcome, callErr = call(jctx, r)
		steps.Stop() // rows worked ahead of a run that stopped early
		if callErr != nil {
			return "", callErr
		}
		if len(state.Failed()) == 0 {
			if err := s.GasStore().FinishFill(context.WithoutCancel(jctx), state.Fill); err != nil {
				return "", fmt.Errorf("couldn't close fill %d: %w", state.Fill, err)
			}
			res.Finished = true
		}
		return jobs.JobDone, nil
	}
	_, sub, err := s.jobs.StartAttached(ctx, run, jobs.KindGasFill, s.Owner, title, work)
	if err != nil {
		return res, err
	}
	forward(ctx, s.jobs, run, sub, sink)
	res.Status = outcome.Status
	if before <= len(state.Results) {
		res.Results = slices.Clone(state.Results[before:])
	}
	return res, jobs.PanicFailure(run, callErr)
}

// gasRow loads one row of a table as it is stored now.
func (s *Service) gasRow(ctx context.Context, table string, id int) (*gas.Row, error) {
	t, err := s.GasStore().LoadTable(ctx, table)
	if err != nil {
		return nil, err
	}
	row := t.Row(id)
	if row == nil {
		return nil, fmt.Errorf("gas table %q has no row %d any more", table, id)
	}
	return row, nil
}

// remainingRows lists the rows of an unfinished fill it had not finished, in table order.
func remainingRows(t *gas.Table, last gas.Fill) []int {
	var out []int
	for _, r := range t.Rows {
		if (len(last.Rows) == 0 || slices.Contains(last.Rows, r.ID)) && !slices.Contains(last.Done, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// GasFillSummary is what one call of a fill did, in numbers and row by row.
type GasFillSummary struct {
	Table  string `json:"table"`
	Rows   int    `json:"rows"`
	Filled int    `json:"filled"`
	Review int    `json:"review"`
	// Unsupported counts the values the model gave that no passage it was offered states:
	// kept for review as gas.StatusUnsupported, never counted as filled.
	Unsupported int                 `json:"unsupported"`
	CallsMedian float64             `json:"calls_per_row_median"`
	CallsMax    int                 `json:"calls_per_row_max"`
	NotGrounded []string            `json:"not_grounded,omitempty"`
	Failed      int                 `json:"failed,omitempty"`
	Results     []gasfill.RowResult `json:"results"`
	Interrupted bool                `json:"interrupted,omitempty"`
	LedgerRun   string              `json:"ledger_run"` // the fill's model calls in the workspace ledger
}

// Summary counts the rows worked, the cells filled and those left for review, the model
// calls per row (median and maximum), the rows that could not be grounded and those that
// failed. A row never started (the fill was cancelled first) does not count.
func (r GasFillResult) Summary() GasFillSummary {
	sum := GasFillSummary{Table: r.Table, Results: r.Results, LedgerRun: r.Run}
	var calls []int
	for _, row := range r.Results {
		if row.Name == "" && row.Row == 0 {
			continue
		}
		sum.Rows++
		calls = append(calls, row.Calls)
		sum.CallsMax = max(sum.CallsMax, row.Calls)
		for _, c := range row.Changes {
			if c.After.Status == gas.StatusUnsupported {
				sum.Unsupported++
				continue
			}
			sum.Filled++
			if c.After.Status == gas.StatusReview {
				sum.Review++
			}
		}
		if row.Err != "" {
			sum.Failed++
			continue
		}
		if !row.Grounded {
			name := row.Name
			if strings.TrimSpace(name) == "" {
				name = fmt.Sprintf("row %d", row.Row)
			}
			sum.NotGrounded = append(sum.NotGrounded, fmt.Sprintf("%s (%s)", name, row.Identity))
		}
	}
	slices.Sort(calls)
	if n := len(calls); n > 0 {
		sum.CallsMedian = float64(calls[n/2])
		if n%2 == 0 {
			sum.CallsMedian = float64(calls[n/2-1]+calls[n/2]) / 2
		}
	}
	return sum
}

// FirstFailure is the first row that failed, if any did.
func (s GasFillSummary) FirstFailure() (gasfill.RowResult, bool) {
	for _, r := range s.Results {
		if r.Err != "" {
			return r, true
		}
	}
	return gasfill.RowResult{}, false
}

// GasFillProgress reads a fill's progress from one of its events: once a row is worked, the
// rows done, their total and the name of the row just worked.
func GasFillProgress(ev agent.Event) (done, total int, name string, ok bool) {
	var s gasfill.State
	if ev.Kind != agent.EventNodeFinished || json.Unmarshal(ev.State, &s) != nil || len(s.Results) == 0 {
		return 0, 0, "", false
	}
	return s.Next, len(s.Rows), s.Results[len(s.Results)-1].Name, true
}

// gasFiller is a fill's filler for this view's analyst: it searches and reads only the
// collections they may read.
func (s *Service) gasFiller(opts gasfill.Options, rejected map[gas.CellRef]map[string]bool) *gasfill.Filler {
	return &gasfill.Filler{Gateway: s.gateway, Searcher: s.Searcher(), Store: s.reader(), Options: opts, Rejected: rejected}
}

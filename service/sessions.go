package service

import (
	"context"
	"encoding/json"
	"fmt"

	"warren/agent"
	"warren/agent/research"
	"warren/llm"
	"warren/service/jobs"
)

// SessionRow is a saved run as `warren sessions list` gives it: the run, who owns its job, and
// its state in the words every listing uses (jobs.RunStateOf).
type SessionRow struct {
	agent.RunInfo
	Owner      string `json:"owner,omitempty"`
	State      string `json:"state"`
	WaitingFor string `json:"waiting_for,omitempty"`
}

// Shown is the row's state in words ("waiting for alice").
func (r SessionRow) Shown() jobs.Shown { return jobs.Shown{State: r.State, WaitingFor: r.WaitingFor} }

// Sessions lists every saved run, of every graph (research, gas fills, edits), newest first,
// each with its state read with its job's record.
func (rs *Research) Sessions(ctx context.Context) ([]SessionRow, error) {
	runs, err := rs.s.RunStore().Runs(ctx)
	if err != nil {
		return nil, err
	}
	list, err := rs.s.jobs.List(ctx)
	if err != nil {
		return nil, err
	}
	return SessionRows(runs, list), nil
}

// SessionRows joins runs with their jobs (a run's job has its id) into listing rows.
func SessionRows(runs []agent.RunInfo, list []jobs.Job) []SessionRow {
	byID := make(map[string]*jobs.Job, len(list))
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	out := make([]SessionRow, len(runs))
	for i, r := range runs {
		j := byID[r.ID]
		s := jobs.RunStateOf(r, j)
		out[i] = SessionRow{RunInfo: r, State: s.State, WaitingFor: s.WaitingFor}
		if j != nil {
			out[i].Owner = j.Owner
		}
	}
	return out
}

// Session is one saved run: where it stands, its trail of steps, its ledger and usage, who
// answered its questions and plans, and (not in its JSON) its research state with its
// references counted by state.
type Session struct {
	Checkpoint agent.Checkpoint   `json:"checkpoint"`
	Ledger     []llm.LedgerEntry  `json:"ledger"`
	Steps      []agent.Checkpoint `json:"steps"`
	Usage      llm.Usage          `json:"usage"`
	// Decisions are the analysts' answers to the run, oldest first ([] for a run that had
	// none, or was answered before names were recorded).
	Decisions  []research.Decision `json:"decisions"`
	State      research.State      `json:"-"`
	References map[string]int      `json:"-"`
}

// Session loads a saved run; a run that is not there is an error wrapping agent.ErrNoRun.
func (rs *Research) Session(ctx context.Context, run string) (Session, error) {
	store := rs.s.RunStore()
	latest, err := store.Latest(ctx, run)
	if err != nil {
		return Session{}, err
	}
	sess := Session{Checkpoint: latest}
	// The trail is shown as far as it can be read: a run of another graph has no research
	// state, and its ledger may be empty.
	sess.Steps, _ = store.Checkpoints(ctx, run)
	sess.Ledger, _ = store.Ledger(ctx, run)
	sess.Usage, _ = store.Usage(ctx, run)
	json.Unmarshal(latest.State, &sess.State)
	// Another analyst's run shows as they may see it: its steps' states, its latest state and
	// its question withheld where it used collections they may not read.
	sight, err := rs.s.sightOf(ctx, run)
	if err != nil {
		return Session{}, err
	}
	if !sight.whole {
		cp, shown := sight.checkpoint(ctx, latest, &sess.State)
		sess.Checkpoint, sess.State = cp, *shown
		for i, step := range sess.Steps {
			var st research.State
			if json.Unmarshal(step.State, &st) == nil {
				sess.Steps[i], _ = sight.checkpoint(ctx, step, &st)
			} else {
				sess.Steps[i].State = nil
			}
		}
	}
	sess.References = ReferenceStates(&sess.State)
	sess.Decisions = sess.State.Decisions
	if sess.Decisions == nil {
		sess.Decisions = []research.Decision{}
	}
	return sess, nil
}

// ReferenceStates counts a run's references by state (followed, skipped, unresolved).
func ReferenceStates(st *research.State) map[string]int {
	counts := map[string]int{}
	for _, r := range st.References {
		counts[r.State]++
	}
	return counts
}

// RemoveRuns removes saved runs with their checkpoints, ledger and call journal, stopping at
// the first run that is not there.
func (rs *Research) RemoveRuns(ctx context.Context, runs []string) error {
	store := rs.s.RunStore()
	for _, run := range runs {
		ok, err := store.DeleteRun(ctx, run)
		if err != nil {
			return fmt.Errorf("couldn't remove run %s: %w", run, err)
		}
		if !ok {
			return fmt.Errorf("no run %q: `warren sessions list` shows the runs there are", run)
		}
	}
	return nil
}

package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"warren/agent"
	"warren/agent/research"
	"warren/service/jobs"
)

// Jobs is the long work of every analyst (research runs, gas fills, ingests, batches) as jobs:
// listing them, cancelling them and resuming those a stop interrupted. Only a job's owner or
// an admin cancels it (ErrNotOwner).
type Jobs struct{ s *Service }

// Jobs is the jobs desk of this view: it cancels as this view's analyst.
func (s *Service) Jobs() *Jobs { return &Jobs{s: s} }

// ErrNotOwner means an analyst tried to answer, approve or cancel another analyst's job.
var ErrNotOwner = errors.New("not your job")

// ErrDetached means a watcher stopped watching; the job it watched goes on.
var ErrDetached = errors.New("stopped watching; the job goes on")

// Analyst names who this view of the service acts for, and whether they are an admin.
func (s *Service) Analyst() (name string, admin bool) { return s.Owner, s.Admin }

// Owner is the analyst who started the job (or run) id; "" when none is recorded.
func (js *Jobs) Owner(ctx context.Context, id string) (string, error) {
	job, err := js.s.jobs.Get(ctx, id)
	if errors.Is(err, jobs.ErrNoJob) {
		return "", nil
	}
	return job.Owner, err
}

// mayDecide refuses, in words, an analyst who is neither the job's owner nor an admin.
func (s *Service) mayDecide(ctx context.Context, id, what string) error {
	owner, err := s.Jobs().Owner(ctx, id)
	if err != nil {
		return err
	}
	if !s.MayDecide(owner) {
		return fmt.Errorf("%w: %s was started by %s; only %s (or an admin) can %s it — you can watch it",
			ErrNotOwner, id, owner, owner, what)
	}
	return nil
}

// Cancel cancels a running job of this analyst's (any job, for an admin).
func (js *Jobs) Cancel(ctx context.Context, id string) error {
	if err := js.s.mayDecide(ctx, id, "cancel"); err != nil {
		return err
	}
	return js.s.jobs.Cancel(id)
}

// List lists every analyst's jobs, newest first.
func (js *Jobs) List(ctx context.Context) ([]jobs.Job, error) {
	list, err := js.s.jobs.List(ctx)
	for i := range list {
		js.s.hideSnapshot(&list[i])
	}
	return list, err
}

// hideSnapshot drops the latest state of another analyst's job from a served analyst's copy:
// Watch and RunState give it, as they may see it.
func (s *Service) hideSnapshot(j *jobs.Job) {
	if !s.isAdmin() && j.Owner != s.Owner {
		j.Snapshot = nil
	}
}

// Live is the run to land in when this analyst comes back: their latest research run
// that is running or waiting for them, else (when since is set) the latest that ended after
// since, when they were last here; ok is false when there is none.
func (rs *Research) Live(ctx context.Context, since time.Time) (jobs.Job, bool, error) {
	list, err := rs.s.jobs.List(ctx)
	if err != nil {
		return jobs.Job{}, false, err
	}
	var ended *jobs.Job
	for i, j := range list {
		if j.Kind != jobs.KindResearch || j.Owner != rs.s.Owner {
			continue
		}
		if j.State == jobs.JobRunning || j.State == jobs.JobWaiting {
			return j, true, nil
		}
		if !since.IsZero() && j.Updated.After(since) && (ended == nil || j.Updated.After(ended.Updated)) {
			ended = &list[i]
		}
	}
	if ended != nil {
		return *ended, true, nil
	}
	return jobs.Job{}, false, nil
}

// Watch attaches to a research run's job: sink first gets the run's record and latest state,
// then every live event, until the job ends or waits (a watcher goes on with GoesOn and Watch
// again); cancelling ctx only detaches (ErrDetached), the run goes on. The outcome is read from
// the run's checkpoint once the job has ended, so a run that stopped at a question comes back
// with it. A run that is not running gives its saved state.
func (rs *Research) Watch(ctx context.Context, run string, sink agent.Sink) (agent.Outcome, *research.State, error) {
	var failed string // why the job failed, when it did
	sight, err := rs.s.sightOf(ctx, run)
	if err != nil {
		return agent.Outcome{Run: run}, nil, err
	}
	sink = sight.sink(ctx, sink)
	sub, err := rs.s.jobs.Subscribe(ctx, run)
	if err != nil && !errors.Is(err, jobs.ErrNoJob) {
		return agent.Outcome{Run: run}, nil, err
	}
	if sub != nil {
		last, err := rs.follow(ctx, run, sub, sink)
		if err != nil {
			cp, st, _ := rs.RunState(context.WithoutCancel(ctx), run)
			return agent.Outcome{Run: run, Status: cp.Status, Step: cp.Step}, st, err
		}
		if last.State == jobs.JobFailed {
			failed = last.Error
		}
	}
	if ctx.Err() != nil {
		return agent.Outcome{Run: run}, nil, ErrDetached
	}
	cp, st, err := rs.RunState(context.WithoutCancel(ctx), run)
	if failed != "" {
		// The job's own words: a panic outside the run's steps leaves no failed checkpoint.
		return agent.Outcome{Run: run, Status: agent.StatusFailed, Step: cp.Step}, st, errors.New(failed)
	}
	if err != nil {
		return agent.Outcome{Run: run}, nil, err
	}
	out := agent.Outcome{Run: run, Status: cp.Status, Interrupt: cp.Interrupt, Step: cp.Step}
	switch cp.Status {
	case agent.StatusCanceled:
		return out, st, fmt.Errorf("run %s: %w", run, context.Canceled)
	case agent.StatusFailed:
		return out, st, fmt.Errorf("run %s failed: %s", run, cp.Error)
	}
	return out, st, nil
}

// follow passes on a subscription's events until it ends: first, for a late watcher, the run's
// record up to the subscription's first event, then where it stands, then the live events.
func (rs *Research) follow(ctx context.Context, run string, sub *jobs.Subscription, sink agent.Sink) (jobs.Job, error) {
	stop := context.AfterFunc(ctx, sub.Detach)
	defer stop()
	first := true
	var last jobs.Job
	for {
		evs, more := sub.Next()
		for _, e := range evs {
			last = e.Job
			switch {
			case e.Agent != nil && sink != nil:
				sink(*e.Agent)
			case first && sink != nil:
				// A late watcher first gets the run's record up to now (its steps and model
				// calls, as any watcher since its start saw them), then where it stands: its
				// step in flight, what it does now and its latest state.
				replayed := rs.replay(ctx, run, e.Seq, sink)
				if e.Job.Node != "" && !replayed {
					sink(agent.Event{Time: e.Job.NodeStarted, Run: run, Node: e.Job.Node, Kind: agent.EventNodeStarted})
				}
				if e.Job.Node != "" || len(e.Job.Snapshot) > 0 {
					sink(agent.Event{Time: e.Job.Updated, Run: run, Node: e.Job.Node, Kind: agent.EventNote, Summary: e.Job.Progress.Current, State: e.Job.Snapshot})
				}
			}
			first = false
		}
		if !more {
			break
		}
	}
	if ctx.Err() == nil && last.State == jobs.JobRunning {
		// Following it (here or in another process) stopped before it ended: its record
		// could not be read any more.
		return last, fmt.Errorf("lost track of run %s while it runs (its record could not be read): open it again from the sessions", run)
	}
	return last, nil
}

// resumePoll is how often a watcher looks whether a waiting run goes on.
const resumePoll = 250 * time.Millisecond

// GoesOn waits while the run waits for its analyst, and reports whether it runs again (false
// when it ended otherwise, or ctx ended): a watcher, who can't answer, follows the run on once
// its analyst has (in a workbench, or a CLI run answering itself).
func (rs *Research) GoesOn(ctx context.Context, run string) bool {
	tick := time.NewTicker(resumePoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		job, err := rs.s.jobs.Get(ctx, run)
		if err != nil {
			return false
		}
		switch job.State {
		case jobs.JobWaiting:
		case jobs.JobRunning:
			return true
		default:
			return false
		}
	}
}

// WatchFill follows the table's unfinished fill while it runs as a job (started by another
// connection, or before this analyst's connection dropped): attached gets the job once, sink
// where it stands and then its live events, until it ends. Cancelling ctx only stops watching
// (ErrDetached). With no fill of the table running, the error wraps jobs.ErrNoJob at once.
func (g *Gas) WatchFill(ctx context.Context, table string, attached func(jobs.Job), sink agent.Sink) (jobs.Job, error) {
	last, ok, err := g.UnfinishedFill(ctx, table)
	if err != nil {
		return jobs.Job{}, err
	}
	if !ok {
		return jobs.Job{}, fmt.Errorf("%w: no fill of %s is running", jobs.ErrNoJob, table)
	}
	run := GasFillRun(last.ID)
	sink = g.s.fillSink(ctx, sink)
	if job, err := g.s.jobs.Get(ctx, run); err != nil || job.State != jobs.JobRunning {
		return job, fmt.Errorf("%w: no fill of %s is running", jobs.ErrNoJob, table)
	}
	sub, err := g.s.jobs.Subscribe(ctx, run)
	if err != nil {
		return jobs.Job{}, err
	}
	stop := context.AfterFunc(ctx, sub.Detach)
	defer stop()
	var job jobs.Job
	first := true
	for {
		evs, more := sub.Next()
		for _, e := range evs {
			job = e.Job
			if first && attached != nil && job.State == jobs.JobRunning {
				attached(job)
			}
			first = false
			switch {
			case e.Agent != nil && sink != nil:
				sink(*e.Agent)
			case len(e.Job.Snapshot) > 0 && sink != nil:
				sink(agent.Event{Time: e.Job.Updated, Run: run, Kind: agent.EventNodeFinished, State: e.Job.Snapshot})
			}
		}
		if !more {
			break
		}
	}
	if ctx.Err() != nil {
		return job, ErrDetached
	}
	if job.State == jobs.JobRunning {
		// Following it (here or in another process) stopped before it ended: its record could
		// not be read any more.
		return job, fmt.Errorf("lost track of the fill of %s while it runs (its record could not be read): r reloads the table", table)
	}
	if job.State == jobs.JobCanceled {
		return job, fmt.Errorf("%s: %w", job.Title, context.Canceled)
	}
	if job.Error != "" {
		return job, errors.New(job.Error)
	}
	return job, nil
}

// replay hands sink a run's recorded steps and model calls up to event upTo (the run's whole
// record, across its starts), for a view that attaches late; false when none are recorded.
func (rs *Research) replay(ctx context.Context, run string, upTo int64, sink agent.Sink) bool {
	if upTo <= 0 {
		return false
	}
	evs, err := rs.history(context.WithoutCancel(ctx), run, upTo) // sink withholds what it must
	if err != nil {
		return false
	}
	for _, e := range evs {
		sink(e)
	}
	return len(evs) > 0
}

// History is what a run's record holds of its events up to the event numbered seq (all of them
// when seq is 0), in order, for any analyst (as they may see it, see RunState): its steps started and finished, model calls,
// notes and errors, across its starts, whichever process ran it. Streamed tokens are not kept,
// nor the state after each step (RunState has the latest).
func (rs *Research) History(ctx context.Context, run string, seq int64) ([]agent.Event, error) {
	evs, err := rs.history(ctx, run, seq)
	if err != nil {
		return nil, err
	}
	sight, err := rs.s.sightOf(ctx, run)
	if err != nil {
		return nil, err
	}
	out := evs[:0]
	for _, e := range evs {
		if shown, ok := sight.event(ctx, e); ok {
			out = append(out, shown)
		}
	}
	return out, nil
}

// history is a run's recorded events up to seq, whole.
func (rs *Research) history(ctx context.Context, run string, seq int64) ([]agent.Event, error) {
	evs, err := rs.s.jobs.History(ctx, run, seq)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Event, 0, len(evs))
	for _, e := range evs {
		if e.Agent != nil {
			out = append(out, *e.Agent)
		}
	}
	return out, nil
}

// Get returns one job: the live one if it runs in this process, else its record; the error
// wraps jobs.ErrNoJob when there is none.
func (js *Jobs) Get(ctx context.Context, id string) (jobs.Job, error) {
	j, err := js.s.jobs.Get(ctx, id)
	js.s.hideSnapshot(&j)
	return j, err
}

// Start runs work as the job id in this view's analyst's name and returns once the job is
// recorded; it ends as the work says, and any analyst's workbench can follow it. The use cases
// start their own jobs; this one is for work of the caller's (a server's own, a test's).
func (js *Jobs) Start(ctx context.Context, id, kind, title string, work jobs.Work) (jobs.Job, error) {
	return js.s.jobs.Start(ctx, id, kind, js.s.Owner, title, work)
}

// LimitPerAnalyst caps the jobs one analyst may have running at once (0: no cap), for
// every view of this service.
func (js *Jobs) LimitPerAnalyst(n int) { js.s.jobs.LimitPerOwner(n) }

// Shutdown stops every running job at a consistent point and records it as interrupted,
// so that the next process resumes it (see ResumeInterrupted); no job starts afterwards. Close
// still closes the workspace.
func (js *Jobs) Shutdown() { js.s.jobs.Shutdown() }

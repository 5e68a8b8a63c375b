package service

import (
	"context"

	"warren/agent"
	"warren/agent/research"
	"warren/service/jobs"
)

// ResearchCall is one Start or Resume call of a research run.
type ResearchCall func(ctx context.Context) (agent.Outcome, *research.State, error)

// InJob runs one call of a research run as the run's job: the job is recorded with its owner
// and state, every event goes to any subscriber (the caller's sink among them), and cancelling
// ctx cancels the job, which stops at its last checkpoint and stays resumable. svc is the
// research service the call uses; its sink is the job's while the call runs.
func (s *Service) InJob(ctx context.Context, run, title string, svc *research.Service, call ResearchCall) (agent.Outcome, *research.State, error) {
	sink := svc.Sink
	var (
		out   agent.Outcome
		state *research.State
		err   error
	)
	work := func(jctx context.Context, em *jobs.Emitter) (string, error) {
		svc.Sink = em.Agent
		defer func() { svc.Sink = sink }()
		out, state, err = callResearch(jctx, run, call)
		switch {
		case err != nil:
			return "", err
		case out.Status == agent.StatusInterrupted:
			return jobs.JobWaiting, nil
		}
		return jobs.JobDone, nil
	}
	if title == "" {
		// A run that is not there is refused before any job is recorded for it: a job would
		// stay behind as failed.
		if _, err := s.RunStore().Latest(ctx, run); err != nil {
			return agent.Outcome{}, nil, err
		}
		// A resumed run (answered, approved or going on) is its owner's to resume.
		if err := s.mayDecide(ctx, run, "answer or resume"); err != nil {
			return agent.Outcome{Run: run}, nil, err
		}
		title = run // a resumed run's job keeps the title it was recorded with
	}
	if jerr := s.runJob(ctx, run, jobs.KindResearch, title, work, sink); jerr != nil {
		return agent.Outcome{Run: run}, nil, jerr
	}
	return out, state, jobs.PanicFailure(run, err)
}

// callResearch makes one call of a run; a panic in it, outside the runner's nodes (which
// recover their own), fails the call with a *agent.PanicError, so that the caller learns of it
// as the job does.
func callResearch(ctx context.Context, run string, call ResearchCall) (out agent.Outcome, st *research.State, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, st, err = agent.Outcome{Run: run, Status: agent.StatusFailed}, nil, agent.NewPanicError(v)
		}
	}()
	return call(ctx)
}

// runJob runs work as a job for a caller that waits for it: the caller's sink gets the job's
// agent events, cancelling ctx cancels the job, and runJob returns when the job has ended. The
// error is only about starting it; the work's own outcome is the caller's to keep.
func (s *Service) runJob(ctx context.Context, id, kind, title string, work jobs.Work, sink agent.Sink) error {
	_, sub, err := s.jobs.StartAttached(ctx, id, kind, s.Owner, title, work)
	if err != nil {
		return err
	}
	forward(ctx, s.jobs, id, sub, sink)
	return nil
}

// forward hands a job's agent events to sink until the job ends; when ctx is cancelled first,
// the job is cancelled and its last events still arrive.
func forward(ctx context.Context, m *jobs.Manager, id string, sub *jobs.Subscription, sink agent.Sink) {
	stop := context.AfterFunc(ctx, func() { m.Cancel(id) })
	defer stop()
	for {
		evs, more := sub.Next()
		for _, e := range evs {
			if e.Agent != nil && sink != nil {
				sink(*e.Agent)
			}
		}
		if !more {
			return
		}
	}
}

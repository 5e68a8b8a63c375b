package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"warren/agent/gasfill"
	"warren/service/jobs"
)

// ResumeInterrupted goes on, in the background, with every research run and gas fill that
// was interrupted (its process stopped or died while it ran), each as the analyst who started
// it. It returns the jobs it resumed; interrupted ingests and toxicology batches are left for
// their analyst to start again (they are cheap to repeat and need their files). A job whose
// resume fails (an error or a panic, logged) ends failed, with the reason, so that the next
// start does not resume it into the same failure; one a shutdown stops stays interrupted.
func (js *Jobs) ResumeInterrupted(ctx context.Context) ([]jobs.Job, error) {
	return js.resumeInterrupted(ctx, func(owner string) *Service { return js.s.As(owner, false) })
}

// ResumeServed is ResumeInterrupted for `warren serve`: each job goes on as its analyst's
// served view (admin as isAdmin says), so it reads only the collections they may read now,
// never unconfined as the server's account.
func (js *Jobs) ResumeServed(ctx context.Context, isAdmin func(analyst string) bool) ([]jobs.Job, error) {
	return js.resumeInterrupted(ctx, func(owner string) *Service { return js.s.As(owner, isAdmin(owner)).Served() })
}

func (js *Jobs) resumeInterrupted(ctx context.Context, viewOf func(owner string) *Service) ([]jobs.Job, error) {
	list, err := js.s.jobs.List(ctx)
	if err != nil {
		return nil, err
	}
	var resumed []jobs.Job
	for _, j := range list {
		if j.State != jobs.JobInterrupted {
			continue
		}
		view := viewOf(j.Owner)
		var resume func(context.Context) error
		switch j.Kind {
		case jobs.KindResearch:
			resume = func(ctx context.Context) error {
				_, _, err := view.Research().Resume(ctx, j.ID, nil, nil)
				return err
			}
		case jobs.KindGasFill:
			table, err := js.s.gasFillTable(ctx, j.ID)
			if err != nil {
				js.s.log.Warn("couldn't resume an interrupted gas fill", "job", j.ID, "error", err)
				view.resumeFailed(ctx, j, err)
				continue
			}
			resume = func(ctx context.Context) error {
				_, err := view.Gas().ResumeFill(ctx, table, nil)
				return err
			}
		default:
			js.s.log.Info("an interrupted job is left for its analyst to start again", "job", j.ID, "kind", j.Kind, "owner", j.Owner)
			continue
		}
		resumed = append(resumed, j)
		go func() {
			var err error
			if perr := jobs.Guard(view.log, "resuming an interrupted job panicked", func() { err = resume(context.WithoutCancel(ctx)) },
				"job", j.ID, "kind", j.Kind, "owner", j.Owner); perr != nil {
				err = perr
			}
			if err != nil {
				view.log.Warn("a resumed job stopped with an error", "job", j.ID, "kind", j.Kind, "owner", j.Owner, "error", err)
				view.resumeFailed(ctx, j, err)
			}
		}()
	}
	return resumed, nil
}

// resumeFailed records a job whose resume failed before it ran as failed, with why; one that
// ran has ended in its own state already, and one a shutdown stopped is left interrupted.
func (s *Service) resumeFailed(ctx context.Context, j jobs.Job, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	reason := fmt.Sprintf("couldn't resume it when the server started: %v; resume it by hand once that is fixed", err)
	if _, ferr := s.jobs.FailInterrupted(ctx, j.ID, reason); ferr != nil {
		s.log.Warn("couldn't record a failed resume", "job", j.ID, "error", ferr)
	}
}

// gasFillTable reads which table a gas fill run fills from its latest checkpoint.
func (s *Service) gasFillTable(ctx context.Context, run string) (string, error) {
	cp, err := s.RunStore().Latest(ctx, run)
	if err != nil {
		return "", err
	}
	var st gasfill.State
	if err := json.Unmarshal(cp.State, &st); err != nil || st.Table == "" {
		return "", fmt.Errorf("run %s names no gas table (%v)", run, err)
	}
	return st.Table, nil
}

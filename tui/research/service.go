package research

import (
	"context"
	"encoding/json"
	"time"

	"warren/config"
	"warren/kb/chunk"
	"warren/service"
	"warren/service/jobs"
)

// Service is what the Research tab needs of warren: the research desk, the jobs of the team
// (landing in a live run, cancelling one), the passages a report cites and who is at the
// keyboard.
type Service interface {
	Desk
	Jobs
	Passages
	Session
}

// Desk is the research desk (service.Research) as the tab uses it.
type Desk interface {
	Start(ctx context.Context, run, question string, opts service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	Resume(ctx context.Context, run string, answer json.RawMessage, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	Runs(ctx context.Context) ([]service.RunInfo, error)
	// Watch follows a run's job live from its current state until it ends; cancelling ctx
	// only stops watching (service.ErrDetached).
	Watch(ctx context.Context, run string, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	// GoesOn waits while a run waits for its analyst and reports whether it runs again: a
	// watcher follows it on (Watch again) once they have answered.
	GoesOn(ctx context.Context, run string) bool
	// Live is the run to land in when the analyst comes back: their latest that is running or
	// waiting for them, else one that ended after since (when they were last here).
	Live(ctx context.Context, since time.Time) (jobs.Job, bool, error)
	// History is a run's recorded events up to event seq (all when 0), without streamed
	// tokens: the trail a view that attaches late rebuilds.
	History(ctx context.Context, run string, seq int64) ([]service.RunEvent, error)
	RunState(ctx context.Context, run string) (service.RunCheckpoint, *service.ResearchState, error)
	Ledger(ctx context.Context, run string) ([]service.LedgerEntry, error)
	// Export writes a finished run's report into the exports folder as md, docx, odt, pdf or
	// html and says where (exports/NAME to a served analyst).
	Export(ctx context.Context, run, format, out string) (string, error)
}

// Jobs is the part of the jobs desk (service.Jobs) the tab uses.
type Jobs interface {
	// List lists every analyst's jobs, newest first.
	List(ctx context.Context) ([]jobs.Job, error)
	// Cancel cancels a job of the analyst's own (any, for an admin); others' are refused with
	// an error that wraps service.ErrNotOwner.
	Cancel(ctx context.Context, id string) error
}

// Passages loads passages by their IDs (the tab opens cited passages): the knowledge desk's
// (service.Knowledge).
type Passages interface {
	Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error)
}

// Session is who the workbench acts for and what it may spend (service.Service).
type Session interface {
	// Analyst names who the workbench acts for (and whether they are an admin).
	Analyst() (name string, admin bool)
	// Budgets are the budgets configured today (a run keeps the one it started with).
	Budgets() config.Budgets
}

package research

import (
	"context"
	"encoding/json"
	"time"

	"warren/config"
	"warren/kb"
	"warren/service"
	"warren/service/jobs"
)

// Service is the part of warren's service the Research tab uses: runs, their jobs, their
// checkpoints and ledgers, and the passages a report cites.
type Service interface {
	StartResearch(ctx context.Context, run, question string, opts service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	ResumeResearch(ctx context.Context, run string, answer json.RawMessage, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	Runs(ctx context.Context) ([]service.RunInfo, error)
	// Budgets are the budgets configured today (a run keeps the one it started with).
	Budgets() config.Budgets
	// WatchResearch follows a run's job live from its current state until it ends; cancelling
	// ctx only stops watching (service.ErrDetached).
	WatchResearch(ctx context.Context, run string, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)

	// Analyst names who the workbench acts for (and whether they are an admin).
	Analyst() (name string, admin bool)
	// JobList lists every analyst's jobs, newest first.
	JobList(ctx context.Context) ([]jobs.Job, error)
	// LiveResearch is the run to land in when the analyst comes back: their latest that is
	// running or waiting for them, else one that ended after since (when they were last here).
	LiveResearch(ctx context.Context, since time.Time) (jobs.Job, bool, error)
	// CancelJob cancels a job of the analyst's own (any, for an admin); others' are refused
	// with an error that wraps service.ErrNotOwner.
	CancelJob(ctx context.Context, id string) error
	RunState(ctx context.Context, run string) (service.RunCheckpoint, *service.ResearchState, error)
	Ledger(ctx context.Context, run string) ([]service.LedgerEntry, error)
	ExportReport(run, markdown string) (string, error)

	// Chunks loads passages by their IDs (the tab opens cited passages).
	Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error)
}

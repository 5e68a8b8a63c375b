// Package tui is the Bubble Tea workbench: the root model, which routes messages to the panels,
// owns focus and quitting, and draws the frame around them. The panels live in packages of
// their own (logview, knowledge, gas, tox; the research tab is still here) behind
// component.Panel. The workbench reaches the rest of warren only through Backend, and only
// inside commands: Update never does I/O.
package tui

import (
	"context"
	"encoding/json"
	"time"

	"warren/config"
	"warren/doctor"
	"warren/kb"
	"warren/service"
	"warren/service/jobs"
	gaspanel "warren/tui/gas"
	"warren/tui/knowledge"
	toxpanel "warren/tui/tox"
)

// Backend is what the workbench needs from warren. cmd/warren implements it over a workspace;
// tests implement it over llmtest.
type Backend interface {
	// Each desk's panel declares the part of the service it uses.
	knowledge.Service
	gaspanel.Service
	toxpanel.Service

	Workspace() string
	Budgets() config.Budgets
	Doctor(ctx context.Context) doctor.Report

	StartResearch(ctx context.Context, run, question string, opts service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	ResumeResearch(ctx context.Context, run string, answer json.RawMessage, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error)
	Runs(ctx context.Context) ([]service.RunInfo, error)
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

	// Chunks loads passages by their IDs (the research tab opens cited passages).
	Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error)

	// Changes delivers the gas cell decisions and toxicology versions that other analysts (other
	// workbenches) make, until ctx ends; the workbench's own are not delivered. It never blocks
	// the analyst who made them: a reader that falls behind loses the oldest.
	Changes(ctx context.Context) <-chan service.Change
}

// GasQueryResult is the outcome of a gas-table query.
type GasQueryResult = service.GasQueryResult

// Package tui is the Bubble Tea workbench: the root model, its tabs and panels, styles and
// keys. It reaches the rest of warren only through Backend, and only inside commands: Update
// never does I/O.
package tui

import (
	"context"
	"encoding/json"
	"time"

	"warren/config"
	"warren/doctor"
	"warren/gas"
	"warren/kb"
	"warren/retrieval"
	"warren/service"
	"warren/service/jobs"
	"warren/tox"
)

// Backend is what the workbench needs from warren. cmd/warren implements it over a workspace;
// tests implement it over llmtest.
type Backend interface {
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

	Collections(ctx context.Context) ([]kb.CollectionInfo, error)
	Documents(ctx context.Context, collection string) ([]kb.DocInfo, error)
	DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error)
	Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error)
	Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error)
	// IngestPaths ingests files and folders into a collection. Served, each path begins with
	// the name of one of IngestRoots ("inbox/report.pdf"); others are refused with an error
	// that wraps service.ErrOutsideIngestRoots and names the folders allowed.
	IngestPaths(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error)
	// IngestRoots names the folders a served analyst may ingest from, as they type them; nil
	// when not served (any path the account can read), empty when the server allows none.
	IngestRoots() []string

	// GasTables lists the workspace's gas tables by name.
	GasTables(ctx context.Context) ([]string, error)
	// GasTable loads a gas table as it is stored.
	GasTable(ctx context.Context, name string) (*gas.Table, error)
	// The analyst's decisions on the cells of a gas table: the gas desk's methods (see
	// service.Gas), which own the rules. Each is made on seen, the cell (or the row's cells)
	// as the grid showed it: when the stored cell is another nothing is written and the error
	// wraps gas.ErrStale (an *gas.StaleError says who changed it to what). A decision the
	// desk's rules refuse is a *service.GasRefusal. The result holds the cells as stored.
	GasApprove(ctx context.Context, table string, row int, field string, seen gas.Cell) (service.GasDecided, error)
	GasApproveRow(ctx context.Context, table string, row int, seen map[string]gas.Cell) (service.GasDecided, error)
	GasReject(ctx context.Context, table string, row int, field string, seen gas.Cell) (service.GasDecided, error)
	GasEdit(ctx context.Context, table string, row int, field, value string, seen gas.Cell) (service.GasDecided, error)
	// UndoGas reverts the analyst's own latest decision on the table and says which cell it
	// restored; the error wraps gas.ErrNothingToUndo when there is none, and gas.ErrStale
	// when that cell changed since.
	UndoGas(ctx context.Context, table string) (row int, field string, err error)
	// GasQuery filters the table: a question is turned into an expression by the model (with
	// its recovery tiers and labelled fallback); a non-empty expression runs as it is.
	GasQuery(ctx context.Context, table, question, expression string) (GasQueryResult, error)
	// StartGasFill fills the table's rows as a job, one checkpointed step per row; without
	// rows it takes those the desk picks (service.GasDefaultFillRows), and a table with none
	// is refused (service.ErrGasNothingToFill). sink receives its events, and cancelling ctx
	// cancels it, which keeps the finished rows and leaves it resumable.
	StartGasFill(ctx context.Context, table string, rows []int, tiers []string, sink service.RunSink) (service.GasFillResult, error)
	// ResumeGasFill goes on with the table's latest unfinished fill; the error wraps
	// service.ErrNoUnfinishedFill when there is none.
	ResumeGasFill(ctx context.Context, table string, sink service.RunSink) (service.GasFillResult, error)
	// WatchGasFill follows the table's fill that runs as a job (started elsewhere, or before a
	// dropped connection) until it ends; cancelling ctx only stops watching. With none
	// running, the error wraps jobs.ErrNoJob at once.
	WatchGasFill(ctx context.Context, table string, attached func(jobs.Job), sink service.RunSink) (jobs.Job, error)
	// UnfinishedGasFill returns the table's latest fill when it has not finished.
	UnfinishedGasFill(ctx context.Context, table string) (gas.Fill, bool, error)

	// ToxProfiles lists the toxicology profiles at their latest versions, by INCI name.
	ToxProfiles(ctx context.Context) ([]tox.ProfileInfo, error)
	// ToxProfile loads one version of a profile; version 0 is the latest.
	ToxProfile(ctx context.Context, inci string, version int) (tox.ProfileVersion, error)
	// ToxHistory lists a profile's versions, newest first.
	ToxHistory(ctx context.Context, inci string) ([]tox.VersionInfo, error)
	// ToxPropose turns an instruction, a JSON payload or a JSON Patch into a proposal against
	// the profile's latest version; nothing is saved.
	ToxPropose(ctx context.Context, inci, input string) (*service.ToxProposal, error)
	// ToxApprove saves a proposal as the next version with summary and returns its number; a
	// proposal whose base is no longer the latest version is refused with an error that wraps
	// tox.ErrStale.
	ToxApprove(ctx context.Context, p *service.ToxProposal, summary string) (int, error)
	// ToxReject closes a proposal's edit run as rejected; nothing is saved.
	ToxReject(ctx context.Context, p *service.ToxProposal, reason string) error
	// ToxRollback saves a new version equal to version to and returns its number; seen is the
	// latest version the analyst saw: when another was saved since, nothing is saved and the
	// error wraps tox.ErrStale.
	ToxRollback(ctx context.Context, inci string, to, seen int, summary string) (int, error)
	// ToxWaiting lists the proposals that wait for approval (made on the CLI, by a batch, or
	// in a workbench closed before the decision), oldest first.
	ToxWaiting(ctx context.Context) ([]service.ToxWaitingEdit, error)
	// ToxWaitingProposal loads a waiting proposal by its run, to approve or reject it like one
	// made in the tab; a run decided meanwhile gives an error that wraps service.ErrNotWaiting.
	ToxWaitingProposal(ctx context.Context, run string) (*service.ToxProposal, error)

	// Changes delivers the gas cell decisions and toxicology versions that other analysts (other
	// workbenches) make, until ctx ends; the workbench's own are not delivered. It never blocks
	// the analyst who made them: a reader that falls behind loses the oldest.
	Changes(ctx context.Context) <-chan service.Change
}

// GasQueryResult is the outcome of a gas-table query.
type GasQueryResult = service.GasQueryResult

// Package tui is the Bubble Tea workbench: the root model, its tabs and panels, styles and
// keys. It reaches the rest of warren only through Backend, and only inside commands: Update
// never does I/O.
package tui

import (
	"context"
	"encoding/json"

	"warren/agent"
	"warren/agent/llm"
	"warren/agent/research"
	"warren/config"
	"warren/doctor"
	"warren/kb"
	"warren/retrieval"
)

// Backend is what the workbench needs from warren. cmd/warren implements it over a workspace;
// tests implement it over llmtest.
type Backend interface {
	Workspace() string
	Budgets() config.Budgets
	Doctor(ctx context.Context) doctor.Report

	StartResearch(ctx context.Context, run, question string, opts research.Options, sink agent.Sink) (agent.Outcome, *research.State, error)
	ResumeResearch(ctx context.Context, run string, answer json.RawMessage, sink agent.Sink) (agent.Outcome, *research.State, error)
	Runs(ctx context.Context) ([]agent.RunInfo, error)
	RunState(ctx context.Context, run string) (agent.Checkpoint, *research.State, error)
	Ledger(ctx context.Context, run string) ([]llm.LedgerEntry, error)
	ExportReport(run, markdown string) (string, error)

	Collections(ctx context.Context) ([]kb.CollectionInfo, error)
	Documents(ctx context.Context, collection string) ([]kb.DocInfo, error)
	DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error)
	Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error)
	Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error)
	Ingest(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error)
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"warren/agent"
	"warren/agent/llm"
	"warren/agent/research"
	"warren/config"
	"warren/doctor"
	"warren/internal/atomicfile"
	"warren/kb"
	"warren/retrieval"
	"warren/tui"
)

// backend serves the workbench from an open workspace.
type backend struct {
	a *app
	e *env
}

func (b *backend) Workspace() string       { return b.e.ws.Dir }
func (b *backend) Budgets() config.Budgets { return b.e.ws.Config.Budgets }

func (b *backend) Doctor(ctx context.Context) doctor.Report {
	return doctor.Run(ctx, doctor.Input{Workspace: b.e.ws.Dir, Sources: b.a.sources(), Logger: b.a.logger})
}

func (b *backend) service(sink agent.Sink) (*research.Service, error) {
	svc, err := b.a.researchService(b.e, 0)
	if err != nil {
		return nil, err
	}
	svc.Sink, svc.Deps.Note = sink, nil
	return svc, nil
}

func (b *backend) StartResearch(ctx context.Context, run, question string, opts research.Options, sink agent.Sink) (agent.Outcome, *research.State, error) {
	svc, err := b.service(sink)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	return svc.Start(ctx, run, question, opts)
}

func (b *backend) ResumeResearch(ctx context.Context, run string, answer json.RawMessage, sink agent.Sink) (agent.Outcome, *research.State, error) {
	svc, err := b.service(sink)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	return svc.Resume(ctx, run, answer)
}

func (b *backend) store() *agent.Store { return &agent.Store{DB: b.e.ws.DB} }

func (b *backend) Runs(ctx context.Context) ([]agent.RunInfo, error) { return b.store().Runs(ctx) }

func (b *backend) RunState(ctx context.Context, run string) (agent.Checkpoint, *research.State, error) {
	cp, err := b.store().Latest(ctx, run)
	if err != nil {
		return cp, nil, err
	}
	var s research.State
	if err := json.Unmarshal(cp.State, &s); err != nil {
		return cp, nil, fmt.Errorf("couldn't read run %s: %w", run, err)
	}
	return cp, &s, nil
}

func (b *backend) Ledger(ctx context.Context, run string) ([]llm.LedgerEntry, error) {
	return b.store().Ledger(ctx, run)
}

func (b *backend) ExportReport(run, markdown string) (string, error) {
	path := filepath.Join(b.e.ws.Dir, kb.ExportsDir, "research-"+run+".md")
	return path, atomicfile.WriteFile(path, []byte(markdown), 0o644)
}

func (b *backend) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	return b.e.store.Collections(ctx)
}

func (b *backend) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	return b.e.store.Documents(ctx, collection)
}

func (b *backend) DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error) {
	return b.e.store.DocumentChunks(ctx, doc)
}

func (b *backend) Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error) {
	return b.e.store.Chunks(ctx, ids)
}

func (b *backend) Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error) {
	return (&retrieval.Searcher{Store: b.e.store, Gateway: b.e.gateway}).Search(ctx, req)
}

func (b *backend) Ingest(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error) {
	items, err := kb.CollectItems(paths, collection)
	if err != nil {
		return nil, err
	}
	emb, err := b.e.embedderFor(ctx, collection, "", func(string) {})
	if err != nil {
		return nil, err
	}
	rep, err := b.e.store.Ingest(ctx, items, kb.IngestOptions{Embedder: emb, Progress: progress,
		Chunk: kb.ChunkOptions{Size: b.e.ws.Config.KB.ChunkSize, Overlap: b.e.ws.Config.KB.ChunkOverlap},
		Load:  kb.LoadOptions{MaxFileBytes: int64(b.e.ws.Config.KB.MaxFileMB) << 20}})
	if err == nil {
		err = updateWorkspaceRegistry(context.WithoutCancel(ctx), b.e, nil, items, rep)
	}
	return rep, err
}

// workbench opens the TUI on the workspace.
func (a *app) workbench() error {
	e, err := a.open()
	if err != nil {
		return err
	}
	defer e.Close()
	p := tea.NewProgram(tui.New(&backend{a: a, e: e}), tea.WithInput(os.Stdin), tea.WithOutput(os.Stdout))
	_, err = p.Run()
	return err
}

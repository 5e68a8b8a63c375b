package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/atomicfile"
	"warren/kb"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/retrieval"
	"warren/service/audit"
)

// Research is the research desk: research runs, their sessions (checkpoints, ledgers) and
// their reports. Only a run's owner or an admin answers or resumes it (ErrNotOwner), whichever
// front end asks.
type Research struct{ s *Service }

// Research is the research desk of this view: the runs it starts are this view's analyst's.
func (s *Service) Research() *Research { return &Research{s: s} }

// researchAgent wires the research agent to the workspace. sink receives the run's events and note
// its progress lines (either may be nil); budgetCalls above 0 replaces the configured call
// budget.
func (s *Service) researchAgent(budgetCalls int, sink agent.Sink, note func(string)) (*research.Service, error) {
	reg, err := s.Registry()
	if err != nil {
		return nil, err
	}
	cfg := s.ws.Config
	searcher := s.Searcher()
	// The agent reads the knowledge base as its analyst may: a reference into a collection they
	// may not read ends "not accessible", and no passage of it is read.
	reader := s.reader()
	deps := &research.Deps{Gateway: s.gateway, Searcher: searcher, Resolver: retrieval.NewResolver(reader, reg, searcher, cfg.Thresholds.FuzzyMatch),
		Store: reader, Thresholds: cfg.Thresholds, Budgets: cfg.Budgets, Note: note}
	return &research.Service{Deps: deps, Store: s.RunStore(), Sink: sink,
		Budget: llm.Budget{Calls: cfg.Budgets.ModelCalls, Tokens: cfg.Budgets.Tokens}, CallsOverride: budgetCalls,
		RunTime: cfg.Budgets.RunTime, Analyst: s.Owner}, nil
}

// Searcher searches the workspace's knowledge base, confined to the collections this view's
// analyst may read (see Access): research runs, reference resolution, gas fills and the
// Knowledge desk's search all take it from here, so none of them ranks a passage the analyst
// may not read. The grants are read at each search, so a run that lasts days follows changes.
func (s *Service) Searcher() *retrieval.Searcher {
	sr := llmkb.Searcher(s.store, s.gateway, s.ws.Config.KB.DenseWeight)
	if !s.isAdmin() {
		sr.Readable = s.readable
	}
	return sr
}

// Start starts a research run as a job and works it until it ends or waits for the
// analyst; sink receives its events. Start and Run are two use cases, not two front ends'
// variants: here the analyst answers each interrupt as it comes (Resume) and exports the report
// when they choose; Run answers them itself and writes the report. Both start and resume a run
// through the same job and the same checks (startResearch, resumeResearch).
func (rs *Research) Start(ctx context.Context, run, question string, opts research.Options, sink agent.Sink) (agent.Outcome, *research.State, error) {
	svc, err := rs.s.researchAgent(0, sink, nil)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	return rs.s.startResearch(ctx, svc, run, question, opts)
}

// Resume goes on with a saved run, with the analyst's answer when it waits for one. Only the
// run's owner or an admin may: others are refused with an error that wraps ErrNotOwner.
func (rs *Research) Resume(ctx context.Context, run string, answer json.RawMessage, sink agent.Sink) (agent.Outcome, *research.State, error) {
	// A finished run is refused before a job starts for it: its record stays "done".
	if cp, st, err := rs.RunState(ctx, run); err == nil && cp.Status == agent.StatusDone {
		return agent.Outcome{Run: run, Status: agent.StatusDone, Step: cp.Step}, st, &research.FinishedError{Run: run}
	}
	svc, err := rs.s.researchAgent(0, sink, nil)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	return rs.s.resumeResearch(ctx, svc, run, answer)
}

// startResearch starts run as a job of svc's and works it until it ends or waits.
func (s *Service) startResearch(ctx context.Context, svc *research.Service, run, question string, opts research.Options) (out agent.Outcome, st *research.State, err error) {
	// Recorded when it is asked, not when it ends: a run may wait for days.
	s.record(ctx, audit.ActionResearch, run, map[string]any{"question": s.auditQuery(question)}, nil)
	return s.InJob(ctx, run, question, svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
		return svc.Start(ctx, run, question, opts)
	})
}

// resumeResearch goes on with run as a job of svc's, with answer when it waits for one.
func (s *Service) resumeResearch(ctx context.Context, svc *research.Service, run string, answer json.RawMessage) (agent.Outcome, *research.State, error) {
	return s.InJob(ctx, run, "", svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
		return svc.Resume(ctx, run, answer)
	})
}

// Runs lists the saved research runs, newest first (gas fills and edits are runs too, of
// other graphs, and have their own desks).
func (rs *Research) Runs(ctx context.Context) ([]agent.RunInfo, error) {
	all, err := rs.s.RunStore().Runs(ctx)
	if err != nil {
		return nil, err
	}
	runs := all[:0]
	for _, r := range all {
		if r.Graph == research.GraphName {
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// RunState is a run's latest checkpoint and its research state, as this view's analyst may
// see them: another analyst's run withholds the passages of collections they may not read.
func (rs *Research) RunState(ctx context.Context, run string) (agent.Checkpoint, *research.State, error) {
	cp, err := rs.s.RunStore().Latest(ctx, run)
	if err != nil {
		return cp, nil, err
	}
	var st research.State
	if err := json.Unmarshal(cp.State, &st); err != nil {
		return cp, nil, fmt.Errorf("couldn't read run %s: %w", run, err)
	}
	sight, err := rs.s.sightOf(ctx, run)
	if err != nil {
		return cp, nil, err
	}
	cp, shown := sight.checkpoint(ctx, cp, &st)
	return cp, shown, nil
}

// Ledger is a run's model calls.
func (rs *Research) Ledger(ctx context.Context, run string) ([]llm.LedgerEntry, error) {
	return rs.s.RunStore().Ledger(ctx, run)
}

// ExportReport writes a run's report as Markdown into the workspace's exports folder, and
// only there: a run name that would make it another folder is refused. A served view for an
// analyst who is not an admin returns the file's path inside the workspace
// (exports/research-RUN.md), not its server path.
func (rs *Research) ExportReport(run, markdown string) (shown string, err error) {
	defer func() {
		// ExportReport takes no context: the write it records is done by now.
		rs.s.record(context.Background(), audit.ActionExport, shown, map[string]any{"what": "research report", "run": run}, err)
	}()
	if run == "" || run == "." || run == ".." || strings.ContainsAny(run, `/\`) || filepath.Base(run) != run {
		return "", fmt.Errorf("couldn't export the report of run %q: a run name has no folders in it; export a run the sessions list shows", run)
	}
	if err := rs.s.mayExport(context.Background(), run); err != nil {
		return "", err
	}
	path := rs.s.reportPath(run, "")
	shown = path
	if rs.s.hidesPaths() {
		shown = filepath.ToSlash(filepath.Join(kb.ExportsDir, filepath.Base(path)))
	}
	if err := atomicfile.WriteFile(path, []byte(markdown), 0o644); err != nil {
		if rs.s.hidesPaths() {
			err = errors.New(rs.s.pathHider(nil)(err.Error()))
		}
		return shown, fmt.Errorf("couldn't export the report of run %s: %w", run, err)
	}
	return shown, nil
}

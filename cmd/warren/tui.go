package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"warren/agent"
	"warren/agent/research"
	"warren/agent/tablequery"
	"warren/agent/toxedit"
	"warren/config"
	"warren/doctor"
	"warren/internal/atomicfile"
	"warren/kb"
	"warren/kb/hmis"
	"warren/kb/toxdb"
	"warren/llm"
	"warren/retrieval"
	"warren/service"
	"warren/tui"
)

// backend serves the workbench from an open workspace.
type backend struct {
	a *app
	e *env
}

func (b *backend) Workspace() string       { return b.e.WS.Dir }
func (b *backend) Budgets() config.Budgets { return b.e.WS.Config.Budgets }

func (b *backend) Doctor(ctx context.Context) doctor.Report {
	return doctor.Run(ctx, doctor.Input{Workspace: b.e.WS.Dir, Sources: b.a.sources(), Logger: b.a.logger})
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

func (b *backend) store() *agent.Store { return &agent.Store{DB: b.e.WS.DB} }

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
	path := filepath.Join(b.e.WS.Dir, kb.ExportsDir, "research-"+run+".md")
	return path, atomicfile.WriteFile(path, []byte(markdown), 0o644)
}

func (b *backend) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	return b.e.Store.Collections(ctx)
}

func (b *backend) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	return b.e.Store.Documents(ctx, collection)
}

func (b *backend) DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error) {
	return b.e.Store.DocumentChunks(ctx, doc)
}

func (b *backend) Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error) {
	return b.e.Store.Chunks(ctx, ids)
}

func (b *backend) Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error) {
	return (&retrieval.Searcher{Store: b.e.Store, Gateway: b.e.Gateway}).Search(ctx, req)
}

func (b *backend) Ingest(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error) {
	items, err := kb.CollectItems(paths, collection)
	if err != nil {
		return nil, err
	}
	emb, err := b.e.EmbedderFor(ctx, collection, "", func(string) {})
	if err != nil {
		return nil, err
	}
	rep, err := b.e.Store.Ingest(ctx, items, kb.IngestOptions{Embedder: emb, Progress: progress,
		Chunk: kb.ChunkOptions{Size: b.e.WS.Config.KB.ChunkSize, Overlap: b.e.WS.Config.KB.ChunkOverlap},
		Load:  kb.LoadOptions{MaxFileBytes: int64(b.e.WS.Config.KB.MaxFileMB) << 20}})
	if err == nil {
		err = updateWorkspaceRegistry(context.WithoutCancel(ctx), b.e, nil, items, rep)
	}
	return rep, err
}

func (b *backend) gasStore() *hmis.Store { return &hmis.Store{DB: b.e.WS.DB} }

func (b *backend) GasTables(ctx context.Context) ([]string, error) { return b.gasStore().Tables(ctx) }

func (b *backend) GasTable(ctx context.Context, name string) (*hmis.Table, error) {
	return b.gasStore().LoadTable(ctx, name)
}

func (b *backend) SetGasCell(ctx context.Context, table string, row int, field string, c hmis.Cell, reason string) error {
	return b.gasStore().SetCell(ctx, table, row, field, c, reason)
}

func (b *backend) UndoGas(ctx context.Context, table string) (int, string, error) {
	return b.gasStore().Undo(ctx, table)
}

// GasQuery runs a question as `warren gas query` does: the model writes the expression (or
// the analyst gave one), it is compiled against the typed schema, then run over the rows.
func (b *backend) GasQuery(ctx context.Context, table, question, expression string) (tui.GasQueryResult, error) {
	t, err := b.gasStore().LoadTable(ctx, table)
	if err != nil {
		return tui.GasQueryResult{}, err
	}
	schema := querySchema(t)
	res := tui.GasQueryResult{Expression: expression}
	if expression == "" {
		ans, err := tablequery.Ask(ctx, b.e.Gateway, schema, question)
		if ans != nil {
			b.e.KeepLedger(ctx, service.QueryLedgerRun(), ans.Ledger...)
		}
		if err != nil {
			return res, err
		}
		res = tui.GasQueryResult{Expression: ans.Expression, Explanation: ans.Explanation, Fallback: ans.Fallback, Note: ans.Note, Calls: ans.Calls}
	}
	program, err := tablequery.Compile(schema, res.Expression)
	if err != nil {
		return res, err
	}
	hits, err := tablequery.Run(program, queryRows(t, schema))
	if err != nil {
		return res, err
	}
	for _, i := range hits {
		res.Rows = append(res.Rows, t.Rows[i].ID)
	}
	return res, nil
}

func (b *backend) toxStore() *toxdb.Store { return &toxdb.Store{DB: b.e.WS.DB} }

// toxEditor is the edit engine over the workspace: every edit is a checkpointed run whose
// model calls are in the ledger.
func (b *backend) toxEditor() *toxedit.Editor {
	return &toxedit.Editor{Gateway: b.e.Gateway, Profiles: b.toxStore(), Runs: b.store()}
}

func (b *backend) ToxProfiles(ctx context.Context) ([]toxdb.ProfileInfo, error) {
	return b.toxStore().List(ctx)
}

func (b *backend) ToxProfile(ctx context.Context, inci string, version int) (toxdb.ProfileVersion, error) {
	if version == 0 {
		return b.toxStore().Latest(ctx, inci)
	}
	return b.toxStore().Version(ctx, inci, version)
}

func (b *backend) ToxHistory(ctx context.Context, inci string) ([]toxdb.VersionInfo, error) {
	return b.toxStore().History(ctx, inci)
}

func (b *backend) ToxPropose(ctx context.Context, inci, input string) (*toxedit.Proposal, error) {
	return b.toxEditor().Propose(ctx, inci, input)
}

func (b *backend) ToxApprove(ctx context.Context, p *toxedit.Proposal, summary string) (int, error) {
	return b.toxEditor().Approve(ctx, p, summary)
}

func (b *backend) ToxReject(ctx context.Context, p *toxedit.Proposal, reason string) error {
	return b.toxEditor().Reject(ctx, p, reason)
}

func (b *backend) ToxRollback(ctx context.Context, inci string, to int, summary string) (int, error) {
	return b.toxStore().Rollback(ctx, inci, to, summary)
}

// workbench opens the TUI on the workspace.
func (a *app) workbench() error { return a.openWorkbench(nil) }

// openWorkbench opens the TUI; setup, when given, checks the workspace and prepares the
// workbench (a tab, a table) before the first frame.
func (a *app) openWorkbench(setup func(ctx context.Context, e *env, m *tui.Model) error) error {
	e, err := a.open()
	if err != nil {
		return err
	}
	defer e.Close()
	m := tui.New(&backend{a: a, e: e})
	if setup != nil {
		if err := setup(context.Background(), e, m); err != nil {
			return err
		}
	}
	p := tea.NewProgram(m, tea.WithInput(os.Stdin), tea.WithOutput(os.Stdout))
	_, err = p.Run()
	return err
}

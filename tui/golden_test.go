package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"warren/config"
	"warren/doctor"
	"warren/gas"
	"warren/kb"
	"warren/kb/chunk"
	"warren/retrieval"
	"warren/retrieval/refs"
	"warren/service"
	"warren/service/jobs"
	"warren/tox"
	gaspanel "warren/tui/gas"
	"warren/tui/knowledge"
	researchpanel "warren/tui/research"
	toxpanel "warren/tui/tox"
)

// fixture is a fixed stand-in for every desk but toxicology's (noTox), for snapshots: the same
// data every run, so the golden files are byte-stable. The interaction flows use the service's
// desks (cmd/warren).
type fixture struct{}

// noTox is a toxicology desk without profiles.
type noTox struct{}

// fake is one stand-in for every desk but toxicology's.
type fake interface {
	researchpanel.Desk
	Knowledge
	gaspanel.Desk
	Jobs
	Team
	Session
}

// desksOf is the workbench's desks served by be, and by tx for toxicology.
func desksOf(be fake, tx toxpanel.Service) Desks {
	return Desks{Research: be, Knowledge: be, Gas: be, Tox: tx, Jobs: be, Team: be, Session: be}
}

func (fixture) Workspace() string                        { return "/work/lab/.warren" }
func (fixture) Analyst() (string, bool)                  { return "analyst", false }
func (fixture) List(context.Context) ([]jobs.Job, error) { return nil, nil }
func (fixture) Live(context.Context, time.Time) (jobs.Job, bool, error) {
	return jobs.Job{}, false, nil
}
func (fixture) Cancel(context.Context, string) error { return nil }
func (fixture) WatchFill(context.Context, string, func(jobs.Job), service.RunSink) (jobs.Job, error) {
	return jobs.Job{}, jobs.ErrNoJob
}
func (fixture) Watch(ctx context.Context, run string, _ service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{Run: run}, nil, nil
}
func (fixture) Budgets() config.Budgets { return config.Default().Budgets }
func (fixture) Doctor(context.Context) doctor.Report {
	return doctor.Report{OK: true}
}
func (fixture) Start(context.Context, string, string, service.ResearchOptions, service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{}, nil, nil
}
func (fixture) Resume(context.Context, string, json.RawMessage, service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{}, nil, nil
}
func (fixture) Runs(context.Context) ([]service.RunInfo, error) {
	return []service.RunInfo{{ID: "20261121-101500-a1b2c3", Status: "done", Steps: 23, Title: "Which purge sequence applies to silane?"},
		{ID: "20261120-164200-d4e5f6", Status: "canceled", Steps: 9, Title: "Pflichten nach § 6 GefStoffV"}}, nil
}
func (fixture) RunState(context.Context, string) (service.RunCheckpoint, *service.ResearchState, error) {
	return service.RunCheckpoint{}, fixtureState(), nil
}
func (fixture) Ledger(context.Context, string) ([]service.LedgerEntry, error) { return nil, nil }
func (fixture) GoesOn(context.Context, string) bool                           { return false }
func (fixture) History(context.Context, string, int64) ([]service.RunEvent, error) {
	return nil, nil
}
func (fixture) Export(context.Context, string, string, string) (string, error) { return "", nil }
func (fixture) Collections(context.Context) ([]kb.CollectionInfo, error) {
	return []kb.CollectionInfo{{Name: "standards", Documents: 3, Chunks: 41, Embedder: "builtin:hash-v1:512"},
		{Name: "suppliers", Documents: 10, Chunks: 38, Embedder: "builtin:hash-v1:512"}}, nil
}
func (fixture) Documents(context.Context, string) ([]kb.DocInfo, error) {
	return []kb.DocInfo{{ID: "standards/gas-cabinet-procedure.md", Collection: "standards", Chunks: 22, Title: "Gas Cabinet Procedure"},
		{ID: "suppliers/nordgas-silane.md", Collection: "suppliers", Chunks: 5, Title: "Silane gas data sheet"}}, nil
}
func (fixture) DocumentChunks(context.Context, string) ([]chunk.Chunk, error) { return nil, nil }
func (fixture) Chunks(context.Context, []string) ([]chunk.Chunk, error)       { return nil, nil }
func (fixture) Search(context.Context, retrieval.Request) ([]retrieval.Result, error) {
	return nil, nil
}
func (fixture) Ingest(context.Context, []kb.Item, service.IngestOptions) (*kb.IngestReport, error) {
	return &kb.IngestReport{}, nil
}
func (fixture) IngestRoots() []string { return nil }

// The fixture's workspace has no gas table: the Gas tab shows its empty state. The desk's own
// snapshots and flows run on gasBackend (gas_backend_test.go), over SQLite and a scripted model.
func (fixture) Tables(context.Context) ([]string, error)                  { return nil, nil }
func (fixture) Table(context.Context, string, ...int) (*gas.Table, error) { return nil, gas.ErrNoTable }
func (fixture) Undo(context.Context, string) (int, string, error) {
	return 0, "", gas.ErrNothingToUndo
}
func (fixture) StartFill(context.Context, string, []int, []string, service.RunSink) (service.GasFillResult, error) {
	return service.GasFillResult{}, nil
}
func (fixture) ResumeFill(context.Context, string, service.RunSink) (service.GasFillResult, error) {
	return service.GasFillResult{}, service.ErrNoUnfinishedFill
}
func (fixture) UnfinishedFill(context.Context, string) (gas.Fill, bool, error) {
	return gas.Fill{}, false, nil
}
func (fixture) Approve(context.Context, string, int, string, gas.Cell) (service.GasDecided, error) {
	return service.GasDecided{}, gas.ErrNoTable
}
func (fixture) ApproveRow(context.Context, string, int, map[string]gas.Cell) (service.GasDecided, error) {
	return service.GasDecided{}, gas.ErrNoTable
}
func (fixture) Reject(context.Context, string, int, string, gas.Cell) (service.GasDecided, error) {
	return service.GasDecided{}, gas.ErrNoTable
}
func (fixture) Edit(context.Context, string, int, string, string, gas.Cell) (service.GasDecided, error) {
	return service.GasDecided{}, gas.ErrNoTable
}
func (fixture) Query(context.Context, string, string, string) (service.GasQueryResult, error) {
	return service.GasQueryResult{}, gas.ErrNoTable
}

// The fixture's workspace has no toxicology profile: the Toxicology tab shows its empty state.
// The desk's own snapshots and flows run on toxBackend (tox_backend_test.go), over SQLite.
func (noTox) Profiles(context.Context) ([]tox.ProfileInfo, error) { return nil, nil }
func (noTox) Profile(context.Context, string, int) (tox.ProfileVersion, error) {
	return tox.ProfileVersion{}, tox.ErrNoProfile
}
func (noTox) History(context.Context, string) ([]tox.VersionInfo, error) {
	return nil, tox.ErrNoProfile
}
func (noTox) Propose(context.Context, string, string) (*service.ToxProposal, error) {
	return nil, tox.ErrNoProfile
}
func (noTox) Approve(context.Context, *service.ToxProposal, string) (int, error) {
	return 0, tox.ErrNoProfile
}
func (noTox) Reject(context.Context, *service.ToxProposal, string) error { return nil }
func (noTox) Rollback(context.Context, string, int, int, string) (int, error) {
	return 0, tox.ErrNoProfile
}

// The fixture's workspace has no other analyst: its change feed stays quiet until ctx ends.
func (fixture) Changes(ctx context.Context) <-chan service.Change {
	ch := make(chan service.Change)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch
}

func fixtureState() *service.ResearchState {
	return &service.ResearchState{
		Question: "Which purge sequence applies to silane cylinders?", Language: "en",
		Plan: []service.ResearchTask{{ID: "t1", Query: "purge before disconnect", Rationale: "the core step", Status: "done"},
			{ID: "t2", Query: "extended purge for pyrophoric gases", Status: "pending"}},
		Findings: []service.ResearchFinding{
			{Task: "t1", ChunkID: "standards/gcp.md#0008", Doc: "standards/gcp.md", Collection: "standards", Section: "4.2",
				Information: "Purge the pigtail before disconnecting.", Excerpt: "Close the cylinder valve and run the purge sequence of Section 5.2."},
			{Task: "t1", ChunkID: "standards/gcp.md#0013", Doc: "standards/gcp.md", Collection: "standards", Section: "5.3", Depth: 1,
				Information: "Fifty cycles and a flowing purge for silane.", Excerpt: "Fifty cycles as in Section 5.2, followed by a five-minute flowing purge."},
			{Task: "t1", ChunkID: "regulatory/TRGS-407.pdf#0031", Doc: "regulatory/TRGS-407.pdf", Collection: "regulatory", Section: "4.1",
				PageRef: chunk.PageRef{Page: 12, Kind: chunk.KindPage}, Information: "Silane is pyrophoric.", Excerpt: "Silan ist pyrophor."}},
		References: []service.ResearchRef{
			{Task: "t1", FromChunk: "standards/gcp.md#0008", Type: refs.TypeSection, Target: "5.3", Text: "Section\n5.3", State: service.RefFollowed, Reason: "names the silane sequence",
				Resolved: &retrieval.Resolution{Doc: "standards/gcp.md", Collection: "standards", Section: "5.3", ChunkIDs: []string{"standards/gcp.md#0013"}, Method: "section"}},
			{Task: "t1", FromChunk: "standards/gcp.md#0008", Type: refs.TypeLegalSection, Target: "§ 6", Text: "§ 6 GefStoffV", State: service.RefUnresolved, Reason: `"GefStoffV" is not in the knowledge base`},
			{Task: "t1", FromChunk: "standards/gcp.md#0013", Type: refs.TypeExternal, Target: "https://www.baua.de", Text: "https://www.baua.de", State: service.RefSkipped, Reason: "external reference: never followed"}},
		RefTokens: map[string]int{"t1": 320},
		Report:    "# Purging silane cylinders\n\nBefore a silane cylinder is disconnected, the pigtail is purged [1].\n\nSilane needs the extended sequence of fifty cycles and a flowing purge [2]; it is pyrophoric [3].",
		Sources: []service.ResearchSource{{N: 1, ChunkID: "standards/gcp.md#0008", Doc: "standards/gcp.md", Section: "4.2", Collection: "standards"},
			{N: 2, ChunkID: "standards/gcp.md#0013", Doc: "standards/gcp.md", Section: "5.3", Collection: "standards"},
			{N: 3, ChunkID: "regulatory/TRGS-407.pdf#0031", Doc: "regulatory/TRGS-407.pdf", Section: "4.1", Collection: "regulatory",
				PageRef: chunk.PageRef{Page: 12, Kind: chunk.KindPage}}},
	}
}

// screen renders the workbench as plain text.
func screen(m *Model) []byte { return []byte(ansi.Strip(m.Render())) }

func sized(w, h int) *Model {
	m := New(desksOf(fixture{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	return m
}

func TestGoldenPanels(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}}
	ctx := context.Background()
	questions, _ := service.NewRunInterrupt(service.InterruptQuestions, service.ResearchQuestions{Iteration: 1, Coverage: 0.42,
		Gaps:      []string{"which gases count as pyrophoric", "who may perform the purge"},
		Questions: []string{"Is the question about silane only, or all pyrophoric gases?", "Do you need the procedure text or the rationale?"},
		Analysis: &service.ResearchQueryAnalysis{KeyConcepts: []string{"pyrophoric gas", "cylinder change", "purge"}, Entities: []string{"silane", "GCP-01"},
			Scope: "cylinder changes in gas cabinets of Fab K2"}})
	plan, _ := service.NewRunInterrupt(service.InterruptPlan, service.ResearchPlan{Tasks: fixtureState().Plan})
	runs, _ := fixture{}.Runs(ctx)
	setups := map[string]func(m *Model){
		"research-editor": func(m *Model) {},
		"research-run": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{Run: "20261121-101500-a1b2c3", View: "run", Status: "finished", State: fixtureState(), Calls: 42, Tokens: 18120,
				Trail: []researchpanel.TrailStep{{Node: "init", Done: true, Duration: 2 * time.Millisecond, Summary: "nothing new"},
					{Node: "plan", Done: true, Duration: 1200 * time.Millisecond, Summary: "plan of 2 tasks proposed"},
					{Node: "execute", Done: true, Duration: 4300 * time.Millisecond, Summary: "1 task done (1 of 2); 2 findings; 3 references: 1 followed, 1 skipped, 1 unresolved"}}})
		},
		"research-refine": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{Pending: questions, View: "refine"})
		},
		// Passages from many documents: the line wraps into the free rows instead of being cut.
		"research-refine-passages": func(m *Model) {
			st := &service.ResearchState{Question: "Which purge sequence applies to silane cylinders?"}
			for _, d := range []string{"standards/gas-cabinet-procedure.md", "suppliers/nordgas-silane.md", "suppliers/nordgas-arsine.md",
				"regulatory/TRGS-407.pdf", "internal/fab-k2-gas-room-layout.md", "standards/emergency-response.md"} {
				st.Evidence = append(st.Evidence, service.ResearchEvidence{ChunkID: d + "#0001", Doc: d, Section: "4.2"})
			}
			m.research.SetUp(researchpanel.Fixture{Pending: questions, View: "refine", State: st})
		},
		"research-plan": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{Pending: plan, View: "plan", Plan: fixtureState().Plan})
		},
		"research-report": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{State: fixtureState(), View: "report", Run: "20261121-101500-a1b2c3",
				Report: service.ResearchReport(fixtureState())})
			m.Update(m.research.Reflow()())                 // the rendering command, run in place
			m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"}) // the first citation
		},
		"research-tree": func(m *Model) {
			// t builds the tree from the run view; enter expands, down moves.
			m.research.SetUp(researchpanel.Fixture{State: fixtureState(), View: "run"})
			for _, k := range []tea.KeyPressMsg{{Code: 't', Text: "t"}, {Code: tea.KeyEnter}, {Code: tea.KeyDown}, {Code: tea.KeyEnter}} {
				m.Update(k)
			}
		},
		"research-sessions": func(m *Model) { m.research.SetUp(researchpanel.Fixture{Runs: runs, View: "sessions"}) },
		"knowledge": func(m *Model) {
			m.tab = 1
			cols, _ := fixture{}.Collections(ctx)
			docs, _ := fixture{}.Documents(ctx, "")
			m.Update(knowledge.ListMsg{Cols: cols, Docs: docs})
		},
		"gas": func(m *Model) {
			m.tab = 2
			m.Update(drain(m.gas.Load())[0])
		},
		"toxicology": func(m *Model) {
			m.tab = toxTabIndex
			m.Update(drain(m.tox.Load())[0])
		},
		"log": func(m *Model) {
			m.tab = 4
			at := time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)
			m.log.AddEvents([]service.RunEvent{{Time: at, Kind: service.EventNodeStarted, Node: "init"},
				{Time: at, Kind: service.EventNodeFinished, Node: "init", Duration: 2 * time.Millisecond, Summary: "2 search queries written"},
				{Time: at, Kind: service.EventLedger, Ledger: &service.LedgerEntry{Node: "generate_queries", Role: "fast", Kind: "structured",
					Host: "http://gpu1:11434", PromptTokens: 210, CompletionTokens: 48, Duration: 900 * time.Millisecond, Outcome: "ok"}}})
		},
		"help": func(m *Model) { m.showHelp = true },
		"research-editor-idle": func(m *Model) {
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
		},
		"research-passage": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{State: fixtureState(), Run: "20261121-101500-a1b2c3", View: "passage", Back: "report",
				Passage: &chunk.Chunk{ID: "standards/gcp.md#0013", Doc: "standards/gcp.md", Collection: "standards", Section: "5.3",
					SectionPath: "5 Purging > 5.3 Silane", Heading: "Silane", Text: "Fifty cycles as in Section 5.2, followed by a five-minute flowing purge.", Start: 4100, End: 4172}})
		},
		"research-waiting": func(m *Model) {
			m.research.SetUp(researchpanel.Fixture{Run: "20261121-101500-a1b2c3", View: "run", Status: "waiting for you", State: fixtureState(), Pending: plan})
		},
		"knowledge-results": func(m *Model) {
			m.tab = 1
			cols, _ := fixture{}.Collections(ctx)
			docs, _ := fixture{}.Documents(ctx, "")
			m.Update(knowledge.ListMsg{Cols: cols, Docs: docs})
			m.Update(knowledge.SearchMsg{Query: "purge silane", Results: fixtureResults()})
		},
		"knowledge-passage": func(m *Model) {
			m.tab = 1
			cols, _ := fixture{}.Collections(ctx)
			docs, _ := fixture{}.Documents(ctx, "")
			m.Update(knowledge.ListMsg{Cols: cols, Docs: docs})
			m.Update(knowledge.SearchMsg{Query: "purge silane", Results: fixtureResults()})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		},
		// Document ids longer than their column: cut at their start, the selected one whole.
		"knowledge-long-ids": func(m *Model) {
			m.tab = 1
			cols, _ := fixture{}.Collections(ctx)
			m.Update(knowledge.ListMsg{Cols: cols, Docs: []kb.DocInfo{
				{ID: "regulatory/TRGS-407-Taetigkeiten-mit-Gasen-Gefaehrdungsbeurteilung-2021-11.pdf", Collection: "regulatory", Chunks: 212, Title: "TRGS 407"},
				{ID: "suppliers/nordgas-silane.md", Collection: "suppliers", Chunks: 5, Title: "Silane gas data sheet"}}})
		},
		"quit-question": func(m *Model) {
			m.RestoreDrafts(Drafts{Question: "Which purge seq"})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
			m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
		},
	}
	for name, setup := range setups {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				m := sized(sz[0], sz[1])
				setup(m)
				out := screen(m)
				if lines := strings.Count(string(out), "\n") + 1; lines != sz[1] {
					t.Errorf("the frame has %d lines, the terminal %d", lines, sz[1])
				}
				for i, line := range strings.Split(string(out), "\n") {
					if w := ansi.StringWidth(line); w > sz[0] {
						t.Errorf("line %d is %d cells wide: %q", i+1, w, line)
					}
				}
				requireWholeHelp(t, out, sz[0])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// requireWholeHelp fails when the help line (the frame's last line) is cut: it must end with
// the pointer to the full keymap, or be the help overlay's own line.
func requireWholeHelp(t *testing.T, frame []byte, width int) {
	t.Helper()
	lines := strings.Split(string(frame), "\n")
	help := strings.TrimRight(lines[len(lines)-1], " ")
	if strings.HasSuffix(help, "…") || ansi.StringWidth(help) > width {
		t.Errorf("the help line is cut at %d columns: %q", width, help)
	}
	if !strings.HasSuffix(help, "more") && !strings.HasSuffix(help, "stay") && help != "any key closes this help" {
		t.Errorf("the help line does not end with where the other keys are: %q", help)
	}
}

func fixtureResults() []retrieval.Result {
	return []retrieval.Result{
		{Chunk: chunk.Chunk{ID: "standards/gas-cabinet-procedure.md#0008", Doc: "standards/gas-cabinet-procedure.md", Collection: "standards", Section: "4.2",
			SectionPath: "4 Cylinder change > 4.2 Purge", Heading: "Purge before disconnect", Text: "Close the cylinder valve and run the purge\nsequence of Section 5.2."}, Score: 0.8312},
		{Chunk: chunk.Chunk{ID: "suppliers/nordgas-silane.md#0002", Doc: "suppliers/nordgas-silane.md", Collection: "suppliers", Section: "3",
			Heading: "Handling", Text: "Silane ignites spontaneously in air."}, Score: 0.5127},
		{Chunk: chunk.Chunk{ID: "regulatory/TRGS-407.pdf#0031", Doc: "regulatory/TRGS-407.pdf", Collection: "regulatory", Section: "4.1",
			Heading: "Gefährdungsbeurteilung", Text: "Silan ist pyrophor.", Page: 12, PageKind: chunk.KindPage}, Score: 0.4410},
	}
}

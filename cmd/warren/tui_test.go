package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/gas"
	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/kb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/tox"
	"warren/tui"
)

// workbench opens the real workbench over a corpus workspace and a scripted model server.
func workbench(t *testing.T, srv *llmtest.Server) (*screenModel, *env) {
	t.Helper()
	tm, be, _ := workbenchOn(t, srv)
	return tm, be
}

// workbenchOn is workbench with the workspace it opened, for a test that changes the stores
// behind the desks' backs.
func workbenchOn(t *testing.T, srv *llmtest.Server) (*screenModel, *env, *kb.Workspace) {
	t.Helper()
	ws, _, _ := testkb.Corpus(t)
	a := &app{env: []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	be := e
	m := tui.New(tui.DesksOf(be))
	t.Cleanup(m.Close) // after the program quits: waits for a doctor check still reading the workspace
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 32))
	t.Cleanup(func() { tm.Quit() })
	return &screenModel{TestModel: tm, m: m}, be, ws
}

// screenModel is a running workbench whose frames the test can read.
type screenModel struct {
	*teatest.TestModel
	m *tui.Model
}

// waitFor waits until the last frame drawn shows text (ANSI codes stripped).
func waitFor(t *testing.T, tm *screenModel, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(ansi.Strip(tm.m.LastFrame()), text) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q; last frame:\n%s", text, ansi.Strip(tm.m.LastFrame()))
}

func press(tm *screenModel, code rune, mod ...tea.KeyMod) {
	k := tea.KeyPressMsg{Code: code}
	if len(mod) > 0 {
		k.Mod = mod[0]
	}
	tm.Send(k)
}

func TestWorkbenchResearchFlow(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	tm, be := workbench(t, srv)
	waitFor(t, tm, "Research question")

	tm.Type("Welche Pflichten hat der Arbeitgeber bei der Gefährdungsbeurteilung?")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Refinement, round 1")
	tm.Type("Es geht um Stoffe und Gemische.")
	press(tm, 's', tea.ModCtrl)
	waitFor(t, tm, "Refinement, round 2")
	press(tm, 'e', tea.ModCtrl) // /end
	waitFor(t, tm, "Proposed plan")

	tm.Type("a") // add a task after the first
	tm.Type("Informationsermittlung Sicherheitsdatenblatt")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Informationsermittlung Sicherheitsdatenblatt")
	tm.Type("k") // back to the first task, and rewrite it
	tm.Type("e")
	press(tm, 'u', tea.ModCtrl)
	tm.Type("Gefährdungsbeurteilung Tätigkeiten")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Gefährdungsbeurteilung Tätigkeiten")
	press(tm, tea.KeyEnter) // approve
	waitFor(t, tm, "report ready")

	tm.Type("n") // the first citation
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "collection gesetze")

	runs, err := be.Research().Runs(context.Background())
	if err != nil || len(runs) != 1 || runs[0].Status != "done" {
		t.Fatalf("one finished run: %+v %v", runs, err)
	}
	_, s, _ := be.Research().RunState(context.Background(), runs[0].ID)
	var plan []string
	for _, task := range s.Plan {
		plan = append(plan, task.Query)
	}
	if strings.Join(plan, "|") != "Gefährdungsbeurteilung Tätigkeiten|Informationsermittlung Sicherheitsdatenblatt" ||
		s.Termination != "ended by the analyst (/end)" || s.Report == "" {
		t.Errorf("the edited plan ran to a report: %v, %q", plan, s.Termination)
	}
}

func TestWorkbenchCancelAndResumeFromSessions(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	srv.SetLatency(400 * time.Millisecond)
	tm, be := workbench(t, srv)
	waitFor(t, tm, "Research question")
	tm.Type("Welche Pflichten gelten für Gefahrstoffe?")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "writing search queries") // its model call is in flight (400 ms)
	press(tm, tea.KeyEscape)
	waitFor(t, tm, "the run goes on: ctrl+x cancels it") // esc is not a cancellation
	press(tm, 'x', tea.ModCtrl)
	waitFor(t, tm, "run cancelled")

	runs, _ := be.Research().Runs(context.Background())
	if len(runs) != 1 || runs[0].Status != "canceled" {
		t.Fatalf("the cancelled run keeps its checkpoint: %+v", runs)
	}
	srv.SetLatency(0)
	press(tm, 'o', tea.ModCtrl)
	waitFor(t, tm, " steps ") // the saved run's row
	tm.Type("r")
	waitFor(t, tm, "Refinement, round 1")
	runs, _ = be.Research().Runs(context.Background())
	if len(runs) != 1 || runs[0].Status != "interrupted" {
		t.Errorf("the resumed run goes on to its questions: %+v", runs)
	}
}

func TestWorkbenchShowsAMissingModelWithItsFix(t *testing.T) {
	srv := llmtest.New(t)
	srv.RemoveModel(llmtest.ChatModel)
	tm, _ := workbench(t, srv)
	waitFor(t, tm, "ollama pull qwen3:8b")
}

// TestWorkbenchGasDesk reviews a gas table through the real backend: the decision lands in
// the workspace database and the question goes to the (scripted) model.
func TestWorkbenchGasDesk(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "expression", SchemaHas: "expression",
		Replies: []string{`{"expression": "pyrophoric == true", "explanation": "the pyrophoric gases"}`}})
	tm, _, ws := workbenchOn(t, srv)
	waitFor(t, tm, "Research question")
	press(tm, tea.KeyEscape)   // out of the question field
	press(tm, '3', tea.ModAlt) // the digits type on the question view
	waitFor(t, tm, "No gas table: import one with `warren gas import FILE`")

	st := &gas.Store{DB: ws.DB}
	tab := &gas.Table{Name: "fab", Columns: []string{"Chemical Name", "Pyrophoric", "Boiling Point (°C)"}, Rows: []*gas.Row{
		{ID: 1, Cells: map[string]gas.Cell{"chemical_name": {Value: "Silane", Status: gas.StatusOriginal}, "pyrophoric": {Value: "yes", Status: gas.StatusOriginal},
			"boiling_point_c": {Value: "-112", Unit: "°C", Status: gas.StatusReview, Confidence: 0.5, Method: "extract",
				SourceDoc: "suppliers/nordgas-silane.md", SourceSection: "9", Excerpt: "Boiling point: -112 °C"}}},
		{ID: 2, Cells: map[string]gas.Cell{"chemical_name": {Value: "Nitrogen", Status: gas.StatusOriginal}, "pyrophoric": {Value: "no", Status: gas.StatusOriginal}}},
	}}
	if err := st.SaveTable(context.Background(), tab); err != nil {
		t.Fatal(err)
	}
	tm.Type("r")
	waitFor(t, tm, "Gas table fab")
	tm.Type("n")
	waitFor(t, tm, "Boiling Point (°C) · Silane (row 1)")
	tm.Type("a")
	waitFor(t, tm, "approved Boiling Point (°C) of Silane")
	got, err := st.LoadTable(context.Background(), "fab")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Row(1).Cells["boiling_point_c"]; c.Status != gas.StatusApproved || c.Value != "-112" {
		t.Errorf("the approval is stored: %+v", c)
	}

	tm.Type("/")
	tm.Type("gases that ignite in air")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "query: pyrophoric == true")
	waitFor(t, tm, "1 of 2 rows")
}

// TestWorkbenchToxDesk drives the diff desk over the real edit engine: an edit → the proposal
// → approve → the history shows the new version → rollback with confirmation.
func TestWorkbenchToxDesk(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless) // a structured edit makes no model call
	tm, _, ws := workbenchOn(t, srv)
	waitFor(t, tm, "Research question")
	press(tm, tea.KeyEscape)   // out of the question field
	press(tm, '4', tea.ModAlt) // the digits type on the question view
	waitFor(t, tm, "No toxicology profile")

	st := &tox.Store{DB: ws.DB}
	ctx := context.Background()
	if _, err := st.ImportJSON(ctx, filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	tm.Type("r")
	waitFor(t, tm, "Profiles (22)")
	tm.Type("/eugenol")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "EUGENOL · v1 · import")

	tm.Type("i")
	waitFor(t, tm, "Edit EUGENOL · from version 1")
	tm.Send(tea.PasteMsg{Content: `[{"op":"replace","path":"/noael/0/value","value":200}]`})
	press(tm, 's', tea.ModCtrl)
	waitFor(t, tm, "Proposal · EUGENOL · from version 1")
	waitFor(t, tm, "structured edit (JSON) · applied as written")
	waitFor(t, tm, "replace /noael/0/value: 100 → 200")
	tm.Type("a")
	waitFor(t, tm, "EUGENOL saved as version 2")
	latest, err := st.Latest(ctx, "EUGENOL")
	if err != nil || latest.Version != 2 {
		t.Fatalf("saved: v%d %v", latest.Version, err)
	}

	tm.Type("h")
	waitFor(t, tm, "History · EUGENOL · 2 version(s)")
	waitFor(t, tm, "structured edit (JSON)")
	tm.Type("jR")
	waitFor(t, tm, "Roll back to version 1?")
	tm.Type("y")
	waitFor(t, tm, "EUGENOL rolled back to version 1: saved as version 3")
	waitFor(t, tm, "History · EUGENOL · 3 version(s)")
	v1, _ := st.Version(ctx, "EUGENOL", 1)
	latest, _ = st.Latest(ctx, "EUGENOL")
	if latest.Version != 3 || string(latest.Data) != string(v1.Data) {
		t.Errorf("the rollback is version 3 equal to version 1: v%d", latest.Version)
	}
}

func TestWorkbenchTreeGrowsDuringExecute(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	tm, _ := workbench(t, srv)
	waitFor(t, tm, "Research question")
	tm.Type("Welche Pflichten hat der Arbeitgeber bei der Gefährdungsbeurteilung?")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Refinement, round 1")
	press(tm, 'e', tea.ModCtrl) // /end
	waitFor(t, tm, "Proposed plan")
	// The task searches where the corpus is dense with references (the meaningless model's
	// own query is "lorem").
	tm.Type("e")
	press(tm, 'u', tea.ModCtrl)
	tm.Type("Gefährdungsbeurteilung Schutzmaßnahmen § 6 § 7 GefStoffV")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Schutzmaßnahmen § 6 § 7 GefStoffV")
	// Every answer now takes a while, so that execute spans many frames; the tree is opened
	// before it starts.
	srv.SetLatency(150 * time.Millisecond)
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "Phase")
	tm.Type("t")
	waitFor(t, tm, "Rabbit-hole tree")
	// Count the tree's lines (passages read and references) in each frame drawn while execute
	// runs: the tree must grow in at least three steps before the node ends.
	seen := map[int]bool{}
	var counts []int
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		frame := ansi.Strip(tm.m.LastFrame())
		lines := strings.Split(frame, "\n")
		if strings.Contains(lines[0], "run: synthesize") || strings.Contains(lines[0], "finished") {
			break
		}
		if strings.Contains(lines[0], "run: working the plan") { // the header names execute in words
			n := 0
			for _, l := range lines[3 : len(lines)-2] {
				if strings.Contains(l, "→ «") || strings.Contains(l, " — ") {
					n++
				}
			}
			if n > 0 && !seen[n] {
				seen[n] = true
				counts = append(counts, n)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(counts) < 3 {
		t.Fatalf("the tree grew in %d distinct frames during execute (%v), want at least 3; last frame:\n%s", len(counts), counts, ansi.Strip(tm.m.LastFrame()))
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Errorf("the tree shrank while execute worked: %v", counts)
		}
	}
}

// TestWorkbenchApprovesAProposalLeftWaiting: `warren tox edit` without --yes leaves a proposal
// waiting; the workbench opened afterwards on the same workspace lists it in the Toxicology
// tab, opens it with its diff, and approves it as a new version.
func TestWorkbenchApprovesAProposalLeftWaiting(t *testing.T) {
	env, st := toxEditWorkspace(t)
	ctx := context.Background()
	r := warren(t, env, "tox", "edit", "EUGENOL", `[{"op":"replace","path":"/noael/0/value","value":200}]`, "--json")
	var res service.ToxEditResult
	if r.code != cli.ExitWaiting || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Status != "waiting" {
		t.Fatalf("tox edit without --yes: %+v", r)
	}

	a := &app{env: env, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	m := tui.New(tui.DesksOf(e))
	t.Cleanup(m.Close) // after the program quits: waits for a doctor check still reading the workspace
	tm := &screenModel{TestModel: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 32)), m: m}
	t.Cleanup(func() { tm.Quit() })
	waitFor(t, tm, "Research question")
	press(tm, tea.KeyEscape)   // out of the question field
	press(tm, '4', tea.ModAlt) // the digits type on the question view
	waitFor(t, tm, "● 1 proposal waits (w)")
	waitFor(t, tm, "EUGENOL             ● v1") // marked in the list

	tm.Type("w")
	waitFor(t, tm, "Proposal · EUGENOL · from version 1")
	waitFor(t, tm, "run "+res.Proposal.ID)
	waitFor(t, tm, "replace /noael/0/value: 100 → 200")
	waitFor(t, tm, `+      "value": 200`)
	tm.Type("a")
	waitFor(t, tm, "EUGENOL saved as version 2")
	waitFor(t, tm, "w waiting (none)")

	latest, err := st.Latest(ctx, "EUGENOL")
	if err != nil || latest.Version != 2 || !strings.Contains(string(latest.Data), `"value":200`) {
		t.Fatalf("the approval is version 2: v%d %v", latest.Version, err)
	}
	if ws, err := e.Tox().Waiting(ctx); err != nil || len(ws) != 0 {
		t.Errorf("still waiting after the approval: %+v %v", ws, err)
	}
	if r := warren(t, env, "tox", "approve", res.Proposal.ID); r.code == 0 {
		t.Errorf("the CLI approved it a second time: %+v", r)
	}
}

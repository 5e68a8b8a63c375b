package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/agent/llm/llmtest"
	"warren/internal/testkb"
	"warren/kb/hmis"
	"warren/tui"
)

// workbench opens the real workbench over a corpus workspace and a scripted model server.
func workbench(t *testing.T, srv *llmtest.Server) (*screenModel, *backend) {
	t.Helper()
	ws, _, _ := testkb.Corpus(t)
	a := &app{env: []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	be := &backend{a: a, e: e}
	m := tui.New(be)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 32))
	t.Cleanup(func() { tm.Quit() })
	return &screenModel{TestModel: tm, m: m}, be
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

	runs, err := be.Runs(context.Background())
	if err != nil || len(runs) != 1 || runs[0].Status != "done" {
		t.Fatalf("one finished run: %+v %v", runs, err)
	}
	_, s, _ := be.RunState(context.Background(), runs[0].ID)
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
	waitFor(t, tm, "generate_queries") // its model call is in flight (400 ms)
	press(tm, tea.KeyEscape)
	waitFor(t, tm, "run canceled")

	runs, _ := be.Runs(context.Background())
	if len(runs) != 1 || runs[0].Status != "canceled" {
		t.Fatalf("the cancelled run keeps its checkpoint: %+v", runs)
	}
	srv.SetLatency(0)
	press(tm, 'o', tea.ModCtrl)
	waitFor(t, tm, " steps ") // the saved run's row
	tm.Type("r")
	waitFor(t, tm, "Refinement, round 1")
	runs, _ = be.Runs(context.Background())
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
	tm, be := workbench(t, srv)
	waitFor(t, tm, "Research question")
	press(tm, tea.KeyEscape) // out of the question field
	tm.Type("3")
	waitFor(t, tm, "No gas table: import one with `warren gas import FILE`")

	st := &hmis.Store{DB: be.e.ws.DB}
	tab := &hmis.Table{Name: "fab", Columns: []string{"Chemical Name", "Pyrophoric", "Boiling Point (°C)"}, Rows: []*hmis.Row{
		{ID: 1, Cells: map[string]hmis.Cell{"chemical_name": {Value: "Silane", Status: hmis.StatusOriginal}, "pyrophoric": {Value: "yes", Status: hmis.StatusOriginal},
			"boiling_point_c": {Value: "-112", Unit: "°C", Status: hmis.StatusReview, Confidence: 0.5, Method: "extract",
				SourceDoc: "suppliers/nordgas-silane.md", SourceSection: "9", Excerpt: "Boiling point: -112 °C"}}},
		{ID: 2, Cells: map[string]hmis.Cell{"chemical_name": {Value: "Nitrogen", Status: hmis.StatusOriginal}, "pyrophoric": {Value: "no", Status: hmis.StatusOriginal}}},
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
	if c := got.Row(1).Cells["boiling_point_c"]; c.Status != hmis.StatusApproved || c.Value != "-112" {
		t.Errorf("the approval is stored: %+v", c)
	}

	tm.Type("/")
	tm.Type("gases that ignite in air")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "query: pyrophoric == true")
	waitFor(t, tm, "1 of 2 rows")
}

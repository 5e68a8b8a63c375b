package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/gas"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/tui"
)

// TestWorkbenchGasFill starts a fill from the Gas tab over the real backend, watches its rows
// complete, cancels it mid-fill (the scripted model answers slowly), resumes it with the same
// key, and finds the fill's model calls in the Log tab.
func TestWorkbenchGasFill(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	srv.SetLatency(120 * time.Millisecond)
	ctx := context.Background()
	table, err := gas.ImportCSV(filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	table.Name, table.Rows = "fab", table.Rows[:4]
	st := &gas.Store{DB: ws.DB}
	if err := st.SaveTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	// One request at a time, so one row at a time: the screen shows each row done, and the
	// cancel lands mid-fill.
	a := &app{env: []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL, "WARREN_OLLAMA_MAX_CONCURRENCY=1"}, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	m := tui.New(tui.DesksOf(e))
	t.Cleanup(m.Close) // after the program quits: waits for a doctor check still reading the workspace
	m.OpenGas("fab")
	tm := &screenModel{TestModel: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 32)), m: m}
	t.Cleanup(func() { tm.Quit() })
	waitFor(t, tm, "Gas table fab")
	waitFor(t, tm, "F fill empty cells")

	tm.Type("F")
	waitFor(t, tm, "fill: 1/4 rows done")
	waitFor(t, tm, "· gas fill: ") // the header says a fill runs, not "no run"
	press(tm, tea.KeyEscape)
	waitFor(t, tm, "fill cancelled:")
	waitFor(t, tm, "F resume the fill")
	last, ok, err := st.LastFill(ctx, "fab")
	if err != nil || !ok || last.Finished || len(last.Done) == 0 || len(last.Done) == 4 {
		t.Fatalf("after the cancel the fill keeps its finished rows and stays open: %+v %v %v", last, ok, err)
	}
	kept := slices.Clone(last.Done)
	run := service.GasFillRun(last.ID)
	if cp, err := e.RunStore().Latest(ctx, run); err != nil || cp.Status != service.RunCanceled {
		t.Errorf("the fill's run is checkpointed as cancelled: %+v %v", cp, err)
	}

	tm.Type("F")
	waitFor(t, tm, "fill done:")
	waitFor(t, tm, "F fill empty cells")
	last, _, err = st.LastFill(ctx, "fab")
	if err != nil || !last.Finished || len(last.Done) != 4 {
		t.Fatalf("the resumed fill finished every row: %+v %v", last, err)
	}
	if service.GasFillRun(last.ID) != run {
		t.Errorf("the resume started a new fill (%s) instead of going on with %s", service.GasFillRun(last.ID), run)
	}
	for _, id := range kept {
		if !slices.Contains(last.Done, id) {
			t.Errorf("row %d, done before the cancel, is no longer done", id)
		}
	}
	got, err := st.LoadTable(ctx, "fab")
	if err != nil {
		t.Fatal(err)
	}
	if got.Counts()[gas.StatusFilled] == 0 {
		t.Errorf("the fill stored no cell")
	}
	ledger, err := e.RunStore().Ledger(ctx, run)
	if err != nil || len(ledger) == 0 {
		t.Fatalf("the fill's calls are in the workspace ledger under %s: %d entries, %v", run, len(ledger), err)
	}

	tm.Type("5")
	waitFor(t, tm, "model   filling the gas table")
	waitFor(t, tm, "step    filling a row")
}

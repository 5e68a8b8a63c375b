package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/tox"
	"warren/tui"
)

// Each desk has one set of rules, the service's: a use case asked on the command line and the
// same one asked in the workbench reach the same method of the desk and are refused alike, in
// the same words, storing nothing. The gas desk's are in gas_desk_test.go.

// openAs opens the workspace of env as the CLI does, for the analyst env's USER names.
func openAs(t *testing.T, env []string) *env {
	t.Helper()
	e, err := (&app{env: env, logger: slog.New(slog.DiscardHandler)}).open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// bench opens the workbench over e's desks, with the question field left for the tabs' keys.
func bench(t *testing.T, e *env) *screenModel {
	t.Helper()
	m := tui.New(tui.DesksOf(e))
	t.Cleanup(m.Close)
	tm := &screenModel{TestModel: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(230, 40)), m: m}
	t.Cleanup(func() { tm.Quit() })
	waitFor(t, tm, "Research question")
	press(tm, tea.KeyEscape)
	return tm
}

func TestIngestOfAMissingFileIsRefusedAlikeOnTheCommandLineAndInTheKnowledgeTab(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, noOllama}
	e := openAs(t, env)
	ctx := context.Background()
	before, err := e.Knowledge().Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	const missing = "/nonexistent-warren/report.md"

	_, err = e.Knowledge().Ingest(ctx, nil, service.IngestOptions{Paths: []string{missing}, Collection: "general"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the desk: want a missing file refused, got %v", err)
	}
	why := err.Error()

	if r := warren(t, env, "ingest", missing); r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("ingest: exit %d, %q; want the desk's refusal %q", r.code, r.stderr, why)
	}

	tm := bench(t, e)
	press(tm, '2', tea.ModAlt) // the digits type on the question view
	waitFor(t, tm, "Collections")
	tm.Type("i")
	tm.Type(missing)
	press(tm, tea.KeyEnter)
	waitFor(t, tm, why)

	if after, err := e.Knowledge().Documents(ctx, ""); err != nil || len(after) != len(before) {
		t.Errorf("a refused ingest stored documents: %d, then %d (%v)", len(before), len(after), err)
	}
}

func TestAnInvalidPatchIsRefusedAlikeOnTheCommandLineAndInTheToxicologyTab(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	store := &tox.Store{DB: ws.DB}
	ctx := context.Background()
	if _, err := store.ImportJSON(ctx, filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, noOllama} // a patch makes no model call
	e := openAs(t, env)
	const patch = `[{"op":"replace","path":"/noael/7/value","value":1}]`

	_, err := e.Tox().Propose(ctx, "EUGENOL", patch)
	if err == nil || !strings.Contains(err.Error(), "operation 0 (replace /noael/7/value)") {
		t.Fatalf("the desk: want the patch refused, got %v", err)
	}
	why := err.Error()

	if r := warren(t, env, "tox", "edit", "EUGENOL", patch, "--yes"); r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("tox edit: exit %d, %q; want the desk's refusal %q", r.code, r.stderr, why)
	}

	tm := bench(t, e)
	press(tm, '4', tea.ModAlt) // the digits type on the question view
	waitFor(t, tm, "Profiles (22)")
	tm.Type("/eugenol")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "EUGENOL · v1 · import")
	tm.Type("i")
	waitFor(t, tm, "Edit EUGENOL · from version 1")
	tm.Send(tea.PasteMsg{Content: patch})
	press(tm, 's', tea.ModCtrl)
	waitFor(t, tm, why)

	if latest, err := store.Latest(ctx, "EUGENOL"); err != nil || latest.Version != 1 {
		t.Errorf("a refused patch was saved: v%d %v", latest.Version, err)
	}
}

func TestResumingAnotherAnalystsRunIsRefusedAlikeOnTheCommandLineAndInTheResearchTab(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	base := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	// Alice's run stops at its questions and waits for her (exit 4).
	if r := warren(t, append(base, "USER=alice"), "research", "Welche Pflichten gelten für Gefahrstoffe?"); r.code != 4 || !strings.Contains(r.stdout, "waits for your answer") {
		t.Fatalf("alice's run: %+v", r)
	}
	bob := append(base, "USER=bob")
	e := openAs(t, bob)
	ctx := context.Background()
	runs, err := e.Research().Runs(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	run := runs[0].ID
	steps := func() int {
		cps, err := e.RunStore().Checkpoints(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return len(cps)
	}
	before, calls := steps(), srv.Count("/api/chat")

	_, _, err = e.Research().Resume(ctx, run, nil, nil)
	if !errors.Is(err, service.ErrNotOwner) {
		t.Fatalf("the desk: want bob refused, got %v", err)
	}
	why := err.Error()

	if r := warren(t, bob, "research", "--resume", run, "--yes"); r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("research --resume: exit %d, %q; want the desk's refusal %q", r.code, r.stderr, why)
	}

	tm := bench(t, e)
	press(tm, 'o', tea.ModCtrl)
	waitFor(t, tm, " steps ") // the saved run's row
	tm.Type("r")
	waitFor(t, tm, why)

	if after := steps(); after != before || srv.Count("/api/chat") != calls {
		t.Errorf("a refused resume went on: %d checkpoints, then %d; %d model calls, then %d", before, after, calls, srv.Count("/api/chat"))
	}
	if job, err := e.Jobs().Get(ctx, run); err != nil || job.Owner != "alice" {
		t.Errorf("the run stays alice's: %+v %v", job, err)
	}
}

// The jobs desk: cancelling another analyst's job is refused alike by the desk, by
// `warren jobs cancel` and by ctrl+x in the Research tab following it, and the job goes on; its
// owner's cancel from another process stops it.
func TestCancellingAnotherAnalystsJobIsRefusedAlikeOnTheCommandLineAndInTheResearchTab(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	srv.SetLatency(300 * time.Millisecond) // the run is still working when the cancels come
	base := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	alice, bob := append(base, "USER=alice"), append(base, "USER=bob")
	ran := make(chan result, 1)
	go func() { ran <- warren(t, alice, "research", "--no-hitl", "Welche Pflichten gelten für Gefahrstoffe?") }()

	e := openAs(t, bob)
	ctx := context.Background()
	var run string
	for run == "" {
		list, err := e.Jobs().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range list {
			if j.Kind == "research" && j.State == "running" {
				run = j.ID
			}
		}
		select {
		case r := <-ran:
			t.Fatalf("alice's run ended before it could be cancelled: %+v", r)
		case <-time.After(20 * time.Millisecond):
		}
	}

	err := e.Jobs().Cancel(ctx, run)
	if !errors.Is(err, service.ErrNotOwner) {
		t.Fatalf("the desk: want bob refused, got %v", err)
	}
	why := err.Error()
	if r := warren(t, bob, "jobs", "cancel", run); r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("jobs cancel: exit %d, %q; want the desk's refusal %q", r.code, r.stderr, why)
	}
	// In the workbench bob follows alice's run; ctrl+x, pressed anyway, gets the same refusal.
	tm := bench(t, e)
	press(tm, 'o', tea.ModCtrl)
	waitFor(t, tm, "alice")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "watching alice's run")
	press(tm, 'x', tea.ModCtrl)
	waitFor(t, tm, why)
	if job, err := e.Jobs().Get(ctx, run); err != nil || job.State != "running" {
		t.Fatalf("a refused cancel stopped the run: %+v %v", job, err)
	}

	// Alice cancels it from a shell of her own: the process running it stops it.
	if r := warren(t, alice, "jobs", "cancel", run); r.code != 0 || !strings.Contains(r.stdout, "Asked "+run+" to stop") {
		t.Fatalf("alice's cancel: %+v", r)
	}
	select {
	case <-ran:
	case <-time.After(time.Minute):
		t.Fatal("the run went on after its owner cancelled it")
	}
	if job, err := e.Jobs().Get(ctx, run); err != nil || job.State != "canceled" {
		t.Errorf("the run after alice's cancel: %+v %v", job, err)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/internal/testkb"
	"warren/tui"
)

// stateWords are the words of a job's state, as a listing may show them; a row must show
// exactly one of them.
var stateWords = []string{"running", "waiting", "interrupted", "done", "failed", "cancelled", "canceled"}

// wordsIn lists the state words a row shows ("waiting for alice" shows "waiting").
func wordsIn(row string) []string {
	var out []string
	for _, f := range strings.Fields(row) {
		for _, w := range stateWords {
			if f == w {
				out = append(out, w)
			}
		}
	}
	return out
}

// TestAJobsStateReadsTheSameInEveryListing records a run for every combination of a job's
// stored state (or no job) and the run's stored status, and reads each run's state through
// every listing: `warren jobs list` and `warren sessions list`, their --json, and the workbench's
// sessions list. Each must give the one word of the vocabulary (running, waiting for NAME,
// interrupted, done, failed, cancelled) the table below expects.
func TestAJobsStateReadsTheSameInEveryListing(t *testing.T) {
	ws, _ := testkb.Empty(t)
	jobStates := []string{"running", "waiting", "done", "failed", "canceled", "interrupted", ""} // "": no job
	runStatuses := []string{"running", "interrupted", "done", "failed", "canceled"}
	// What a job's record reads as; without a job, what the run's status reads as.
	byJob := map[string]string{"running": "running", "waiting": "waiting for %s", "done": "done", "failed": "failed",
		"canceled": "cancelled", "interrupted": "interrupted"}
	byRun := map[string]string{"running": "running", "interrupted": "waiting", "done": "done", "failed": "failed", "canceled": "cancelled"}

	want := map[string]string{} // run id → its state in words
	withJob := map[string]bool{}
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	n := 0
	for _, js := range jobStates {
		for _, rs := range runStatuses {
			id, owner := fmt.Sprintf("run-%02d", n), []string{"alice", "bob"}[n%2]
			at := base.Add(time.Duration(n) * time.Minute).Format(time.RFC3339Nano)
			n++
			if _, err := ws.DB.Exec(`INSERT INTO runs (id, graph, title, status, created_at, updated_at) VALUES (?, 'research', ?, ?, ?, ?)`,
				id, "question "+id, rs, at, at); err != nil {
				t.Fatal(err)
			}
			if js == "" {
				want[id] = byRun[rs]
				continue
			}
			// A running job's process is this one, alive, so that it is not marked interrupted.
			if _, err := ws.DB.Exec(`INSERT INTO jobs (id, kind, owner, title, state, process, pid, created_at, updated_at)
VALUES (?, 'research', ?, ?, ?, 'test', ?, ?, ?)`, id, owner, "question "+id, js, os.Getpid(), at, at); err != nil {
				t.Fatal(err)
			}
			want[id], withJob[id] = byJob[js], true
			if js == "waiting" {
				want[id] = fmt.Sprintf(byJob[js], owner)
			}
		}
	}
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=127.0.0.1:1", "USER=carol"} // carol owns none of them

	// checkRow: the row of run id in a table shows its state, and no other.
	checkRow := func(listing, table, id string) {
		t.Helper()
		for _, line := range strings.Split(table, "\n") {
			if !strings.HasPrefix(strings.TrimLeft(line, " ▸"), id+" ") {
				continue
			}
			words := wordsIn(line)
			if !strings.Contains(line, " "+want[id]+" ") || len(words) != 1 || words[0] != strings.Fields(want[id])[0] {
				t.Errorf("%s shows %s as %q, want %q (state words %v)", listing, id, line, want[id], words)
			}
			return
		}
		t.Errorf("%s has no row for %s:\n%s", listing, id, table)
	}
	type listed struct {
		ID         string `json:"id"`
		State      string `json:"state"`
		WaitingFor string `json:"waiting_for"`
	}
	readJSON := func(args ...string) map[string]string {
		t.Helper()
		r := warren(t, env, args...)
		var list []listed
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil {
			t.Fatalf("%v: %+v", args, r)
		}
		out := map[string]string{}
		for _, l := range list {
			out[l.ID] = l.State
			if l.WaitingFor != "" {
				out[l.ID] += " for " + l.WaitingFor
			}
		}
		return out
	}

	jobsJSON, sessionsJSON := readJSON("jobs", "list", "--json"), readJSON("sessions", "list", "--json")
	jobsTable, sessionsTable := warren(t, env, "jobs", "list"), warren(t, env, "sessions", "list")
	if jobsTable.code != 0 || sessionsTable.code != 0 {
		t.Fatalf("jobs: %+v\nsessions list: %+v", jobsTable, sessionsTable)
	}
	screen := workbenchSessions(t, env, len(want))
	for id, w := range want {
		if withJob[id] {
			if jobsJSON[id] != w {
				t.Errorf("warren jobs list --json gives %s as %q, want %q", id, jobsJSON[id], w)
			}
			checkRow("warren jobs list", jobsTable.stdout, id)
		}
		if sessionsJSON[id] != w {
			t.Errorf("warren sessions list --json gives %s as %q, want %q", id, sessionsJSON[id], w)
		}
		checkRow("warren sessions list", sessionsTable.stdout, id)
		checkRow("the workbench's sessions list", screen, id)
	}
}

// workbenchSessions opens the workbench on the workspace env names and returns its sessions
// list once it shows rows runs.
func workbenchSessions(t *testing.T, env []string, rows int) string {
	t.Helper()
	e, err := (&app{env: env, logger: slog.New(slog.DiscardHandler)}).open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	m := tui.New(tui.DesksOf(e))
	t.Cleanup(m.Close)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, rows+12))
	t.Cleanup(func() { tm.Quit() })
	sm := &screenModel{TestModel: tm, m: m}
	waitFor(t, sm, "Research question")
	press(sm, 'o', tea.ModCtrl)
	waitFor(t, sm, "run-00 ")
	return ansi.Strip(m.LastFrame())
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"warren/agent"
	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/service"
)

// sessions show counts a run's calls by the host that answered them.
func TestSessionsShowCountsCallsByHost(t *testing.T) {
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	warren(t, env, "init")
	run := finishedRun(t, ws)
	w, err := kb.Open(ws, config.Sources{}, schema.All())
	if err != nil {
		t.Fatal(err)
	}
	store := &agent.Store{DB: w.DB}
	for _, host := range []string{"http://gpu1:11434", "http://gpu1:11434", "http://gpu2:11434"} {
		if err := store.RecordLedger(context.Background(), service.LedgerEntry{Run: run, Time: time.Now(), Role: "chat",
			Host: host, Kind: "text", Attempts: 1, Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	r := warren(t, env, "sessions", "show", run)
	if r.code != 0 || !strings.Contains(r.stdout, "Calls by host: http://gpu1:11434 2, http://gpu2:11434 1\n") {
		t.Errorf("sessions show: %+v", r)
	}
}

package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/internal/testkb"
	"warren/llm/llmtest"
)

// TestACommandLineRunIsFollowedLiveInAnotherAnalystsWorkbench: alice's `warren research`
// (another service, as another process would be) is listed in bob's workbench while it runs and
// followed live from its record: its steps so far, then the next ones, and at its questions
// bob's budget bar counts what the run's ledger holds. Bob is offered no decision; esc is not a
// cancellation, and ctrl+x pressed anyway shows the desk's refusal.
func TestACommandLineRunIsFollowedLiveInAnotherAnalystsWorkbench(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	srv.SetLatency(700 * time.Millisecond) // slow enough to attach while it runs
	base := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	done := make(chan result, 1)
	go func() {
		done <- warren(t, append(base, "USER=alice"), "research", "Welche Pflichten gelten für Gefahrstoffe?")
	}()

	e := openAs(t, append(base, "USER=bob"))
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if runs, _ := e.Research().Runs(ctx); len(runs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("alice's run never showed in the runs")
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm := bench(t, e)
	press(tm, 'o', tea.ModCtrl)
	waitFor(t, tm, "alice")
	press(tm, tea.KeyEnter)
	waitFor(t, tm, "watching alice's run")
	waitFor(t, tm, "· running") // followed while it runs, not "runs elsewhere"
	if strings.Contains(ansi.Strip(tm.m.LastFrame()), "another warren process") {
		t.Fatal("the run is said to run elsewhere")
	}
	waitFor(t, tm, "Refinement, round 1") // it reached its questions, live
	r := <-done
	if r.code != 4 {
		t.Fatalf("alice's run: %+v", r)
	}
	runs, _ := e.Research().Runs(ctx)
	ledger, err := e.Research().Ledger(ctx, runs[0].ID)
	if err != nil || len(ledger) == 0 {
		t.Fatalf("ledger: %d %v", len(ledger), err)
	}
	// The run view's bars: the ledger's figures, not what bob's screen happened to see.
	press(tm, tea.KeyEscape)
	calls := regexp.MustCompile(fmt.Sprintf(`(?m)^calls +[█░]* %d/`, len(ledger)))
	waitFor(t, tm, "Trail")
	frame := ansi.Strip(tm.m.LastFrame())
	if !calls.MatchString(frame) {
		t.Errorf("bob's calls bar is not the ledger's %d:\n%s", len(ledger), frame)
	}
	for _, bad := range []string{"cancel", "ctrl+s", "send"} {
		if strings.Contains(strings.ToLower(lastLine(frame)), bad) {
			t.Errorf("bob's help line offers %q: %s", bad, lastLine(frame))
		}
	}
	press(tm, 'x', tea.ModCtrl)
	waitFor(t, tm, "only alice (or an admin) can cancel it")
	if job, err := e.Jobs().Get(ctx, runs[0].ID); err != nil || job.State == "canceled" || job.State == "cancelled" {
		t.Errorf("alice's run was cancelled by bob's keys: %+v %v", job, err)
	}
}

func lastLine(frame string) string {
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	return lines[len(lines)-1]
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"warren/agent"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
)

// TestKilledRunNeverSendsMoreThanItsBudget kills `warren research --budget-calls 12` (a run
// that needs about 20 calls) with SIGKILL at several moments, each with calls in flight (the
// kill comes while the Nth request is being answered), resumes the run, and counts the chat
// requests the server received over both processes: never more than 12. Calls in flight used
// to be counted only when they answered, so the resumed process spent their share again (22
// requests for a budget of 20 in the report of issue 17).
func TestKilledRunNeverSendsMoreThanItsBudget(t *testing.T) {
	const budget = 12
	bin := filepath.Join(t.TempDir(), "warren")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, killAt := range []int{2, 5, 8, 11} {
		t.Run(fmt.Sprintf("killed at request %d", killAt), func(t *testing.T) {
			ws, _, _ := testkb.Corpus(t)
			srv := llmtest.New(t)
			srv.SetFallback(llmtest.Meaningless)
			srv.SetLatency(150 * time.Millisecond)
			environ := append(os.Environ(), "WARREN_WORKSPACE="+ws.Dir, "OLLAMA_HOST="+srv.URL)

			cmd := exec.Command(bin, "research", "Welche Pflichten hat der Arbeitgeber bei der Gefährdungsbeurteilung?", "--yes",
				"--budget-calls", fmt.Sprint(budget))
			cmd.Env = environ
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			started := make(chan string, 1)
			go func() {
				scanner := bufio.NewScanner(stderr)
				for scanner.Scan() {
					if m := regexp.MustCompile(`^run (\S+): started`).FindStringSubmatch(scanner.Text()); m != nil {
						started <- m[1]
					}
				}
			}()
			deadline := time.Now().Add(30 * time.Second)
			for srv.Count("/api/chat") < killAt && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			atKill := srv.Count("/api/chat")
			var run string
			select {
			case run = <-started:
			case <-time.After(5 * time.Second):
				t.Fatal("the run never started")
			}
			if atKill < killAt {
				t.Fatalf("the run sent %d requests before the deadline, want %d", atKill, killAt)
			}
			store := &agent.Store{DB: ws.DB}
			before, _ := store.Ledger(context.Background(), run)
			if cp, _ := store.Latest(context.Background(), run); cp.Status == service.RunDone {
				t.Fatalf("the kill came too late: the run had finished")
			}

			resume := exec.Command(bin, "research", "--resume", run, "--yes", "--json")
			resume.Env = environ
			if out, err := resume.Output(); err != nil {
				t.Fatalf("resume: %v\n%s", err, out)
			}
			after, _ := store.Ledger(context.Background(), run)
			sent := srv.Count("/api/chat")
			t.Logf("killed with %d requests sent and %d in the ledger; %d requests in all, %d ledger rows", atKill, len(before), sent, len(after))
			if sent > budget {
				t.Errorf("the server received %d chat requests for a budget of %d", sent, budget)
			}
			if len(after) > budget {
				t.Errorf("the ledger holds %d calls for a budget of %d", len(after), budget)
			}
			if len(after) < budget {
				t.Errorf("the resumed run must spend its budget for the test to mean anything: %d of %d calls", len(after), budget)
			}
		})
	}
}

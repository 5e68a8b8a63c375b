package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"warren/agent"
	"warren/internal/citation"
	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
)

// TestMeaninglessModelRunCompletesWithinBudget runs `warren research --yes` over the shared
// corpus against a server whose every answer is valid in shape and meaningless in content.
func TestMeaninglessModelRunCompletesWithinBudget(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	const budget = 150
	r := warren(t, env, "research", "Welche Pflichten hat der Arbeitgeber bei der Gefährdungsbeurteilung?", "--yes", "--json",
		"--budget-calls", "150")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum service.ResearchSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if sum.Status != service.RunDone || sum.Calls > budget || srv.Count("/api/chat") > budget {
		t.Fatalf("want a finished run within %d calls: %+v (%d chat requests)", budget, sum, srv.Count("/api/chat"))
	}
	report, err := os.ReadFile(sum.Report)
	if err != nil {
		t.Fatal(err)
	}
	var state service.ResearchState
	cp, _ := (&agent.Store{DB: ws.DB}).Latest(context.Background(), sum.Run)
	json.Unmarshal(cp.State, &state)
	body := state.Report
	for _, n := range citation.Numbers(body) {
		if n < 1 || n > len(state.Sources) {
			t.Errorf("citation [%d] does not resolve (%d sources)", n, len(state.Sources))
		}
	}
	if !strings.Contains(string(report), "## Sources") && len(state.Sources) > 0 {
		t.Errorf("the report file lists its sources:\n%s", report)
	}
	t.Logf("meaningless run: %d calls, status %s, partial %v, %d sources, references %v", sum.Calls, sum.Status, sum.Partial, len(state.Sources), sum.References)
}

// TestKilledRunResumesWithoutRepeatingCalls kills the real binary with SIGKILL while it works
// the plan's tasks, resumes the run, and checks the ledger: it completes, and no completed
// model call appears twice.
func TestKilledRunResumesWithoutRepeatingCalls(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	srv.SetLatency(100 * time.Millisecond)
	bin := filepath.Join(t.TempDir(), "warren")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	environ := append(os.Environ(), "WARREN_WORKSPACE="+ws.Dir, "OLLAMA_HOST="+srv.URL)

	cmd := exec.Command(bin, "research", "Welche Pflichten hat der Arbeitgeber bei der Gefährdungsbeurteilung?", "--yes", "--budget-calls", "300")
	cmd.Env = environ
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := ""
	killed := false
	scanner := bufio.NewScanner(stderr)
	for scanner.Scan() {
		line := scanner.Text()
		if m := regexp.MustCompile(`^run (\S+): started`).FindStringSubmatch(line); m != nil {
			run = m[1]
		}
		if strings.Contains(line, "working the plan") && strings.Contains(line, "…") && !killed { // execute, in words
			time.Sleep(250 * time.Millisecond) // let some of the task's calls complete, with others in flight
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	cmd.Wait()
	if run == "" || !killed {
		t.Fatalf("the run never reached phase 3 (run %q)", run)
	}
	store := &agent.Store{DB: ws.DB}
	before, _ := store.Ledger(context.Background(), run)
	cp, _ := store.Latest(context.Background(), run)
	if cp.Status == service.RunDone {
		t.Fatalf("the kill came too late: the run had finished")
	}
	// The run's job shows as interrupted: its process is gone.
	if state := jobState(t, bin, environ, run); state != "interrupted" {
		t.Fatalf("the killed run's job is %q, want interrupted", state)
	}

	resume := exec.Command(bin, "research", "--resume", run, "--yes", "--json")
	resume.Env = environ
	out, err := resume.Output()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	var sum service.ResearchSummary
	if err := json.Unmarshal(out, &sum); err != nil || sum.Status != service.RunDone {
		t.Fatalf("the resumed run completes: %v %s", err, out)
	}
	if state := jobState(t, bin, environ, run); state != "done" {
		t.Errorf("the resumed run's job is %q, want done", state)
	}
	after, _ := store.Ledger(context.Background(), run)
	seen := map[string]bool{}
	for _, e := range after {
		if e.Outcome == "error" || e.Outcome == service.CallSent { // a call in flight at the kill
			continue
		}
		if seen[e.Key] {
			t.Errorf("a completed model call was repeated: node %s, key %s", e.Node, e.Key)
		}
		seen[e.Key] = true
	}
	t.Logf("killed after %d completed calls at %s (next %s); %d calls in all after resume", len(before), cp.Node, cp.Next, len(after))
	// Every request the server answered is in the ledger, except those in flight at the kill
	// (at most one per slot): a completed call sent again under another key would show here.
	if sent := srv.Count("/api/chat"); sent > len(after)+2 {
		t.Errorf("the server answered %d chat requests, the ledger records %d", sent, len(after))
	}
	if len(after) <= len(before) {
		t.Errorf("the resume must have done the rest of the work: %d calls before, %d after", len(before), len(after))
	}
}

func TestResearchFromAnAnswersFileAndSessions(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	answers := filepath.Join(t.TempDir(), "answers.yaml")
	os.WriteFile(answers, []byte(`questions:
  - "Es geht um Stoffe und Gemische."
  - /end
plan:
  - action: replan
    comment: "Nur eine Aufgabe, bitte."
  - action: approve
    tasks:
      - query: "Gefährdungsbeurteilung Informationsermittlung"
        rationale: "vom Analysten geschrieben"
`), 0o644)
	out := filepath.Join(t.TempDir(), "report.md")
	// The answers are given, and the run owned, in the name of the account that runs warren.
	env = append(env, "USER=ada")
	r := warren(t, env, "research", "Welche Pflichten hat der Arbeitgeber?", "--answers", answers, "--out", out, "--json")
	var sum service.ResearchSummary
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if sum.Status != service.RunDone || len(sum.Tasks) != 1 || sum.Tasks[0].Query != "Gefährdungsbeurteilung Informationsermittlung" ||
		sum.Termination != "ended by the analyst (/end)" || sum.Report != out {
		t.Errorf("the answers file drives the run (two rounds, a replan, an edited plan): %+v", sum)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("report not written: %v", err)
	}
	calls := srv.Count("/api/chat")
	if calls == 0 {
		t.Error("no model calls")
	}

	r = warren(t, env, "sessions", "list", "--json")
	var runs []service.RunInfo
	if json.Unmarshal([]byte(r.stdout), &runs) != nil || len(runs) != 1 || runs[0].ID != sum.Run || runs[0].Status != service.RunDone {
		t.Fatalf("sessions list: %s", r.stdout)
	}
	if r = warren(t, env, "sessions", "show", sum.Run); r.code != 0 || !strings.Contains(r.stdout, "Refinement ended: ended by the analyst") {
		t.Errorf("sessions show: %+v", r)
	}
	for _, line := range []string{"questions round 1: answered by ada at ", "questions round 2: ended by ada", "plan round 1: replan by ada", "plan round 2: edited by ada"} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("sessions show doesn't say %q:\n%s", line, r.stdout)
		}
	}
	r = warren(t, env, "sessions", "show", sum.Run, "--json")
	var shown struct {
		Decisions []struct{ Kind, Action, By string } `json:"decisions"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &shown) != nil || len(shown.Decisions) != 4 || shown.Decisions[3].Action != "edited" || shown.Decisions[3].By != "ada" {
		t.Errorf("sessions show --json names who decided: %+v (%s)", shown, r.stderr)
	}
	want := "Run " + sum.Run + " has finished; its report is " + filepath.Join(ws.Dir, "exports", "research-"+sum.Run+".md") + ".\n"
	if r = warren(t, env, "research", "--resume", sum.Run, "--yes"); r.code != 0 || r.stdout != want || srv.Count("/api/chat") != calls {
		t.Errorf("resuming a finished run says where its report is, and calls no model: %+v", r)
	}
	if r = warren(t, env, "sessions", "rm", sum.Run); r.code != 0 {
		t.Fatalf("sessions rm: %+v", r)
	}
	if r = warren(t, env, "sessions", "show", sum.Run); r.code != cli.ExitFailure || !strings.Contains(r.stderr, "sessions list") {
		t.Errorf("a removed run is gone with a hint: %+v", r)
	}
}

func TestResumedRunTakesEachPreparedAnswerOnce(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	os.WriteFile(first, []byte("questions: [\"erste Antwort\"]\n"), 0o644)
	r := warren(t, env, "research", "Welche Pflichten hat der Arbeitgeber?", "--answers", first, "--json")
	var sum service.ResearchSummary
	json.Unmarshal([]byte(r.stdout), &sum)
	if r.code != cli.ExitWaiting || sum.Waiting != service.InterruptQuestions {
		t.Fatalf("out of answers, the run waits (exit 4): %+v %s", r, r.stderr)
	}
	all := filepath.Join(dir, "all.yaml")
	os.WriteFile(all, []byte("questions: [\"erste Antwort\", \"zweite Antwort\", /end]\nplan: {action: approve}\n"), 0o644)
	r = warren(t, env, "research", "--resume", sum.Run, "--answers", all, "--json")
	if r.code != 0 {
		t.Fatalf("resume: %+v", r)
	}
	var state service.ResearchState
	cp, _ := (&agent.Store{DB: ws.DB}).Latest(context.Background(), sum.Run)
	json.Unmarshal(cp.State, &state)
	var answers []string
	for _, a := range state.Answers {
		answers = append(answers, a.Text)
	}
	if strings.Join(answers, "|") != "erste Antwort|zweite Antwort" || state.Termination != "ended by the analyst (/end)" {
		t.Errorf("each prepared answer once, then /end: %v, %q", answers, state.Termination)
	}
}

// jobState is the state `warren jobs list --json` gives the job id.
func jobState(t *testing.T, bin string, environ []string, id string) string {
	t.Helper()
	cmd := exec.Command(bin, "jobs", "list", "--json")
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("warren jobs list: %v\n%s", err, out)
	}
	var list []struct{ ID, State string }
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("warren jobs list --json: %v\n%s", err, out)
	}
	for _, j := range list {
		if j.ID == id {
			return j.State
		}
	}
	t.Fatalf("no job %s in %s", id, out)
	return ""
}

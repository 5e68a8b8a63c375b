package research

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"warren/agent"
	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
)

func TestRefinementEndsByConvergence(t *testing.T) {
	h := newHarness(t)
	// Round one: low coverage, so the analyst is asked; round two finds the same passages
	// (dedup ratio 1) with high coverage and few gaps.
	h.srv.Handle(&llmtest.Rule{SchemaHas: "coverage", Replies: []string{
		`{"coverage":0.3,"gaps":["a","b","c"],"summary":"dünn","key_concepts":["Einstufung"],"entities":[],"scope":"Stoffe"}`,
		`{"coverage":0.9,"gaps":["a"],"summary":"gut","key_concepts":["Einstufung"],"entities":[],"scope":"Stoffe"}`}})
	scriptRefinement(h.srv, 0.9, []string{"a"})
	scriptWork(h.srv)
	ctx := context.Background()
	h.svc.Start(ctx, "conv", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{HITL: true})
	out, s, err := h.svc.Resume(ctx, "conv", json.RawMessage(`"Stoffe"`))
	if err != nil || out.Interrupt == nil || out.Interrupt.Kind != InterruptPlan {
		t.Fatalf("convergence goes straight to the plan: %+v %v; coverage %.2f dedup %.2f gaps %v termination %q", out, err, s.Coverage, s.DedupRatio, s.Gaps, s.Termination)
	}
	if s.Termination != "converged" || s.DedupRatio < convergedDedup || h.nodesRun()["ask"] != 1 {
		t.Errorf("termination %q, dedup %.2f, asked %d times", s.Termination, s.DedupRatio, h.nodesRun()["ask"])
	}
}

func TestRefinementEndsAtTheIterationLimit(t *testing.T) {
	h := newHarness(t)
	scriptRefinement(h.srv, 0.2, []string{"a", "b", "c"})
	scriptWork(h.srv)
	ctx := context.Background()
	out, _, _ := h.svc.Start(ctx, "limit", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{HITL: true, MaxIterations: 2})
	for i := 0; out.Interrupt != nil && out.Interrupt.Kind == InterruptQuestions && i < 5; i++ {
		out, _, _ = h.svc.Resume(ctx, "limit", json.RawMessage(`"mehr Details"`))
	}
	var s State
	cp, _ := h.store.Latest(ctx, "limit")
	json.Unmarshal(cp.State, &s)
	if out.Interrupt == nil || out.Interrupt.Kind != InterruptPlan || s.Termination != "iteration limit" || len(s.Answers) != 2 {
		t.Errorf("want the plan after two answered rounds: %+v, termination %q, %d answers", out, s.Termination, len(s.Answers))
	}
}

func TestBudgetExhaustionWritesAPartialReport(t *testing.T) {
	const budget = 20 // the run needs 34
	h := newHarness(t, func(c *config.Config) { c.Budgets.ModelCalls = budget })
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	ctx := context.Background()
	out, _, err := h.svc.Start(ctx, "budget", "Welche Pflichten gelten für die Einstufung und Kennzeichnung von Gefahrstoffen?", Options{})
	if err != nil || out.Interrupt == nil {
		t.Fatalf("plan: %+v %v", out, err)
	}
	out, s, err := h.svc.Resume(ctx, "budget", json.RawMessage(`{"action":"approve"}`))
	if err != nil || out.Status != agent.StatusDone {
		t.Fatalf("a run out of budget still ends, with a partial report: %+v %v", out, err)
	}
	if !s.Exhausted || !strings.Contains(s.Report, "This report is partial") || !strings.Contains(s.PartialNote, "budget") {
		t.Errorf("the report must say it is partial: exhausted %v, note %q\n%s", s.Exhausted, s.PartialNote, s.Report)
	}
	if problems := CheckCitations(s.Report, len(s.Sources)); len(problems) > 0 || len(s.Findings) == 0 {
		t.Errorf("the partial report cites what was found: %v, %d findings", problems, len(s.Findings))
	}
	// Never exceeded. Calls in flight beside the one that ran out of budget are cancelled, and a
	// call cancelled after it reserved its place but before it was sent leaves that place
	// unused: at most the other calls in flight.
	inFlight := config.Default().Ollama.MaxConcurrency
	if n := h.srv.Count("/api/chat"); n > budget || n <= budget-inFlight {
		t.Errorf("the budget is spent and never exceeded: %d chat requests for a budget of %d", n, budget)
	}
	if h.nodesRun()["write_partial"] != 1 {
		t.Errorf("write_partial must run once: %v", h.nodesRun())
	}
	// It says what it did not do: the tasks not worked or not finished, what their passages
	// referred to that was not decided, and the report not written.
	notDone := strings.Join(s.NotDone, "\n")
	for _, want := range []string{"task t", "the report: the findings are listed instead"} {
		if !strings.Contains(notDone, want) || !strings.Contains(s.Report, "> Not done:") {
			t.Errorf("what was not done must be listed, in the state and the report (want %q):\n%s\n---\n%s", want, notDone, s.Report)
		}
	}
	for _, task := range s.Plan {
		if task.Status != "done" && !strings.Contains(notDone, "task "+task.ID+" ") {
			t.Errorf("task %s is not done and not listed:\n%s", task.ID, notDone)
		}
	}
	for _, r := range s.References {
		if r.State == RefOverBudget && !strings.Contains(notDone, "«"+oneLine(r.Text)+"»") {
			t.Errorf("reference %q was not followed and is not listed:\n%s", r.Text, notDone)
		}
	}
}

// A resumed run keeps the budget it was started with, though the process that resumes it has
// another default (found against a real server: a run started with 80 calls made 187).
func TestResumedRunKeepsItsBudget(t *testing.T) {
	const budget = 20
	h := newHarness(t)
	h.svc.Budget.Calls = budget
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	ctx := context.Background()
	out, _, err := h.svc.Start(ctx, "kept", "Welche Pflichten gelten für die Einstufung und Kennzeichnung von Gefahrstoffen?", Options{})
	if err != nil || out.Interrupt == nil {
		t.Fatalf("plan: %+v %v", out, err)
	}
	h.svc.Budget.Calls = 300 // a later process, with the configured default
	out, s, err := h.svc.Resume(ctx, "kept", json.RawMessage(`{"action":"approve"}`))
	if err != nil || out.Status != agent.StatusDone || !s.Exhausted {
		t.Fatalf("the run's own budget of %d runs out: %+v %v, exhausted %v", budget, out, err, s.Exhausted)
	}
	// Spent up to the run's own budget, not the process's 300: as above, a call cancelled between
	// its reservation and its sending leaves its place unused.
	inFlight := config.Default().Ollama.MaxConcurrency
	if n := h.srv.Count("/api/chat"); n > budget || n <= budget-inFlight {
		t.Errorf("%d chat requests, want the run's budget of %d (less at most %d in flight)", n, budget, inFlight-1)
	}
}

// An explicit call budget on resume replaces the run's own, for later sittings too.
func TestResumeWithAnExplicitBudget(t *testing.T) {
	h := newHarness(t)
	h.svc.Budget.Calls = 20
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	ctx := context.Background()
	if _, _, err := h.svc.Start(ctx, "raised", "Welche Pflichten gelten für die Einstufung und Kennzeichnung von Gefahrstoffen?", Options{}); err != nil {
		t.Fatal(err)
	}
	h.svc.CallsOverride = 300
	out, s, err := h.svc.Resume(ctx, "raised", json.RawMessage(`{"action":"approve"}`))
	if err != nil || out.Status != agent.StatusDone || s.Exhausted || h.srv.Count("/api/chat") <= 20 {
		t.Fatalf("the raised budget lets the run finish: %+v %v, exhausted %v, %d requests", out, err, s.Exhausted, h.srv.Count("/api/chat"))
	}
	if s.Budget == nil || s.Budget.Calls != 300 || s.Budget.Tokens != h.svc.Budget.Tokens {
		t.Errorf("the run keeps its raised call budget and its own token budget: %+v", s.Budget)
	}
}

// TestInvalidOutputInEveryNodeType makes one node's answers invalid. Once is repaired by the
// gateway and the run completes; always ends the run with an error that names the node and
// says what went wrong, and the run stays resumable.
func TestInvalidOutputInEveryNodeType(t *testing.T) {
	cases := []struct{ node, prop string }{ // each structured call, by its schema's distinctive property
		{"generate_queries", "queries"}, {"analyze", "coverage"}, {"ask", "questions"}, {"process_answer", "insights"},
		{"finalize", "research_queries"}, {"plan", "tasks"}, {"execute", "information"}, {"execute", "references"},
		{"execute", "gates"}, {"execute", "relevance"}, {"execute", "task_done"}, {"quality", "factual_accuracy"},
		{"remediate", "decision"},
	}
	for _, tc := range cases {
		node, prop := tc.node, tc.prop
		for _, always := range []bool{false, true} {
			name := node + "/" + prop + "/repaired"
			if always {
				name = node + "/" + prop + "/fails"
			}
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, func(c *config.Config) { c.Ollama.RepairAttempts = 1 })
				times := 1
				if always {
					times = 0
				}
				h.srv.Handle(&llmtest.Rule{Name: "broken " + prop, SchemaHas: prop, Replies: []string{"I would rather explain in prose."}, Times: times})
				scriptRefinement(h.srv, 0.2, []string{"a"})
				scriptWork(h.srv)
				scriptReport(h.srv)
				ctx := context.Background()
				run := "inv-" + strings.ReplaceAll(name, "/", "-")
				// One answered round of questions, then /end, then the plan approved.
				out, _, err := h.svc.Start(ctx, run, "Welche Pflichten gelten für die Einstufung und Kennzeichnung von Gefahrstoffen?", Options{HITL: true})
				// The approved task has a reference chain, so every call of the execute node happens.
				approve := `{"action":"approve","tasks":[{"id":"t1","query":"Einstufung Kennzeichnung Verpackung Biozid-Produkte Erzeugnisse"},
					{"query":"Übergangsregelung Chemikaliengesetz Zwecke"}]}`
				for _, answer := range []string{`"Stoffe und Gemische"`, `"/end"`, approve} {
					if err != nil || out.Interrupt == nil {
						break
					}
					out, _, err = h.svc.Resume(ctx, run, json.RawMessage(answer))
				}
				if !always {
					if err != nil || out.Status != agent.StatusDone {
						t.Fatalf("one invalid answer is repaired and the run completes: %+v %v", out, err)
					}
					return
				}
				if !errors.Is(err, llm.ErrInvalidOutput) || !strings.HasPrefix(err.Error(), node+": ") || out.Status != agent.StatusFailed {
					t.Fatalf("want a failed run whose error names %s and is ErrInvalidOutput: %+v %v", node, out, err)
				}
				cp, _ := h.store.Latest(ctx, run)
				if cp.Next != node {
					t.Errorf("the run resumes at %s, not %s", cp.Next, node)
				}
			})
		}
	}
}

func TestCitationChecksAndRemoval(t *testing.T) {
	report := "# Title\n\nSilane ignites in air [1, 7].\n\nThis paragraph makes a claim without any source at all.\n\nRanges work [2-3]."
	problems := CheckCitations(report, 3)
	if len(problems) != 2 || !strings.Contains(problems[0], "[7]") || !strings.Contains(problems[1], "paragraph 3") {
		t.Errorf("problems %v", problems)
	}
	fixed, removed := dropUnknownCitations(report, 3)
	if removed != 1 || !strings.Contains(fixed, "air [1].") || !strings.Contains(fixed, "[2, 3]") {
		t.Errorf("removed %d: %s", removed, fixed)
	}
	if again := CheckCitations(fixed, 3); len(again) != 1 {
		t.Errorf("only the uncited paragraph is left: %v", again)
	}
}

func TestBudgetOutDuringTheCheckKeepsTheReport(t *testing.T) {
	// Count the calls up to the first synthesis, then allow exactly that many plus the synthesis.
	probe := newHarness(t)
	scriptRefinement(probe.srv, 0.2, []string{"a"})
	scriptWork(probe.srv)
	scriptReport(probe.srv)
	ctx := context.Background()
	probe.svc.Start(ctx, "probe", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{})
	probe.svc.Resume(ctx, "probe", json.RawMessage(`{"action":"approve"}`))
	ledger, _ := probe.store.Ledger(ctx, "probe")
	upTo := 0
	for i, e := range ledger {
		if e.Node == "synthesize" {
			upTo = i + 1
			break
		}
	}
	h := newHarness(t, func(c *config.Config) { c.Budgets.ModelCalls = upTo })
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	h.svc.Start(ctx, "check", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{})
	out, s, err := h.svc.Resume(ctx, "check", json.RawMessage(`{"action":"approve"}`))
	if err != nil || out.Status != agent.StatusDone || !s.Exhausted {
		t.Fatalf("%+v %v exhausted=%v", out, err, s.Exhausted)
	}
	if !strings.Contains(s.Report, "not fully checked") || !strings.Contains(s.Report, "Die Einstufung richtet sich") {
		t.Errorf("the written report is kept, marked unchecked:\n%s", s.Report)
	}
}

func TestTimeBudgetEndsWithAPartialReport(t *testing.T) {
	h := newHarness(t, func(c *config.Config) { c.Budgets.RunTime = 0 })
	h.svc.RunTime = 250 * time.Millisecond
	h.srv.SetLatency(60 * time.Millisecond)
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	ctx := context.Background()
	out, s, err := h.svc.Start(ctx, "slow", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{})
	if err == nil && out.Interrupt != nil {
		out, s, err = h.svc.Resume(ctx, "slow", json.RawMessage(`{"action":"approve"}`))
	}
	if err != nil || out.Status != agent.StatusDone || !s.Exhausted || !strings.Contains(s.PartialNote, "time budget") {
		t.Fatalf("the time budget ends the run with a partial report: %+v %v %q", out, err, s.PartialNote)
	}
}

func TestPlanEditsRefuseDuplicateIDs(t *testing.T) {
	s := &State{Plan: []Task{{ID: "t1", Query: "a"}}}
	if err := applyPlanAnswer(s, json.RawMessage(`{"action":"approve","tasks":[{"id":"t1","query":"a"},{"id":"t1","query":"b"}]}`)); err == nil {
		t.Error("two tasks with one ID must be refused")
	}
}

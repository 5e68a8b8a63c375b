package research

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"warren/agent"
	"warren/config"
	"warren/internal/snippet"
	"warren/internal/testkb"
	"warren/kb"
	"warren/llm/llmtest"
	"warren/registry"
)

// procedures is a knowledge base written for the reference-following tests: short procedures
// whose sections refer to each other in known chains. Each test's task searches for a word
// only its first document has.
var procedures = map[string]string{
	// quokka: a chain four levels deep, Alpha → Beta → Gamma → Delta → Epsilon.
	"alpha.md":   "# Alpha Procedure\n\n## 1 Quokka inspection\n\nThe quokka inspection starts with the steps in Section 1 of the Beta Procedure.\n",
	"beta.md":    "# Beta Procedure\n\n## 1 Valve check\n\nThe valve check is done before the purge described in Section 1 of the Gamma Procedure.\n",
	"gamma.md":   "# Gamma Procedure\n\n## 1 Purge\n\nThe purge runs five cycles and ends with the leak test in Section 1 of the Delta Procedure.\n",
	"delta.md":   "# Delta Procedure\n\n## 1 Leak test\n\nThe leak test holds the line at 8 bar for ten minutes; the record goes to Section 1 of the Epsilon Procedure.\n",
	"epsilon.md": "# Epsilon Procedure\n\n## 1 Records\n\nRecords are kept for five years.\n",

	// wombat: one passage refers three times into the Hub Procedure, then once elsewhere.
	"wombat.md": "# Wombat Procedure\n\n## 1 Wombat survey\n\nThe wombat survey needs Section 1 of the Hub Procedure, Section 2 of the Hub Procedure, " +
		"Section 3 of the Hub Procedure and Section 1 of the Spoke Procedure.\n",
	"hub.md": "# Hub Procedure\n\n## 1 Intake\n\nIntake forms are filed the same day; see Section 1 of the Rim Procedure.\n\n" +
		"## 2 Review\n\nA reviewer signs every intake form within a week.\n\n## 3 Archive\n\nSigned forms are archived for ten years.\n",
	"spoke.md": "# Spoke Procedure\n\n## 1 Spoke check\n\nSpokes are checked monthly.\n",
	"rim.md":   "# Rim Procedure\n\n## 1 Rim check\n\nRims are checked yearly.\n",

	// numbat: a long section the budget cannot hold, then a short one it could.
	"numbat.md": "# Numbat Procedure\n\n## 1 Numbat count\n\nThe numbat count relies on Section 1 of the Long Procedure and on Section 1 of the Short Procedure.\n",
	"long.md":   "# Long Procedure\n\n## 1 Transects\n\n" + strings.Repeat("Each transect is walked slowly at dawn and every sighting is written down with its time and place. ", 40) + "\n",
	"short.md":  "# Short Procedure\n\n## 1 Tally\n\nThe tally is the sum of all sightings.\n",
}

func init() {
	// Three notes per task word, without references, fill the task's search results, so that
	// no passage of a chain is found by the search instead of by its reference.
	for _, word := range []string{"quokka inspection", "wombat survey", "numbat count"} {
		for i := 1; i <= chunksPerSearch-1; i++ {
			name := fmt.Sprintf("%s-note-%d.md", strings.Fields(word)[0], i)
			procedures[name] = fmt.Sprintf("# Note %d on the %s\n\n## 1 Note\n\nThe %s was logged on day %d.\n", i, word, word, i)
		}
	}
}

// proceduresKB writes the procedures and their registry and ingests them.
func proceduresKB(t testing.TB) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	dir := t.TempDir()
	c := &registry.Collection{Description: "test procedures"}
	for name, text := range procedures {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		title := strings.TrimPrefix(strings.SplitN(text, "\n", 2)[0], "# ")
		c.Documents = append(c.Documents, registry.Document{Path: name, Title: title})
	}
	reg := registry.New()
	reg.Collections["procedures"] = c
	path := filepath.Join(dir, "registry.json")
	if err := reg.Save(path); err != nil {
		t.Fatal(err)
	}
	return testkb.FromRegistry(t, path)
}

// scriptFollowAll answers a whole run: the refinement, then the work phase with every passage
// relevant and every reference followed, then the report.
func scriptFollowAll(srv *llmtest.Server) {
	scriptRefinement(srv, 0.2, []string{"a"})
	srv.Handle(&llmtest.Rule{Name: "plan", SchemaHas: "tasks", Replies: []string{`{"tasks":[{"query":"work","rationale":"r","done_when":"d"}]}`}})
	srv.Handle(&llmtest.Rule{Name: "read", SchemaHas: "information", Reply: func(c llmtest.Call) string {
		return readReply(c, "Auszug: "+snippet.Cut(c.LastUser(), 60))
	}})
	srv.Handle(&llmtest.Rule{Name: "gates", SchemaHas: "gates", Reply: func(c llmtest.Call) string {
		return gatesReply(firstUser(c), func(string) bool { return true }, "the task needs it", "")
	}})
	srv.Handle(&llmtest.Rule{Name: "relevance", SchemaHas: "relevance", Replies: []string{`{"relevance":0.9}`}})
	srv.Handle(&llmtest.Rule{Name: "re-evaluate", SchemaHas: "task_done", Replies: []string{`{"task_done":true,"new_tasks":[]}`}})
	scriptReport(srv)
}

// runOneTask runs a research run without questions whose approved plan is the given tasks,
// and returns its final state.
func runOneTask(t *testing.T, h *harness, run string, queries ...string) *State {
	t.Helper()
	ctx := context.Background()
	out, _, err := h.svc.Start(ctx, run, "How is the work done?", Options{})
	if err != nil || out.Interrupt == nil || out.Interrupt.Kind != InterruptPlan {
		t.Fatalf("want the plan: %+v %v (unmatched %v)", out, err, h.srv.Unmatched())
	}
	var tasks []Task
	for _, q := range queries {
		tasks = append(tasks, Task{Query: q})
	}
	out, s, err := h.svc.Resume(ctx, run, json.RawMessage(reply(PlanAnswer{Action: "approve", Tasks: tasks})))
	if err != nil || out.Status != agent.StatusDone {
		t.Fatalf("the run completes: %+v %v (unmatched %v)", out, err, h.srv.Unmatched())
	}
	return s
}

func refSummary(s *State) string {
	var b strings.Builder
	for _, r := range s.References {
		to := ""
		if r.Resolved != nil {
			to = " → " + place(r.Resolved.Doc, r.Resolved.Section)
		}
		fmt.Fprintf(&b, "\n  depth %d %q %s%s: %s", r.Depth, r.Text, r.State, to, r.Reason)
	}
	return b.String()
}

// budgets.reference_depth is how deep the task reads: at depth 3 the passage three references
// away is read (it was scored and marked followed, but never read, while execute stopped after
// three rounds), and its own references are not followed.
func TestReferenceDepthThreeReadsDepthThreePassages(t *testing.T) {
	for _, depth := range []int{1, 3} {
		t.Run(fmt.Sprint("depth ", depth), func(t *testing.T) {
			h := newHarnessOn(t, proceduresKB, func(c *config.Config) { c.Budgets.ReferenceDepth = depth })
			scriptFollowAll(h.srv)
			s := runOneTask(t, h, "depth", "quokka inspection")
			deepest := map[string]int{}
			for _, f := range s.Findings {
				deepest[f.Doc] = f.Depth
			}
			chain := []string{"alpha.md", "beta.md", "gamma.md", "delta.md", "epsilon.md"}
			for i, doc := range chain {
				got, read := deepest[doc]
				switch {
				case i <= depth && (!read || got != i):
					t.Errorf("%s is %d references away: want it read at depth %d, got %v (read %v)%s", doc, i, i, got, read, refSummary(s))
				case i > depth && read:
					t.Errorf("%s is beyond depth %d but was read at depth %d%s", doc, depth, got, refSummary(s))
				}
			}
			for _, r := range s.References {
				if r.Depth >= depth {
					t.Errorf("a reference of a passage at the depth limit was followed or gated: %+v", r)
				}
			}
		})
	}
}

// The reference loop of a task stops when one document comes back the third time: that
// reference and every later one of the task are skipped as converged, and the passages
// followed before are still read, without following their references.
func TestReferenceLoopStopsWhenOneDocumentComesBackAThirdTime(t *testing.T) {
	h := newHarnessOn(t, proceduresKB, func(c *config.Config) { c.Budgets.ReferenceDepth = 3 })
	scriptFollowAll(h.srv)
	s := runOneTask(t, h, "converge", "wombat survey")
	states := map[string]string{}
	for _, r := range s.References {
		states[r.Text] = r.State
		if r.State == RefSkipped && r.Text != "Section 1 of the Spoke Procedure" && !strings.Contains(r.Reason, "converged") {
			t.Errorf("%q skipped for another reason: %s", r.Text, r.Reason)
		}
	}
	want := map[string]string{
		"Section 1 of the Hub Procedure":   RefFollowed,
		"Section 2 of the Hub Procedure":   RefFollowed,
		"Section 3 of the Hub Procedure":   RefSkipped, // the third time the Hub Procedure comes back
		"Section 1 of the Spoke Procedure": RefSkipped, // the loop has stopped
	}
	for text, state := range want {
		if states[text] != state {
			t.Errorf("%q: %q, want %q%s", text, states[text], state, refSummary(s))
		}
	}
	read := map[string]bool{}
	for _, f := range s.Findings {
		if f.Depth > 0 {
			read[f.Doc+" "+f.Section] = true
		}
	}
	if len(read) != 2 || !read["hub.md 1"] || !read["hub.md 2"] {
		t.Errorf("the two followed Hub sections are read, nothing after the stop: %v%s", read, refSummary(s))
	}
	if _, ok := states["Section 1 of the Rim Procedure"]; ok && states["Section 1 of the Rim Procedure"] == RefFollowed {
		t.Errorf("a reference of a passage read after the stop was followed%s", refSummary(s))
	}
}

// The per-task reference token budget stops the task's following: once a reference would
// exceed it, later ones are out of budget too, even one small enough to fit.
func TestReferenceTokenBudgetStopsTheTasksFollowing(t *testing.T) {
	const budget = 300
	h := newHarnessOn(t, proceduresKB, func(c *config.Config) { c.Budgets.ReferenceTokens = budget })
	scriptFollowAll(h.srv)
	s := runOneTask(t, h, "tokens", "numbat count")
	states := map[string]string{}
	for _, r := range s.References {
		states[r.Text] = r.State
	}
	if states["Section 1 of the Long Procedure"] != RefOverBudget || states["Section 1 of the Short Procedure"] != RefOverBudget {
		t.Errorf("the long section exceeds the budget and stops the following; the short one after it is not read%s", refSummary(s))
	}
	if s.RefTokens["t1"] > budget {
		t.Errorf("%d reference tokens spent, budget %d", s.RefTokens["t1"], budget)
	}
	for _, f := range s.Findings {
		if f.Depth > 0 {
			t.Errorf("nothing was followed, yet %s %s was read at depth %d", f.Doc, f.Section, f.Depth)
		}
	}
}

// A task the re-evaluation finds not done stays open: the next pass searches for what the
// model says is missing, and the task is done when the model says so (it used to be marked
// done whatever the answer). A task never done ends after maxTaskPasses, marked unfinished.
func TestReevaluationKeepsATaskOpenUntilItIsDone(t *testing.T) {
	for _, never := range []bool{false, true} {
		t.Run(fmt.Sprint("never done ", never), func(t *testing.T) {
			h := newHarnessOn(t, proceduresKB, func(c *config.Config) { c.Budgets.ReferenceDepth = 0 })
			var mu sync.Mutex
			var prompts []string
			h.srv.Handle(&llmtest.Rule{Name: "re-evaluate", SchemaHas: "task_done", Reply: func(c llmtest.Call) string {
				mu.Lock()
				defer mu.Unlock()
				prompts = append(prompts, c.LastUser())
				done := len(prompts) >= 2 && !never
				next := []string{"wombat survey", "numbat count", "nothing"}[min(len(prompts), 3)-1]
				return reply(map[string]any{"task_done": done, "new_tasks": []any{}, "next_query": next})
			}})
			scriptFollowAll(h.srv)
			s := runOneTask(t, h, "open", "quokka inspection")
			passes := 2
			if never {
				passes = maxTaskPasses
			}
			task := s.Plan[0]
			if len(prompts) != passes || task.Passes != passes || task.Status != "done" || task.Unfinished != never {
				t.Fatalf("want %d passes and as many re-evaluations, unfinished %v: %d re-evaluations, task %+v", passes, never, len(prompts), task)
			}
			var second bool
			for _, f := range s.Findings {
				second = second || f.Task == task.ID && f.Doc == "wombat.md"
			}
			if !second {
				t.Errorf("the second pass searches for the missing part (wombat survey): findings %+v", s.Findings)
			}
			if !strings.Contains(prompts[1], "wombat.md") {
				t.Errorf("the second re-evaluation sees the second pass's findings: %s", prompts[1])
			}
		})
	}
}

// A plan that holds MaxTasks cannot grow: its tasks are done after their pass, and no
// re-evaluation call is made.
func TestFullPlanMakesNoReevaluationCall(t *testing.T) {
	h := newHarnessOn(t, proceduresKB, func(c *config.Config) { c.Budgets.ReferenceDepth = 0 })
	queries := make([]string, MaxTasks)
	for i := range queries {
		queries[i] = []string{"quokka inspection", "wombat survey", "numbat count"}[i%3] + fmt.Sprintf(" %d", i+1)
	}
	var mu sync.Mutex
	calls := 0
	h.srv.Handle(&llmtest.Rule{Name: "re-evaluate", SchemaHas: "task_done", Reply: func(llmtest.Call) string {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return `{"task_done":true,"new_tasks":[]}`
	}})
	scriptFollowAll(h.srv)
	s := runOneTask(t, h, "full", queries...)
	if n := calls; n != 0 {
		t.Errorf("a full plan of %d tasks made %d re-evaluation calls", MaxTasks, n)
	}
	for _, task := range s.Plan {
		if task.Status != "done" || task.Passes != 1 {
			t.Errorf("task %s: %+v", task.ID, task)
		}
	}
}

// The refinement analyses the question (key concepts, entities, scope) in each round, shows
// it with the questions, and its final step gives the analysis the plan is written from.
func TestQueryAnalysisIsShownWithTheQuestionsAndUsedByThePlan(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var planPrompt string
	h.srv.Handle(&llmtest.Rule{Name: "plan", SchemaHas: "tasks", Reply: func(c llmtest.Call) string {
		mu.Lock()
		defer mu.Unlock()
		planPrompt = c.LastUser()
		return `{"tasks":[{"query":"Einstufung","rationale":"r","done_when":"d"}]}`
	}})
	scriptRefinement(h.srv, 0.2, []string{"a", "b", "c"})
	scriptWork(h.srv)
	ctx := context.Background()
	out, _, err := h.svc.Start(ctx, "analysis", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{HITL: true})
	if err != nil || out.Interrupt == nil || out.Interrupt.Kind != InterruptQuestions {
		t.Fatalf("want questions: %+v %v", out, err)
	}
	var asked QuestionsPayload
	json.Unmarshal(out.Interrupt.Payload, &asked)
	if asked.Analysis == nil || strings.Join(asked.Analysis.KeyConcepts, ",") != "Einstufung,Kennzeichnung" || asked.Analysis.Scope == "" {
		t.Errorf("the questions come with the round's query analysis: %+v", asked.Analysis)
	}
	out, s, err := h.svc.Resume(ctx, "analysis", json.RawMessage(`"/end"`))
	if err != nil || out.Interrupt == nil || out.Interrupt.Kind != InterruptPlan {
		t.Fatalf("want the plan: %+v %v", out, err)
	}
	if s.Analysis == nil || strings.Join(s.Analysis.Entities, ",") != "GefStoffV,Chemikaliengesetz" {
		t.Errorf("the final step's analysis is the run's: %+v", s.Analysis)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"Einstufung; Kennzeichnung; Verpackung", "GefStoffV; Chemikaliengesetz", "nicht für Erzeugnisse"} {
		if !strings.Contains(planPrompt, want) {
			t.Errorf("the plan is written from the final analysis (%q missing):\n%s", want, planPrompt)
		}
	}
}

// Without the analyst (--no-hitl) refinement is one round of search and analysis and asks
// nothing, and says so: it is not "one clarification step", which would need someone to
// clarify with.
func TestNoHITLAsksNothingAndSaysWhatItDid(t *testing.T) {
	h := newHarness(t)
	scriptRefinement(h.srv, 0.2, []string{"a", "b", "c"})
	scriptWork(h.srv)
	out, s, err := h.svc.Start(context.Background(), "nohitl", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{})
	if err != nil || out.Interrupt == nil || out.Interrupt.Kind != InterruptPlan {
		t.Fatalf("want the plan: %+v %v", out, err)
	}
	if nodes := h.nodesRun(); nodes["ask"] != 0 || nodes["retrieve"] != 1 || nodes["analyze"] != 1 || nodes["finalize"] != 1 {
		t.Errorf("one round, no questions: %v", nodes)
	}
	if s.Termination != NoHITLTermination || strings.Contains(s.Termination, "clarification") || s.Analysis == nil {
		t.Errorf("termination %q, analysis %+v", s.Termination, s.Analysis)
	}
}

// The remediation decision is asked with the research question, which the focus of a second
// draft is about.
func TestRemediationPromptHoldsTheQuestion(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var prompt string
	h.srv.Handle(&llmtest.Rule{Name: "remediation", SchemaHas: "decision", Reply: func(c llmtest.Call) string {
		mu.Lock()
		defer mu.Unlock()
		prompt = c.LastUser()
		return `{"decision":"accept","focus":""}`
	}})
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	const question = "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?"
	ctx := context.Background()
	h.svc.Start(ctx, "remedy", question, Options{})
	if out, _, err := h.svc.Resume(ctx, "remedy", json.RawMessage(`{"action":"approve"}`)); err != nil || out.Status != agent.StatusDone {
		t.Fatalf("%+v %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(prompt, question) {
		t.Errorf("the remediation prompt leaves out the question:\n%s", prompt)
	}
}

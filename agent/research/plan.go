package research

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"warren/agent"
	"warren/config"
)

// MaxTasks bounds a plan, including tasks added while working.
const MaxTasks = 15

type planTask struct {
	Query     string `json:"query" schema:"minLength=3"`
	Rationale string `json:"rationale"`
	DoneWhen  string `json:"done_when" desc:"what would count as done"`
}

type planOut struct {
	Tasks []planTask `json:"tasks" schema:"minItems=1,maxItems=15"`
}

// PlanPayload is what the analyst approves.
type PlanPayload struct {
	Round   int    `json:"round"` // 1 for the first plan, 2 after one replan, …
	Tasks   []Task `json:"tasks"`
	Comment string `json:"comment,omitempty"`
}

// PlanAnswer is the analyst's decision on a plan: approve it (as given, or the edited task
// list in Tasks), or ask for a new one with a comment.
type PlanAnswer struct {
	Action  string `json:"action"` // approve, replan
	Tasks   []Task `json:"tasks,omitempty"`
	Comment string `json:"comment,omitempty"`
}

func (d *Deps) plan(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Research question: %s\nContext: %s\nResearch queries: %s\n", s.Question, s.Context, strings.Join(s.ResearchQs, "; "))
	if a := s.Analysis; a != nil {
		// The plan covers what the question is about, within its scope.
		if len(a.KeyConcepts) > 0 {
			fmt.Fprintf(&b, "Key concepts (cover each): %s\n", strings.Join(a.KeyConcepts, "; "))
		}
		if len(a.Entities) > 0 {
			fmt.Fprintf(&b, "Entities (search for each where it matters): %s\n", strings.Join(a.Entities, "; "))
		}
		if a.Scope != "" {
			fmt.Fprintf(&b, "Scope (stay within it): %s\n", a.Scope)
		}
	}
	if s.PlanComment != "" {
		fmt.Fprintf(&b, "The analyst rejected the previous plan: %s\n", s.PlanComment)
	}
	b.WriteString("Write a research plan: at most 15 tasks, each a search query with its rationale and what would count as done.")
	var out planOut
	if err := d.structured(ctx, call, s, config.RoleChat, "You plan document research in a knowledge base.", b.String(), &out); err != nil {
		return nil, err
	}
	s.Plan = s.Plan[:0]
	for i, t := range out.Tasks {
		s.Plan = append(s.Plan, Task{ID: fmt.Sprintf("t%d", i+1), Query: t.Query, Rationale: t.Rationale, DoneWhen: t.DoneWhen, Status: "pending"})
	}
	s.Replan = false
	s.PlanRounds++
	return agent.NewInterrupt(InterruptPlan, PlanPayload{Round: s.PlanRounds, Tasks: s.Plan})
}

func afterPlan(s *State) string {
	if s.Replan {
		return "plan"
	}
	return "execute"
}

// applyPlanAnswer takes the analyst's decision. An edited list replaces the plan: tasks keep
// their IDs when given, new ones get fresh IDs, and order is the analyst's.
func applyPlanAnswer(s *State, raw json.RawMessage) error {
	var a PlanAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("a plan answer is {\"action\": \"approve\"|\"replan\", \"tasks\": […], \"comment\": …}: %w", err)
	}
	switch a.Action {
	case "replan":
		if strings.TrimSpace(a.Comment) == "" {
			return fmt.Errorf("asking for a new plan needs a comment that says what to change")
		}
		s.Replan, s.PlanComment = true, a.Comment
		return nil
	case "approve", "":
	default:
		return fmt.Errorf("unknown plan action %q: use approve or replan", a.Action)
	}
	if a.Tasks == nil {
		return nil
	}
	if len(a.Tasks) == 0 || len(a.Tasks) > MaxTasks {
		return fmt.Errorf("a plan needs 1 to %d tasks, got %d", MaxTasks, len(a.Tasks))
	}
	// Tasks keep their IDs; new ones get IDs no task of the old or new plan has. The order
	// is the analyst's.
	taken := map[string]bool{}
	for _, t := range s.Plan {
		taken[t.ID] = true
	}
	given := map[string]bool{}
	for _, t := range a.Tasks {
		if t.ID != "" && given[t.ID] {
			return fmt.Errorf("task %s appears twice in the plan: give the copy no ID to make it a new task", t.ID)
		}
		given[t.ID] = true
		taken[t.ID] = true
	}
	plan := make([]Task, 0, len(a.Tasks))
	n := 1
	for _, t := range a.Tasks {
		if strings.TrimSpace(t.Query) == "" {
			return fmt.Errorf("every task needs a query")
		}
		if t.ID == "" {
			for taken[fmt.Sprintf("t%d", n)] {
				n++
			}
			t.ID = fmt.Sprintf("t%d", n)
			taken[t.ID] = true
		}
		t.Status = "pending"
		plan = append(plan, t)
	}
	s.Plan = plan
	return nil
}

package research

import (
	"encoding/json"
	"testing"

	"warren/agent"
)

// Each answer to the run is recorded with the analyst who gave it.
func TestAnswersRecordWhoGaveThem(t *testing.T) {
	s := &State{Iteration: 0, Questions: []string{"Which site?"}}
	alice, bob := &Service{Analyst: "alice"}, &Service{Analyst: "bob"}
	if err := alice.answer(s, agent.Interrupt{Kind: InterruptQuestions}, json.RawMessage(`"Fab 2"`)); err != nil {
		t.Fatal(err)
	}
	s.PendingAnswer = ""
	if err := alice.answer(s, agent.Interrupt{Kind: InterruptQuestions}, json.RawMessage(`"/end"`)); err != nil {
		t.Fatal(err)
	}
	s.Plan = []Task{{ID: "t1", Query: "purge", Status: "pending"}, {ID: "t2", Query: "cylinders", Status: "pending"}}
	s.PlanRounds = 1
	if err := bob.answer(s, agent.Interrupt{Kind: InterruptPlan}, json.RawMessage(`{"action":"replan","comment":"narrower"}`)); err != nil {
		t.Fatal(err)
	}
	s.Replan, s.PlanRounds = false, 2
	if err := bob.answer(s, agent.Interrupt{Kind: InterruptPlan}, json.RawMessage(`{"action":"approve","tasks":[{"id":"t1","query":"purge"}]}`)); err != nil {
		t.Fatal(err)
	}
	if err := alice.answer(s, agent.Interrupt{Kind: InterruptPlan}, json.RawMessage(`{"action":"approve"}`)); err != nil {
		t.Fatal(err)
	}
	// A refused answer records nothing.
	if err := alice.answer(s, agent.Interrupt{Kind: InterruptQuestions}, json.RawMessage(`""`)); err == nil {
		t.Fatal("an empty answer was taken")
	}
	want := []struct{ kind, action, by string }{
		{InterruptQuestions, DecisionAnswered, "alice"},
		{InterruptQuestions, DecisionEnded, "alice"},
		{InterruptPlan, DecisionReplan, "bob"},
		{InterruptPlan, DecisionEdited, "bob"},
		{InterruptPlan, DecisionApproved, "alice"},
	}
	if len(s.Decisions) != len(want) {
		t.Fatalf("decisions %+v, want %d", s.Decisions, len(want))
	}
	for i, w := range want {
		d := s.Decisions[i]
		if d.Kind != w.kind || d.Action != w.action || d.By != w.by || d.At.IsZero() {
			t.Errorf("decision %d: %+v, want %s %s by %s", i, d, w.kind, w.action, w.by)
		}
	}
	if s.Decisions[3].Round != 2 || s.Decisions[0].Round != 1 {
		t.Errorf("rounds: %+v", s.Decisions)
	}
}

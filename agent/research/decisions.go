package research

import (
	"encoding/json"
	"strings"
	"time"

	"warren/agent"
)

// Decision is one answer an analyst gave the run: to a round of questions or to a plan. The
// run keeps them in its state, so that its checkpoints say who steered it.
type Decision struct {
	Kind   string    `json:"kind"`   // InterruptQuestions or InterruptPlan
	Round  int       `json:"round"`  // the round of questions, or the plan's round
	Action string    `json:"action"` // answered or ended (questions); approved, edited or replan (plan)
	By     string    `json:"by"`     // the analyst; "" when not recorded
	At     time.Time `json:"at"`
}

// Decision actions.
const (
	DecisionAnswered = "answered"
	DecisionEnded    = "ended"
	DecisionApproved = "approved"
	DecisionEdited   = "edited" // the plan was approved with the analyst's changes
	DecisionReplan   = "replan"
)

// answer applies an answer like ApplyAnswer and records who gave it.
func (svc *Service) answer(s *State, in agent.Interrupt, raw json.RawMessage) error {
	before := len(s.Plan)
	var tasks []Task
	if in.Kind == InterruptPlan {
		tasks = append(tasks, s.Plan...)
	}
	if err := ApplyAnswer(s, in, raw); err != nil {
		return err
	}
	d := Decision{Kind: in.Kind, By: svc.Analyst, At: time.Now().UTC()}
	switch in.Kind {
	case InterruptQuestions:
		d.Round, d.Action = s.Iteration+1, DecisionAnswered
		if strings.EqualFold(strings.TrimSpace(s.PendingAnswer), EndCommand) {
			d.Action = DecisionEnded
		}
	case InterruptPlan:
		d.Round, d.Action = s.PlanRounds, DecisionApproved
		switch {
		case s.Replan:
			d.Action = DecisionReplan
		case len(s.Plan) != before || !sameTasks(tasks, s.Plan):
			d.Action = DecisionEdited
		}
	}
	s.Decisions = append(s.Decisions, d)
	return nil
}

func sameTasks(a, b []Task) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

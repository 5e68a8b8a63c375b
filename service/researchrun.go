package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/atomicfile"
	"warren/kb"
	"warren/llm"
	"warren/service/audit"
)

// ResearchRequest is one headless research run: a new one (Question, and Run or a new ID) or
// a saved one to go on with (Resume).
type ResearchRequest struct {
	Run, Question string
	Options       research.Options
	Resume        string
	// BudgetCalls above 0 replaces the configured (or, resuming, the run's own) call budget.
	BudgetCalls int
	// Sink receives the run's events and Note its progress lines; either may be nil.
	Sink agent.Sink
	Note func(string)
	// Started, when given, hears the ID of a new run before it starts.
	Started func(run string)
	// Answer answers an interrupt; false (or no Answer) leaves the run waiting for the analyst.
	Answer func(*agent.Interrupt) (json.RawMessage, bool, error)
	// Out is where the report goes (default exports/research-RUN.md).
	Out string
}

// ResearchSummary is where a research run stands when Research.Run returns.
type ResearchSummary struct {
	Run         string           `json:"run"`
	Status      string           `json:"status"`
	Waiting     string           `json:"waiting_for,omitempty"`
	Termination string           `json:"termination,omitempty"`
	Tasks       []research.Task  `json:"tasks"`
	References  map[string]int   `json:"references"`
	Quality     research.Quality `json:"quality"`
	Calls       int              `json:"calls"`
	Tokens      llm.Usage        `json:"usage"`
	Report      string           `json:"report,omitempty"`
	Partial     bool             `json:"partial"`
	// PartialNote says why a partial report is partial.
	PartialNote string `json:"-"`
	// NotDone says what a partial run left undone, one line each.
	NotDone []string `json:"not_done,omitempty"`
	// Finished: the resumed run had finished before; only Run, Status and Report are set.
	Finished bool `json:"-"`
}

// RunError is a research run that failed at a point it is saved at: it goes on with a resume.
type RunError struct {
	Run string
	Err error
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// Run is the headless research use case (`warren research`): it works a run as a
// job until it ends, or waits for an answer that req.Answer does not give, answering each
// interrupt it can on the analyst's behalf. It is a use case of its own, not the CLI's copy of
// Start: Start stops at each interrupt for the analyst to answer (Resume). A run that ends has
// its report written to req.Out; resuming a run that had finished writes its report only when
// req.Out is given or the default file is missing. Failures of a started run are *RunError;
// an error of req.Answer is returned as is.
func (rs *Research) Run(ctx context.Context, req ResearchRequest) (ResearchSummary, error) {
	svc, err := rs.s.researchAgent(req.BudgetCalls, req.Sink, req.Note)
	if err != nil {
		return ResearchSummary{}, err
	}
	var outcome agent.Outcome
	var state *research.State
	if req.Resume != "" {
		outcome, state, err = rs.s.resumeResearch(ctx, svc, req.Resume, nil)
		if finished := (*research.FinishedError)(nil); errors.As(err, &finished) {
			path, err := rs.FinishedReport(req.Resume, state, req.Out)
			return ResearchSummary{Run: req.Resume, Status: agent.StatusDone, Report: path, Finished: true}, err
		}
	} else {
		if req.Run == "" {
			req.Run = research.NewRunID()
		}
		if req.Started != nil {
			req.Started(req.Run)
		}
		outcome, state, err = rs.s.startResearch(ctx, svc, req.Run, req.Question, req.Options)
	}
	for err == nil && outcome.Status == agent.StatusInterrupted && req.Answer != nil {
		answer, ok, aerr := req.Answer(outcome.Interrupt)
		if aerr != nil {
			return ResearchSummary{}, aerr
		}
		if !ok {
			break
		}
		outcome, state, err = rs.s.resumeResearch(ctx, svc, outcome.Run, answer)
	}
	if err != nil {
		if outcome.Run == "" {
			return ResearchSummary{}, err
		}
		return ResearchSummary{Run: outcome.Run}, &RunError{Run: outcome.Run, Err: err}
	}
	return rs.s.finishResearch(ctx, outcome, state, req.Out)
}

// finishResearch sums a run up; one that has ended gets its report written.
func (s *Service) finishResearch(ctx context.Context, outcome agent.Outcome, st *research.State, out string) (ResearchSummary, error) {
	usage, err := s.RunStore().Usage(ctx, outcome.Run)
	if err != nil {
		return ResearchSummary{}, err
	}
	sum := ResearchSummary{Run: outcome.Run, Status: outcome.Status, Termination: st.Termination, Tasks: st.Plan,
		References: ReferenceStates(st), Quality: st.Quality, Calls: usage.Calls, Tokens: usage, Partial: st.Exhausted,
		PartialNote: st.PartialNote, NotDone: st.NotDone}
	if outcome.Status == agent.StatusInterrupted {
		sum.Waiting = outcome.Interrupt.Kind
		return sum, nil
	}
	sum.Report = s.reportPath(outcome.Run, out)
	err = atomicfile.WriteFile(sum.Report, []byte(research.FullReport(st)), 0o644)
	s.record(ctx, audit.ActionExport, sum.Report, map[string]any{"what": "research report", "run": outcome.Run}, err)
	return sum, err
}

// FinishedReport is where a finished run's report is: it is written (from the saved run) to
// out when that is given, else to exports/research-RUN.md when that file is not there.
func (rs *Research) FinishedReport(run string, st *research.State, out string) (string, error) {
	path := rs.s.reportPath(run, out)
	if _, err := os.Stat(path); out != "" || err != nil {
		if err := atomicfile.WriteFile(path, []byte(research.FullReport(st)), 0o644); err != nil {
			return path, fmt.Errorf("couldn't write the report of run %s: %w", run, err)
		}
	}
	return path, nil
}

// reportPath is out, or the run's default report file in the exports folder.
func (s *Service) reportPath(run, out string) string {
	if out != "" {
		return out
	}
	return filepath.Join(s.ws.Dir, kb.ExportsDir, "research-"+run+".md")
}

// Answers are prepared answers to a research run's interrupts: one per round of questions
// ("/end" ends refinement) and the decision(s) on the plan, picked by the round the run is
// in, so a resumed run never gets one twice. Yes ends refinement and approves the plan once
// no prepared answer is left.
type Answers struct {
	Questions []string              `yaml:"questions" json:"questions"`
	Plan      []research.PlanAnswer `yaml:"plan" json:"plan"`
	Yes       bool                  `yaml:"-" json:"-"`
}

// ReadAnswers reads prepared answers from a YAML or JSON file; no path, no answers.
func ReadAnswers(path string) (Answers, error) {
	var a Answers
	if path == "" {
		return a, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return a, fmt.Errorf("couldn't read the answers: %w", err)
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("couldn't parse the answers %s: %w", path, err)
	}
	return a, nil
}

// UnmarshalYAML takes the plan as one answer or a list of them.
func (a *Answers) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Questions []string  `yaml:"questions"`
		Plan      yaml.Node `yaml:"plan"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	a.Questions = raw.Questions
	switch raw.Plan.Kind {
	case 0:
	case yaml.SequenceNode:
		return raw.Plan.Decode(&a.Plan)
	default:
		var one research.PlanAnswer
		if err := raw.Plan.Decode(&one); err != nil {
			return err
		}
		a.Plan = []research.PlanAnswer{one}
	}
	return nil
}

// Answer is the prepared answer to an interrupt, false when there is none; an interrupt other
// than questions or a plan cannot be answered.
func (a Answers) Answer(in *agent.Interrupt) (json.RawMessage, bool, error) {
	switch in.Kind {
	case research.InterruptQuestions:
		var p research.QuestionsPayload
		json.Unmarshal(in.Payload, &p)
		switch {
		case p.Iteration >= 1 && p.Iteration <= len(a.Questions):
			return mustJSON(a.Questions[p.Iteration-1]), true, nil
		case a.Yes:
			return mustJSON(research.EndCommand), true, nil
		}
	case research.InterruptPlan:
		var p research.PlanPayload
		json.Unmarshal(in.Payload, &p)
		switch {
		case p.Round >= 1 && p.Round <= len(a.Plan):
			return mustJSON(a.Plan[p.Round-1]), true, nil
		case a.Yes:
			return mustJSON(research.PlanAnswer{Action: "approve"}), true, nil
		}
	default:
		return nil, false, fmt.Errorf("the run asks %q, which this command cannot answer", in.Kind)
	}
	return nil, false, nil
}

// Reply turns what the analyst typed into the answer to an interrupt: to questions the text
// itself ("/end" ends refinement); to a plan, empty or "y"/"yes" approves it and anything else
// asks for a new plan with the text as the comment.
func Reply(in *agent.Interrupt, text string) json.RawMessage {
	if in.Kind != research.InterruptPlan {
		return mustJSON(text)
	}
	if t := strings.ToLower(strings.TrimSpace(text)); t == "" || t == "y" || t == "yes" {
		return mustJSON(research.PlanAnswer{Action: "approve"})
	}
	return mustJSON(research.PlanAnswer{Action: "replan", Comment: text})
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

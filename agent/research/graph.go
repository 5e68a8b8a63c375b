package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"warren/agent"
	"warren/llm"
)

// Interrupt kinds of a research run.
const (
	InterruptQuestions = "questions"
	InterruptPlan      = "plan"
)

// GraphName names the research graph in the run list.
const GraphName = "research"

// node is a step of the research graph. It makes its model calls with call: the node's
// llm.Call, which the code working execute's waves gives the wave's call slots as well.
type node func(ctx context.Context, call caller, s *State) (*agent.Interrupt, error)

// guard makes a step a node of the graph, and turns an exhausted budget into a partial run
// instead of a failure: the node stops, the state says why, and the routers send the run to
// the partial report.
func guard(name string, n node) agent.Node[State] {
	return func(ctx context.Context, call llm.Call, s *State) (*agent.Interrupt, error) {
		start := time.Now()
		intr, err := n(ctx, caller{Call: call}, s)
		s.ElapsedNS += int64(time.Since(start))
		if errors.Is(err, llm.ErrBudgetExhausted) {
			s.Exhausted = true
			s.PartialNote = fmt.Sprintf("the budget ran out at %s (%v)", name, err)
			s.NotDone = undone(s, name)
			return nil, nil
		}
		if errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errRunTime) {
			s.Exhausted = true
			s.PartialNote = fmt.Sprintf("the run's time budget ran out at %s", name)
			s.NotDone = undone(s, name)
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return intr, nil
	}
}

// then routes to next, or to the partial report once the budget is spent.
func then(next string) agent.Router[State] {
	return func(s *State) string {
		if s.Exhausted {
			return "write_partial"
		}
		return next
	}
}

// Graph builds the research graph over the given services.
func Graph(d *Deps) *agent.Graph[State] {
	g := agent.NewGraph[State](GraphName)
	add := func(name string, n node) { g.Node(name, guard(name, n)) }
	add("init", d.initRun)
	add("generate_queries", d.generateQueries)
	add("retrieve", d.retrieve)
	add("analyze", d.analyze)
	add("ask", d.ask)
	add("process_answer", d.processAnswer)
	add("finalize", d.finalize)
	add("plan", d.plan)
	add("execute", d.execute)
	add("synthesize", d.synthesize)
	add("quality", d.quality)
	add("remediate", d.remediate)
	add("attribute", d.attribute)
	add("write_partial", d.writePartial)
	g.Start("init").
		Route("init", then("generate_queries")).
		Route("generate_queries", then("retrieve")).
		Route("retrieve", then("analyze")).
		Route("analyze", afterAnalysis).
		Route("ask", then("process_answer")).
		Route("process_answer", afterAnswer).
		Route("finalize", then("plan")).
		Route("plan", afterPlan).
		Route("execute", afterExecute).
		Route("synthesize", then("quality")).
		Route("quality", d.afterQuality).
		Route("remediate", afterRemediation).
		Edge("write_partial", "attribute").
		Edge("attribute", agent.End)
	return g
}

// ApplyAnswer applies the analyst's answer to an interrupt.
func ApplyAnswer(s *State, in agent.Interrupt, raw json.RawMessage) error {
	switch in.Kind {
	case InterruptQuestions:
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			var obj struct {
				Answer string `json:"answer"`
			}
			if err := json.Unmarshal(raw, &obj); err != nil {
				return fmt.Errorf(`an answer to the questions is a JSON string or {"answer": "…"}; "/end" ends refinement`)
			}
			text = obj.Answer
		}
		if strings.TrimSpace(text) == "" {
			return fmt.Errorf("the answer is empty: answer the questions, or send /end to stop refining")
		}
		s.PendingAnswer = text
		return nil
	case InterruptPlan:
		return applyPlanAnswer(s, raw)
	}
	return fmt.Errorf("unknown interrupt %q", in.Kind)
}

// Options start a run.
type Options struct {
	HITL          bool
	MaxIterations int
}

// Service starts and resumes research runs with metering, ledger and call journal.
type Service struct {
	Deps  *Deps
	Store *agent.Store
	Sink  agent.Sink
	// Budget is a new run's call and token budget. A resumed run keeps the budget it was
	// started with; CallsOverride, when above 0, replaces its call budget from now on (a
	// raise given with --resume), and a new run's.
	Budget        llm.Budget
	CallsOverride int
	// RunTime bounds the wall time of one Start or Resume call; 0: none.
	RunTime time.Duration
	// Analyst names who answers the run's questions and plans through this service; the run
	// records it with each answer (State.Decisions).
	Analyst string
}

// NewRunID makes a run ID that sorts by time.
func NewRunID() string { return agent.NewRunID("") }

// runner runs the graph with its model calls made as call.
func (svc *Service) runner(call llm.Call) *agent.Runner[State] {
	return &agent.Runner[State]{Graph: Graph(svc.Deps), Store: svc.Store, Sink: svc.Sink, Answer: svc.answer, Describe: DescribeChange,
		Call: call}
}

// meter returns the call the run's model calls are made as: with the run's budget, ledger
// and journal (a resumed run starts from what its ledger says it has spent), and ctx bounded
// by the run's time budget.
func (svc *Service) meter(ctx context.Context, run string) (context.Context, context.CancelFunc, llm.Call, error) {
	// Read even when ctx is already cancelled, so that a run stopped as it starts is still
	// recorded (agent.Runner.Start) and can be resumed.
	used, err := svc.Store.Usage(context.WithoutCancel(ctx), run)
	if err != nil {
		return nil, nil, llm.Call{}, err
	}
	meter := llm.NewRun(run, svc.runBudget(ctx, run), func(e llm.LedgerEntry) {
		if err := svc.Store.SettleLedger(context.WithoutCancel(ctx), e); err != nil && svc.Sink != nil {
			svc.Sink(agent.Event{Time: time.Now(), Run: run, Kind: agent.EventError, Summary: err.Error()})
		}
		if svc.Sink != nil {
			svc.Sink(agent.Event{Time: time.Now(), Run: run, Node: e.Node, Kind: agent.EventLedger, Ledger: &e})
		}
	})
	meter.Restore(used)
	// A call is in the ledger before it is sent, so that calls in flight when the process dies
	// count against the budget when the run resumes.
	meter.OnSend(func() error { return svc.Store.RecordSend(ctx, run) })
	if svc.Deps.Progress == nil && svc.Sink != nil {
		// Steps inside a node reach the event stream, with the state when it changed, so the
		// reference tree grows while execute works.
		svc.Deps.Progress = func(text string, s *State) {
			e := agent.Event{Time: time.Now(), Run: run, Node: "execute", Kind: agent.EventNote, Summary: text}
			if s != nil {
				if data, err := json.Marshal(s); err == nil {
					e.State = data
				}
			}
			svc.Sink(e)
		}
	}
	if svc.Deps.OnToken == nil && svc.Sink != nil {
		// The report streams into the event stream, for the workbench and the log.
		svc.Deps.OnToken = func(text string) {
			svc.Sink(agent.Event{Time: time.Now(), Run: run, Node: "synthesize", Kind: agent.EventToken, Summary: text})
		}
	}
	call := llm.Call{Run: meter, Journal: svc.Store.Journal(run)}
	if svc.RunTime > 0 {
		// The time budget spans sittings: what earlier Start and Resume calls used counts.
		left := svc.RunTime - svc.elapsed(ctx, run)
		ctx, cancel := context.WithTimeoutCause(ctx, max(left, time.Millisecond), errRunTime)
		return ctx, cancel, call, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	return ctx, cancel, call, nil
}

// runBudget is the budget run works under: the one it was started with once it has one (the
// configured one for a new run, or one saved before budgets were kept with runs), with the
// call budget overridden when asked.
func (svc *Service) runBudget(ctx context.Context, run string) llm.Budget {
	budget := svc.Budget
	if cp, err := svc.Store.Latest(ctx, run); err == nil {
		var s struct {
			Budget *llm.Budget `json:"budget"`
		}
		if json.Unmarshal(cp.State, &s) == nil && s.Budget != nil {
			budget = *s.Budget
		}
	}
	if svc.CallsOverride > 0 {
		budget.Calls = svc.CallsOverride
	}
	return budget
}

// errRunTime is the cause of a context cancelled by the run's time budget.
var errRunTime = errors.New("the run's time budget ran out")

// elapsed is the working time a run has recorded so far.
func (svc *Service) elapsed(ctx context.Context, run string) time.Duration {
	cp, err := svc.Store.Latest(ctx, run)
	if err != nil {
		return 0
	}
	var s struct {
		ElapsedNS int64 `json:"elapsed_ns"`
	}
	json.Unmarshal(cp.State, &s)
	return time.Duration(s.ElapsedNS)
}

// Start begins a run for a question.
func (svc *Service) Start(ctx context.Context, run, question string, opts Options) (agent.Outcome, *State, error) {
	ctx, cancel, call, err := svc.meter(ctx, run)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	defer cancel()
	budget := svc.runBudget(ctx, run)
	s := &State{Question: question, HITL: opts.HITL, MaxIterations: opts.MaxIterations, Budget: &budget}
	out, err := svc.runner(call).Start(ctx, run, question, s)
	return out, s, err
}

// FinishedError is what resuming a run that has finished returns, with the run's final state.
type FinishedError struct{ Run string }

func (e *FinishedError) Error() string { return "run " + e.Run + " has already finished" }

// Resume goes on with a run, answering its interrupt when answer is given. A run that has
// finished is not touched: the error is a *FinishedError and the state its final one.
func (svc *Service) Resume(ctx context.Context, run string, answer json.RawMessage) (agent.Outcome, *State, error) {
	if cp, err := svc.Store.Latest(ctx, run); err == nil && cp.Status == agent.StatusDone {
		s := &State{}
		if err := json.Unmarshal(cp.State, s); err != nil {
			return agent.Outcome{}, nil, fmt.Errorf("couldn't read the state of run %s: %w", run, err)
		}
		return agent.Outcome{Run: run, Status: agent.StatusDone, Step: cp.Step}, s, &FinishedError{Run: run}
	}
	ctx, cancel, call, err := svc.meter(ctx, run)
	if err != nil {
		return agent.Outcome{}, nil, err
	}
	defer cancel()
	s := &State{}
	runner := svc.runner(call)
	runner.Loaded = func(s *State) {
		if b := svc.runBudget(ctx, run); s.Budget == nil || *s.Budget != b {
			s.Budget = &b // an override, or a run from before budgets were kept: from now on its own
		}
	}
	out, err := runner.Resume(ctx, run, answer, s)
	return out, s, err
}

package service

// What the front ends (cmd/warren, tui, internal/cli) see of the runs the service drives: the
// agents' data types under names of the service, so that a front end imports nothing from
// agent/... or llm and reaches the agents and the model only through the service. The gas
// desk's types are in the gas files.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"warren/agent"
	"warren/agent/research"
	"warren/agent/toxedit"
	"warren/config"
	"warren/doctor"
	"warren/llm"
)

// A run: its events, how a call into it ended, its checkpoints.

// RunEvent is one thing that happened in a run (a node started or finished, a model call, an
// interrupt, an error, a note); the workbench and the headless CLI consume the same stream.
type RunEvent = agent.Event

// RunSink receives a run's events. It is called from the run's goroutines and should not
// block long.
type RunSink = agent.Sink

// RunOutcome is how starting, resuming or watching a run ended: its status, and the
// interrupt it waits on, if any.
type RunOutcome = agent.Outcome

// RunCheckpoint is the state of a run after one step.
type RunCheckpoint = agent.Checkpoint

// RunInfo describes a saved run: its ID, graph, title, status and steps.
type RunInfo = agent.RunInfo

// RunInterrupt is what a run stopped to ask the analyst: its kind (InterruptQuestions,
// InterruptPlan) and the payload to answer it from.
type RunInterrupt = agent.Interrupt

// NewRunInterrupt builds an interrupt of kind with payload as its JSON.
func NewRunInterrupt(kind string, payload any) (*RunInterrupt, error) {
	return agent.NewInterrupt(kind, payload)
}

// The kinds of a RunEvent.
const (
	EventNodeStarted  = agent.EventNodeStarted
	EventNodeFinished = agent.EventNodeFinished
	EventToken        = agent.EventToken
	EventLedger       = agent.EventLedger
	EventInterrupt    = agent.EventInterrupt
	EventError        = agent.EventError
	EventDone         = agent.EventDone
	EventNote         = agent.EventNote // a node's own progress message
)

// The statuses of a run (RunOutcome.Status, RunCheckpoint.Status, RunInfo.Status).
const (
	RunRunning     = agent.StatusRunning     // a node is in flight, or the process died during one
	RunInterrupted = agent.StatusInterrupted // waiting for the analyst
	RunDone        = agent.StatusDone
	RunFailed      = agent.StatusFailed   // a node returned an error; resumable from before it
	RunCanceled    = agent.StatusCanceled // cancelled by the analyst; resumable from before the node
)

// LedgerEntry records one model call of a run: its node, role, host, tokens and outcome.
type LedgerEntry = llm.LedgerEntry

// CallSent is the outcome of a ledger entry written before its call was sent: one still
// "sent" is a call that was in flight when its process died.
const CallSent = agent.OutcomeSent

// RunBudget bounds one run's use of the models (calls, tokens); zero means unlimited.
type RunBudget = llm.Budget

// The research desk's runs.

// ResearchState is everything a research run knows: the question and its refinement, the
// plan, the findings and references, the report and its sources.
type ResearchState = research.State

// ResearchOptions are the analyst's choices for a new research run.
type ResearchOptions = research.Options

// ResearchTask is one task of a research plan.
type ResearchTask = research.Task

// ResearchEvidence is a passage found while the question is refined.
type ResearchEvidence = research.Evidence

// ResearchFinding is what a task found in one passage.
type ResearchFinding = research.Finding

// ResearchSource is one numbered source of a report.
type ResearchSource = research.Source

// ResearchRef is what happened to one reference a run met: followed, skipped, unresolved or
// over budget, and why.
type ResearchRef = research.RefRecord

// The states a ResearchRef ends in.
const (
	RefFollowed   = research.RefFollowed
	RefSkipped    = research.RefSkipped
	RefUnresolved = research.RefUnresolved
	RefOverBudget = research.RefOverBudget
)

// The kinds of interrupt a research run stops at.
const (
	InterruptQuestions = research.InterruptQuestions // follow-up questions (ResearchQuestions)
	InterruptPlan      = research.InterruptPlan      // the plan to approve (ResearchPlan)
)

// ResearchQuestions is the payload of an InterruptQuestions: the coverage, the gaps and the
// questions that would close them.
type ResearchQuestions = research.QuestionsPayload

// ResearchQueryAnalysis is how a research run reads the question so far.
type ResearchQueryAnalysis = research.QueryAnalysis

// ResearchPlan is the payload of an InterruptPlan: the plan the analyst approves.
type ResearchPlan = research.PlanPayload

// ResearchPlanAnswer is the analyst's decision on a plan: approve it (as given, or edited),
// or ask for a new one with a comment.
type ResearchPlanAnswer = research.PlanAnswer

// RunFinishedError is the research desk's refusal to resume a run that has finished; the
// outcome's state is its final one.
type RunFinishedError = research.FinishedError

// EndRefinement, given as the answer to the questions, ends refinement.
const EndRefinement = research.EndCommand

// MaxPlanTasks bounds a research plan, including tasks added while working.
const MaxPlanTasks = research.MaxTasks

// NewResearchRunID names a new research run; pass it to Research.Start.
func NewResearchRunID() string { return research.NewRunID() }

// ResearchReport is a research run's report as Markdown, with its sources and what happened
// to its references. A report shown to an analyst who may not read every collection the run
// used says what is withheld (see Research.RunState).
func ResearchReport(st *ResearchState) string {
	if len(st.Withheld) > 0 {
		return fmt.Sprintf("> %s: this run used %s, which you may not read; its passages and what was written from them are withheld.\n\n",
			withheldTitle, strings.Join(st.Withheld, ", ")) + research.FullReport(st)
	}
	return research.FullReport(st)
}

// withheldTitle begins the note on a report whose passages are withheld.
const withheldTitle = "Withheld"

// The toxicology desk's edits.

// ToxProposal is a toxicology edit waiting for the analyst: its operations against the base
// version, the profile before and after, and the diff between them.
type ToxProposal = toxedit.Proposal

// ToxEditType is how a toxicology edit was given: a structured payload, form text, an
// instruction in words, or nothing actionable.
type ToxEditType = toxedit.EditType

// The types of a toxicology edit.
const (
	ToxFormStructured = toxedit.FormStructured // a JSON payload: no model call
	ToxFormRaw        = toxedit.FormRaw        // pasted form text, extracted by the model
	ToxNLIEdit        = toxedit.NLIEdit        // an instruction in words
	ToxNoEdit         = toxedit.NoEdit         // nothing actionable
)

// ToxWaitingEdit is a proposal that waits for approval (made on the CLI, by a batch, or in a
// workbench closed before the decision).
type ToxWaitingEdit = toxedit.Waiting

// ErrNotWaiting means a toxicology proposal is no longer waiting: it was approved or
// rejected meanwhile.
var ErrNotWaiting = toxedit.ErrNotWaiting

// ToxBatchResult is what a toxicology batch did, line by line, with its counts.
type ToxBatchResult = toxedit.BatchResult

// ToxBatchLine is one line of a toxicology batch and what became of it.
type ToxBatchLine = toxedit.BatchLine

// What became of a line of a toxicology batch (ToxBatchLine.Status).
const (
	ToxLineApplied  = toxedit.StatusApplied  // saved as a new version
	ToxLineProposed = toxedit.StatusProposed // waiting for approval in the desk
)

// DoctorAt checks the workspace in dir, with its configuration layered over src, and the
// models, without opening the service: `warren doctor` runs on a workspace that may not
// open. The model gateway's diagnostics and each check go to log (nil discards them).
func DoctorAt(ctx context.Context, dir string, src config.Sources, log *slog.Logger) doctor.Report {
	in := doctor.Input{Workspace: dir, Sources: src, Logger: log}
	if log != nil {
		in.Options = []llm.Option{llm.WithLogger(log)}
	}
	return doctor.Run(ctx, in)
}

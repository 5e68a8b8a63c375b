// Package research is the workbench's Research tab: a question becomes a run of the research
// agent, followed live (its trail, budgets and reference tree), with the analyst's answers and
// plan approval at its interrupts, and its report with citations that open their passages. It
// reaches warren only through Service, inside commands; served, it lands in the analyst's run
// that went on while they were away and watches others' runs read-only.
package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"warren/kb/chunk"
	"warren/service"
	"warren/service/jobs"
	"warren/tui/styles"
)

// Views of the Research tab.
type researchView int

const (
	viewEditor researchView = iota
	viewRun
	viewRefine
	viewPlan
	viewReport
	viewTree
	viewSessions
	viewPassage
)

// Messages of the Research tab.
type (
	runDoneMsg struct {
		run     string
		queue   *eventQueue // identifies the call: a run opened meanwhile does not take its result
		outcome service.RunOutcome
		state   *service.ResearchState
		err     error
	}
	runsMsg struct {
		runs   []service.RunInfo
		jobs   map[string]jobs.Job // each run's job, for its owner and live state
		others []jobs.Job          // the other kinds of job that run now (fills, ingests, batches)
		err    error
	}
	openRunMsg struct {
		cp            service.RunCheckpoint
		state         *service.ResearchState
		calls, tokens int
		err           error
	}
	passageMsg struct {
		chunk chunk.Chunk
		back  researchView
		err   error
	}
	exportedMsg struct {
		path string
		err  error
	}
)

type trailItem struct {
	node     string
	started  time.Time
	duration time.Duration
	summary  string
	done     bool
	failed   bool // the node ended with an error (or was cancelled): the run resumes from it
}

// Model is the Research tab: it runs research and hosts its approvals.
type Model struct {
	be Service
	st *styles.Styles

	view          researchView
	width, height int

	question textinput.Model
	answer   textarea.Model
	edit     textinput.Model // task query or replan comment
	editing  string          // "", "task", "add", "comment"

	run     string
	cancel  context.CancelFunc
	ticking bool // the elapsed-time tick is on
	queue   *eventQueue
	state   *service.ResearchState
	pending *service.RunInterrupt
	trail   []trailItem
	calls   int
	tokens  int
	status  string // finished, waiting, canceled, failed

	plan       []service.ResearchTask
	planCursor int
	planEdited bool   // the analyst changed the proposed plan
	draft      string // the interrupt (run/step) the answer and plan drafts belong to
	sent       string // the question last sent, so the field's text counts as unsent only when changed

	report  reportView
	tree    treeView
	runs    []service.RunInfo
	runJobs map[string]jobs.Job
	others  []jobs.Job
	runsCur int
	passage *chunk.Chunk
	back    researchView

	served   bool   // one connection of warren serve: runs go on when it closes
	watching bool   // the call in flight watches a run's job (its cancel detaches)
	owner    string // who started the run shown, when it is known to be someone's
	welcome  string // said once the run landed in on coming back has drawn its screen
	greetNow bool   // that run has landed: the welcome is due
}

// New builds the Research tab over the part of the service it uses.
func New(be Service, st *styles.Styles) *Model {
	// Steady cursors: no redraw every half second over SSH.
	q := textinput.New()
	q.Placeholder = "Ask a research question, then press enter"
	qs := q.Styles()
	qs.Cursor.Blink = false
	q.SetStyles(qs)
	q.Focus()
	a := textarea.New()
	a.Placeholder = "Your answer (ctrl+s sends it, ctrl+e or /end stops refining)"
	a.ShowLineNumbers = false
	as := a.Styles()
	as.Cursor.Blink = false
	a.SetStyles(as)
	e := textinput.New()
	e.SetStyles(qs)
	return &Model{be: be, st: st, question: q, answer: a, edit: e}
}

// SetStyles restyles the tab; the report is rendered again for the new background.
func (r *Model) SetStyles(st *styles.Styles) tea.Cmd {
	r.st = st
	r.report.dark = st.Dark
	r.report.invalidate()
	return r.report.renderCmd()
}

func (r *Model) running() bool { return r.cancel != nil }

// Interrupt cancels a running run on Ctrl-C; nil when nothing runs.
func (r *Model) Interrupt() tea.Cmd {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	return setStatus("cancelling the run…", false)
}

// StateLabel names the run's state for the workbench's header.
func (r *Model) StateLabel() string {
	switch {
	case r.running():
		node := "starting"
		if len(r.trail) > 0 {
			node = r.trail[len(r.trail)-1].node
		}
		return "run: " + node
	case r.status != "":
		return "run: " + r.status
	}
	return "no run"
}

// SetSize fits the fields, the report and the tree to the tab's room.
func (r *Model) SetSize(w, h int) {
	r.width, r.height = w, h
	r.question.SetWidth(max(w-4, 10))
	r.answer.SetWidth(max(w-2, 10))
	r.answer.SetHeight(max(min(h/3, 8), 3))
	r.edit.SetWidth(max(w-4, 10))
	r.report.setSize(w, h-2)
	r.tree.setSize(w, h-2)
}

// Field: the question and the answer are typing views; the plan's line editor takes the
// keyboard while it is open.
func (r *Model) Field() fieldState {
	switch {
	case r.editing != "":
		return fieldActive
	case r.view == viewEditor && r.question.Focused(), r.view == viewRefine && r.answer.Focused():
		return fieldActive
	case r.view == viewEditor, r.view == viewRefine:
		return fieldIdle
	}
	return noField
}

// FocusField gives the keyboard to the question or the answer.
func (r *Model) FocusField() tea.Cmd {
	switch r.view {
	case viewEditor:
		return r.question.Focus()
	case viewRefine:
		return r.answer.Focus()
	}
	return nil
}

// Screen names the current view and the plan's line editor.
func (r *Model) Screen() string { return fmt.Sprintf("research/%d/%s", r.view, r.editing) }

// Pending names a run in flight or waiting, and text typed and not sent.
func (r *Model) Pending() []string {
	var out []string
	switch {
	case r.served:
		// Served, runs belong to the server: they go on, and wait, without this connection.
	case r.running():
		out = append(out, fmt.Sprintf("run %s is in flight (cancelled at its last step, it stays resumable)", r.run))
	case r.pending != nil && r.pending.Kind == service.InterruptPlan:
		out = append(out, fmt.Sprintf("run %s waits for your approval of its plan (saved: resume it from sessions)", r.run))
	case r.pending != nil:
		out = append(out, fmt.Sprintf("run %s waits for your answer (saved: resume it from sessions)", r.run))
	}
	if q := strings.TrimSpace(r.question.Value()); q != "" && r.question.Value() != r.sent {
		out = append(out, "the question field holds text not yet sent")
	}
	if strings.TrimSpace(r.answer.Value()) != "" && (r.pending != nil || !r.served) {
		// Served, the server keeps it for the next connection.
		out = append(out, "your answer is typed but not sent")
	}
	if r.pending != nil && r.planEdited {
		out = append(out, "your changes to the plan are not approved yet")
	}
	if r.editing != "" && r.edit.Value() != "" {
		out = append(out, "the plan's line editor holds text")
	}
	return out
}

// Cancellable reports a run view with a run that Esc or ctrl+c would cancel: one in flight, or
// one waiting at a question or the plan.
func (r *Model) Cancellable() bool {
	switch r.view {
	case viewRun, viewRefine, viewPlan:
		return r.running() || r.pending != nil
	}
	return false
}

// cancelRun stops the run the same way at every phase: a run in flight is cancelled at its
// current step, a run waiting for the analyst is left at its checkpoint. Either way it stays
// resumable and what the analyst typed is kept for when it comes back.
func (r *Model) cancelRun() tea.Cmd {
	if r.cancel != nil && r.watching {
		return r.stopWatching()
	}
	if r.cancel != nil {
		r.cancel()
		return setStatus("cancelling the run… it stays resumable (r)", false)
	}
	if r.pending == nil {
		return nil
	}
	r.pending, r.status, r.view = nil, "canceled", viewRun
	r.answer.Blur()
	return setStatus("run left at its checkpoint: r resumes it, with what you typed", false)
}

func (r *Model) hasReport() bool {
	return r.state != nil && r.state.Report != "" && !r.running()
}

// sink hands events to the queue; it is called from the run's goroutines.
func (r *Model) startRun(question string) tea.Cmd {
	run := service.NewResearchRunID()
	return r.launch(run, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.Start(ctx, run, question, service.ResearchOptions{HITL: true}, sink)
	})
}

func (r *Model) resume(run string, answer json.RawMessage) tea.Cmd {
	return r.launch(run, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.Resume(ctx, run, answer, sink)
	})
}

// launch runs one Start or Resume call in a command, streaming its events.
func (r *Model) launch(run string, call func(context.Context, service.RunSink) (service.RunOutcome, *service.ResearchState, error)) tea.Cmd {
	if r.running() {
		return setStatus("a run is in progress: Esc cancels it first (it stays resumable)", false)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := newEventQueue()
	if r.run != run {
		r.trail, r.calls, r.tokens, r.state = nil, 0, 0, nil
		r.report.set("")
	}
	r.run, r.cancel, r.queue, r.pending, r.status = run, cancel, q, nil, ""
	r.watching, r.owner = false, ""
	r.view = viewRun
	var tick tea.Cmd
	if !r.ticking {
		r.ticking, tick = true, elapsedTick()
	}
	work := func() tea.Msg {
		defer q.Close()
		out, st, err := call(ctx, q.Push)
		return runDoneMsg{run: run, queue: q, outcome: out, state: st, err: err}
	}
	return tea.Batch(work, q.Wait(), tick)
}

// elapsedTickMsg redraws a running step's elapsed time.
type elapsedTickMsg struct{}

func elapsedTick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return elapsedTickMsg{} })
}

// Update takes a run's events and results, the sessions, passages and key presses.
func (r *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case eventsMsg:
		r.absorb(msg.Items)
		if msg.More {
			return msg.Queue.Wait() // the queue always closes, so this ends
		}
		return nil
	case runDoneMsg:
		return r.finished(msg)
	case elapsedTickMsg:
		if r.running() {
			return elapsedTick()
		}
		r.ticking = false
		return nil
	case runsMsg:
		if msg.err != nil {
			return setStatus(msg.err.Error(), true)
		}
		r.runs, r.runJobs, r.others, r.runsCur = msg.runs, msg.jobs, msg.others, 0
		return nil
	case openRunMsg:
		return r.greet(r.openedRun(msg))
	case liveRunMsg:
		return r.landIn(msg)
	case passageMsg:
		if msg.err != nil {
			return setStatus(msg.err.Error(), true)
		}
		r.passage, r.back, r.view = &msg.chunk, msg.back, viewPassage
		return nil
	case exportedMsg:
		if msg.err != nil {
			return setStatus("couldn't export the report: "+msg.err.Error(), true)
		}
		return setStatus("report exported to "+msg.path, false)
	case reportRenderedMsg:
		r.report.took(msg)
		return nil
	case tea.KeyPressMsg:
		return r.key(msg)
	case tea.PasteMsg:
		// Pasted text goes into the field that has the keyboard, whole.
		var cmd tea.Cmd
		switch {
		case r.editing != "":
			r.edit, cmd = r.edit.Update(msg)
		case r.view == viewEditor:
			r.question, cmd = r.question.Update(msg)
		case r.view == viewRefine:
			r.answer, cmd = r.answer.Update(msg)
		}
		return cmd
	}
	return nil
}

// absorb takes streamed events: the trail, the budgets and the live state.
func (r *Model) absorb(events []service.RunEvent) {
	for _, e := range events {
		if e.Run != r.run {
			continue
		}
		switch e.Kind {
		case service.EventNodeStarted:
			r.trail = append(r.trail, trailItem{node: e.Node, started: e.Time})
		case service.EventNote:
			// A step inside the node: the trail says what it does now, and a changed state
			// grows the tree while the node works.
			if n := len(r.trail); n > 0 && !r.trail[n-1].done {
				r.trail[n-1].summary = e.Summary
			}
			if len(e.State) > 0 {
				var s service.ResearchState
				if json.Unmarshal(e.State, &s) == nil {
					r.state = &s
					r.tree.build(r.state, r.st)
				}
			}
		case service.EventNodeFinished:
			if n := len(r.trail); n > 0 && r.trail[n-1].node == e.Node {
				r.trail[n-1].done, r.trail[n-1].duration, r.trail[n-1].summary = true, e.Duration, e.Summary
			}
			if len(e.State) > 0 {
				var s service.ResearchState
				if json.Unmarshal(e.State, &s) == nil {
					r.state = &s
				}
			}
		case service.EventError:
			if n := len(r.trail); n > 0 && r.trail[n-1].node == e.Node && !r.trail[n-1].done {
				t := &r.trail[n-1]
				t.done, t.failed = true, true
				if !t.started.IsZero() && !e.Time.IsZero() {
					t.duration = e.Time.Sub(t.started)
				}
				t.summary = "stopped here; r resumes from this step"
			}
		case service.EventLedger:
			if e.Ledger != nil {
				r.calls++
				r.tokens += e.Ledger.PromptTokens + e.Ledger.CompletionTokens
			}
		case service.EventToken:
			r.report.stream(e.Summary)
		}
	}
}

func (r *Model) finished(msg runDoneMsg) tea.Cmd { return r.greet(r.runEnded(msg)) }

func (r *Model) runEnded(msg runDoneMsg) tea.Cmd {
	if msg.queue != r.queue {
		return nil
	}
	r.cancel, r.queue = nil, nil
	r.watching = false
	if text, ok := watchEnded(msg.err); ok {
		r.status = "left as it was"
		return setStatus(text, errors.Is(msg.err, service.ErrNotOwner))
	}
	if msg.state != nil {
		r.state = msg.state
		r.tree.build(r.state, r.st)
	}
	switch {
	case msg.err != nil && errors.Is(msg.err, context.Canceled):
		r.status = "canceled"
		return setStatus("run canceled; its checkpoint is kept: resume it from sessions (ctrl+o, then r)", false)
	case msg.err != nil:
		r.status = "failed"
		return setStatus(msg.err.Error(), true)
	case msg.outcome.Status == service.RunInterrupted:
		r.status, r.pending = "waiting for you", msg.outcome.Interrupt
		// A run left at this interrupt and resumed comes back with what was typed for it.
		draft := fmt.Sprintf("%s/%d", msg.run, msg.outcome.Step)
		same := draft == r.draft
		r.draft = draft
		switch r.pending.Kind {
		case service.InterruptQuestions:
			r.view = viewRefine
			if !same {
				r.answer.Reset()
			}
			return r.answer.Focus()
		case service.InterruptPlan:
			var p service.ResearchPlan
			if err := json.Unmarshal(r.pending.Payload, &p); err != nil || len(p.Tasks) == 0 {
				return setStatus(fmt.Sprintf("the proposed plan could not be read (%v): press r to ask again", err), true)
			}
			if !same || len(r.plan) == 0 {
				r.plan, r.planCursor, r.planEdited = p.Tasks, 0, false
			}
			r.view = viewPlan
		}
		return nil
	}
	r.status = "finished"
	if r.state != nil {
		r.report.set(service.ResearchReport(r.state))
	}
	r.view = viewReport
	msgText := "report ready: n selects a citation, enter opens it, c copies, x exports"
	if r.state != nil && r.state.Exhausted {
		msgText = "the budget ran out: the report is partial"
	}
	r.report.dark = r.st.Dark
	return tea.Batch(setStatus(msgText, false), r.report.renderCmd())
}

func (r *Model) loadRuns() tea.Cmd {
	return func() tea.Msg {
		ctx := context.Background()
		runs, err := r.be.Runs(ctx)
		if err != nil {
			return runsMsg{err: err}
		}
		list, err := r.be.List(ctx)
		byRun := make(map[string]jobs.Job, len(list))
		var others []jobs.Job
		for _, j := range list {
			byRun[j.ID] = j
			if j.Kind != jobs.KindResearch && j.State == jobs.JobRunning {
				others = append(others, j)
			}
		}
		return runsMsg{runs: runs, jobs: byRun, others: others, err: err}
	}
}

func (r *Model) openRun(run string) tea.Cmd {
	if r.running() {
		return setStatus("a run is in progress: Esc cancels it first (it stays resumable)", false)
	}
	return func() tea.Msg {
		ctx := context.Background()
		cp, st, err := r.be.RunState(ctx, run)
		if err != nil {
			return openRunMsg{err: err}
		}
		ledger, err := r.be.Ledger(ctx, run)
		msg := openRunMsg{cp: cp, state: st, err: err}
		for _, e := range ledger {
			msg.calls++
			msg.tokens += e.PromptTokens + e.CompletionTokens
		}
		return msg
	}
}

func (r *Model) openPassage(id string, back researchView) tea.Cmd {
	return func() tea.Msg {
		chunks, err := r.be.Chunks(context.Background(), []string{id})
		if err == nil && len(chunks) == 0 {
			err = fmt.Errorf("chunk %s is no longer in the knowledge base", id)
		}
		if err != nil {
			return passageMsg{err: err}
		}
		return passageMsg{chunk: chunks[0], back: back}
	}
}

func (r *Model) export() tea.Cmd {
	if r.state == nil || r.state.Report == "" {
		return setStatus("no report to export yet", false)
	}
	run, md := r.run, service.ResearchReport(r.state)
	return func() tea.Msg {
		path, err := r.be.ExportReport(run, md)
		return exportedMsg{path: path, err: err}
	}
}

// openedRun shows a run opened from the sessions (or landed in on coming back).
func (r *Model) openedRun(msg openRunMsg) tea.Cmd {
	if msg.err != nil {
		return setStatus(msg.err.Error(), true)
	}
	r.run, r.state, r.status = msg.cp.Run, msg.state, msg.cp.Status
	r.trail, r.calls, r.tokens, r.pending = nil, msg.calls, msg.tokens, nil
	r.tree.build(r.state, r.st)
	if msg.state.Report != "" {
		r.report.set(service.ResearchReport(msg.state))
		r.view = viewReport
		return r.report.renderCmd()
	}
	r.view = viewRun
	return setStatus(fmt.Sprintf("run %s is %s: press r to resume it", msg.cp.Run, msg.cp.Status), false)
}

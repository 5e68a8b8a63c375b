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
		// calls and tokens are the run's spending as its ledger records it once the call
		// ended (counted: the ledger could be read): every view shows the same figures.
		calls, tokens int
		counted       bool
	}
	// goesOnMsg: a run a watcher was left waiting at runs again (its analyst answered).
	goesOnMsg struct {
		run, owner string
		pending    *service.RunInterrupt // the interrupt it waited at, to tell a stale message
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
		history       []service.RunEvent // the run's recorded steps, for its trail
		err           error
	}
	passageMsg struct {
		chunk chunk.Chunk
		back  researchView
		err   error
	}
	exportedMsg struct {
		path, format string
		err          error
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
	answerSent string // the answer last sent (ctrl+s), until the run waits for one again: the quit question claims only an unsent one

	report  reportView
	tree    treeView
	runs    []service.RunInfo
	runJobs map[string]jobs.Job
	others  []jobs.Job
	runsCur int
	passage *chunk.Chunk
	back    researchView

	exportPick bool // the export chooser is open over the report
	exportCur  int  // the format it offers (exportFormats)

	before       *shown       // what was shown before the call in flight, for a refusal to restore
	sessionsBack researchView // where esc leaves the sessions list for

	served    bool               // one connection of warren serve: runs go on when it closes
	watching  bool               // the call in flight watches a run's job (its cancel detaches)
	followOff context.CancelFunc // stops waiting for a watched run to go on (followOn)
	owner     string             // who started the run shown, when it is known to be someone's
	welcome   string             // said once the run landed in on coming back has drawn its screen
	greetNow  bool               // that run has landed: the welcome is due
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
			node = service.StepWords(r.trail[len(r.trail)-1].node) // words, not the node's name
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
	case r.view == viewEditor:
		// A view whose work is typing: every printable key types, also after esc left the
		// field (the tab gives it back the keyboard); the tabs are alt+1-5 or tab here.
		return fieldActive
	case r.view == viewRefine && r.readOnly():
		return noField // a watcher has no answer to type
	case r.view == viewRefine:
		return fieldActive
	}
	return noField
}

// FocusField gives the keyboard to the question or the answer.
func (r *Model) FocusField() tea.Cmd {
	switch {
	case r.view == viewEditor:
		return r.question.Focus()
	case r.view == viewRefine && !r.readOnly():
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
	if strings.TrimSpace(r.answer.Value()) != "" && r.answer.Value() != r.answerSent && (r.pending != nil || !r.served) {
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

// Cancellable reports a run view with a run in flight that this analyst may cancel (their own,
// or any for an admin): ctrl+x there, and ctrl+c, cancel it.
func (r *Model) Cancellable() bool {
	switch r.view {
	case viewRun, viewRefine, viewPlan:
		return r.running() && !r.readOnly()
	}
	return false
}

// cancelRun cancels the run shown, through the desk: a run in flight stops at its current
// step and stays resumable. The desk decides who may (a watcher is refused in its words) and
// whether there is anything to cancel; the screen says only what it did.
func (r *Model) cancelRun() tea.Cmd {
	if r.cancel != nil && !r.watching {
		// Started here: cancelling the call cancels its job.
		r.cancel()
		return setStatus("cancelling the run… it stays resumable (r)", false)
	}
	if r.run == "" {
		return nil
	}
	run, be := r.run, r.be
	return func() tea.Msg {
		if err := be.Cancel(context.Background(), run); err != nil {
			if errors.Is(err, jobs.ErrNoJob) {
				return newStatus(fmt.Sprintf("run %s is not running: nothing to cancel (it waits, or has ended)", run), true)
			}
			return newStatus(err.Error(), true)
		}
		return newStatus("cancelling the run… it stays resumable (r)", false)
	}
}

// shown is what a run call replaces on the screen, kept until the desk accepts the call.
type shown struct {
	view          researchView
	run, status   string
	owner         string
	pending       *service.RunInterrupt
	state         *service.ResearchState
	trail         []trailItem
	calls, tokens int
}

// restore puts back what was shown before a call the desk refused.
func (r *Model) restore() {
	b := r.before
	if b == nil {
		return
	}
	r.view, r.run, r.status, r.owner, r.pending, r.state = b.view, b.run, b.status, b.owner, b.pending, b.state
	r.trail, r.calls, r.tokens = b.trail, b.calls, b.tokens
	r.tree.build(r.state, r.st)
	if r.view == viewRefine && !r.readOnly() {
		r.answer.Focus()
	}
}

func (r *Model) hasReport() bool {
	return r.state != nil && r.state.Report != "" && !r.running()
}

// sink hands events to the queue; it is called from the run's goroutines.
func (r *Model) startRun(question string) tea.Cmd {
	run := service.NewResearchRunID()
	return r.launch(run, false, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.Start(ctx, run, question, service.ResearchOptions{HITL: true}, sink)
	})
}

func (r *Model) resume(run string, answer json.RawMessage) tea.Cmd {
	return r.launch(run, true, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.Resume(ctx, run, answer, sink)
	})
}

// launch runs one Start or Resume call in a command, streaming its events.
func (r *Model) launch(run string, resumed bool, call func(context.Context, service.RunSink) (service.RunOutcome, *service.ResearchState, error)) tea.Cmd {
	r.stopFollowOn()
	if r.running() {
		return setStatus("a run is in progress: Esc cancels it first (it stays resumable)", false)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := newEventQueue()
	r.before = &shown{view: r.view, run: r.run, status: r.status, owner: r.owner, pending: r.pending, state: r.state,
		trail: r.trail, calls: r.calls, tokens: r.tokens}
	fresh := r.run != run // this view has not shown the run: its record comes first
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
	be := r.be
	work := func() tea.Msg {
		defer q.Close()
		out, st, err := call(ctx, q.Push)
		done := runDoneMsg{run: run, queue: q, outcome: out, state: st, err: err}
		if ledger, lerr := be.Ledger(context.Background(), run); lerr == nil && len(ledger) > 0 {
			done.calls, done.tokens, done.counted = spent(ledger)
		}
		return done
	}
	if fresh && resumed {
		// Resumed in a view that has not shown it: its recorded steps and calls come first, as a
		// watcher's do (the resumed job's own events follow them).
		inner := call
		call = func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
			if past, err := be.History(ctx, run, 0); err == nil {
				for _, e := range past {
					sink(e)
				}
			}
			return inner(ctx, sink)
		}
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
	case goesOnMsg:
		// Still shown as it was left (not opened anew, no call in flight): follow it on.
		if r.run == msg.run && r.pending == msg.pending && !r.running() {
			return r.watch(msg.run, msg.owner)
		}
		return nil
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
		return setStatus("report exported: "+exportShort(msg.path)+" ("+msg.format+")", false)
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
			// Counted only while the run is followed: once its call ended, the figures are
			// its ledger's (a late batch of events must not add to them).
			if e.Ledger != nil && r.running() {
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
	before := r.before
	r.before = nil
	var finished *service.RunFinishedError
	switch {
	case errors.Is(msg.err, service.ErrNotOwner), errors.As(msg.err, &finished):
		// The desk refused the call before it started: the screen goes back to what it showed,
		// with the desk's words, and what was typed stays.
		r.before = before
		r.restore()
		r.before = nil
		return setStatus(msg.err.Error(), true)
	}
	if text, ok := watchEnded(msg.err); ok {
		r.status = "left as it was"
		return setStatus(text, false)
	}
	if msg.counted {
		r.calls, r.tokens = msg.calls, msg.tokens // the ledger's figures, whatever this view saw
	}
	if msg.state != nil {
		r.state = msg.state
		r.tree.build(r.state, r.st)
	}
	switch {
	case msg.err != nil && errors.Is(msg.err, context.Canceled):
		r.status = jobs.ShownCancelled // the words every listing uses (jobs.StateOf)
		return setStatus("run cancelled; its checkpoint is kept: resume it from sessions (ctrl+o, then r)", false)
	case msg.err != nil:
		r.status = "failed"
		return setStatus(msg.err.Error(), true)
	case msg.outcome.Status == service.RunInterrupted:
		me, _ := r.be.Analyst()
		r.status, r.pending = jobs.Shown{State: jobs.ShownWaiting, WaitingFor: safeLine(me)}.String(), msg.outcome.Interrupt
		if r.readOnly() {
			// It waits for its owner, not for whoever watches it.
			r.status = jobs.Shown{State: jobs.ShownWaiting, WaitingFor: safeLine(r.owner)}.String()
		}
		// A run left at this interrupt and resumed comes back with what was typed for it.
		draft := fmt.Sprintf("%s/%d", msg.run, msg.outcome.Step)
		same := draft == r.draft
		r.draft, r.answerSent = draft, "" // waiting again: what the field holds is not sent
		switch r.pending.Kind {
		case service.InterruptQuestions:
			r.view = viewRefine
			if !same {
				r.answer.Reset()
			}
			if r.readOnly() {
				r.answer.Blur() // a watcher reads the questions; the owner answers them
				return r.followOn(msg.run)
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
			if r.readOnly() {
				return r.followOn(msg.run)
			}
		}
		return nil
	}
	r.status = jobs.ShownDone
	if r.state != nil {
		r.report.set(service.ResearchReport(r.state))
	}
	r.view = viewReport
	msgText := "report ready: n selects a citation, enter opens it, c copies, x exports"
	if r.state != nil && r.state.Exhausted {
		msgText = "the budget ran out: the report is partial"
	}
	if r.state != nil && len(r.state.Withheld) > 0 {
		msgText = "withheld: passages of " + safeLine(strings.Join(r.state.Withheld, ", ")) + ", which you may not read"
	}
	r.report.dark = r.st.Dark
	return tea.Batch(setStatus(msgText, false), r.report.renderCmd())
}

// followOn waits, for a watcher, until the run they were left waiting at goes on (its analyst
// answered, in a workbench or a CLI run answering itself), then watches it again; opening
// anything else meanwhile makes the message stale.
func (r *Model) followOn(run string) tea.Cmd {
	r.stopFollowOn()
	ctx, cancel := context.WithCancel(context.Background())
	r.followOff = cancel
	be, owner, pending := r.be, r.owner, r.pending
	return func() tea.Msg {
		defer cancel()
		if !be.GoesOn(ctx, run) {
			return nil
		}
		return goesOnMsg{run: run, owner: owner, pending: pending}
	}
}

// Close stops what the tab waits for in the background when the workbench closes.
func (r *Model) Close() { r.stopFollowOn() }

// stopFollowOn stops waiting for a watched run to go on: something else is shown now.
func (r *Model) stopFollowOn() {
	if r.followOff != nil {
		r.followOff()
		r.followOff = nil
	}
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
		msg.calls, msg.tokens, _ = spent(ledger)
		if past, herr := r.be.History(ctx, run, 0); herr == nil {
			msg.history = past
		}
		return msg
	}
}

// spent sums a run's ledger: its model calls and their tokens.
func spent(ledger []service.LedgerEntry) (calls, tokens int, ok bool) {
	for _, e := range ledger {
		calls++
		tokens += e.PromptTokens + e.CompletionTokens
	}
	return calls, tokens, true
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

// openedRun shows a run opened from the sessions (or landed in on coming back).
func (r *Model) openedRun(msg openRunMsg) tea.Cmd {
	r.stopFollowOn()
	if msg.err != nil {
		return setStatus(msg.err.Error(), true)
	}
	r.run, r.state, r.status = msg.cp.Run, msg.state, runState(service.RunInfo{ID: msg.cp.Run, Status: msg.cp.Status}, r.runJobs)
	r.trail, r.calls, r.tokens, r.pending = nil, msg.calls, msg.tokens, nil
	r.owner, r.watching = "", false
	// The trail is the run's record: its steps as they happened, whoever watched then. Its
	// model calls are the ledger's, counted above.
	var steps []service.RunEvent
	for _, e := range msg.history {
		if e.Kind != service.EventLedger && e.Kind != service.EventToken {
			steps = append(steps, e)
		}
	}
	r.absorb(steps)
	if len(r.trail) == 0 && msg.cp.Node != "" {
		// A run recorded before its events were kept: its last step, from the checkpoint.
		r.trail = append(r.trail, trailItem{node: msg.cp.Node, done: true})
	}
	r.tree.build(r.state, r.st)
	if msg.state.Report != "" {
		r.report.set(service.ResearchReport(msg.state))
		r.view = viewReport
		return r.report.renderCmd()
	}
	r.view = viewRun
	return setStatus(fmt.Sprintf("run %s is %s: press r to resume it", msg.cp.Run, msg.cp.Status), false)
}

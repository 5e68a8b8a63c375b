package research

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/service/jobs"
	"warren/tui/component"
)

// Served, the tab lands in the analyst's own run that went on while they were away, may watch
// others' runs read-only, and leaves runs going on when the connection closes.

// liveRunMsg carries the analyst's own run to land in when the workbench opens.
type liveRunMsg struct {
	job jobs.Job
	ok  bool
	err error
}

// LandInLiveRun finds the analyst's run that went on while they were away (since is when they
// were last connected, zero when unknown); the tab opens it when the answer comes.
func (r *Model) LandInLiveRun(since time.Time) tea.Cmd {
	be := r.be
	return func() tea.Msg {
		job, ok, err := be.Live(context.Background(), since)
		return liveRunMsg{job: job, ok: ok, err: err}
	}
}

// landIn opens the run the analyst comes back to: one running is followed live, one waiting is
// shown at its question, one that ended while they were away at its report. The welcome shows
// on the screen the run lands on.
func (r *Model) landIn(msg liveRunMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return setStatus("couldn't look for your runs: "+msg.err.Error(), true)
	case !msg.ok || r.running():
		return nil
	}
	j := msg.job
	switch j.State {
	case jobs.JobRunning:
		// The run may reach its questions a moment later, which changes the screen and would
		// drop a message tied to it: this welcome belongs to the whole workbench.
		welcome := statusMsg{Text: fmt.Sprintf("welcome back: your run “%s” went on while you were away", j.Title), Tab: component.AnyTab}
		return tea.Batch(r.watch(j.ID, j.Owner), func() tea.Msg { return welcome })
	case jobs.JobWaiting:
		r.welcome = fmt.Sprintf("welcome back: your run “%s” waits for you", j.Title)
		return r.watch(j.ID, j.Owner)
	}
	r.welcome = fmt.Sprintf("welcome back: your run “%s” ended (%s) while you were away", j.Title, j.State)
	return r.openRun(j.ID)
}

// greet marks the run landed in as drawn: its welcome is due (see TakeWelcome).
func (r *Model) greet(cmd tea.Cmd) tea.Cmd {
	if r.welcome != "" {
		r.greetNow = true
	}
	return cmd
}

// TakeWelcome returns the welcome once the run it greets has landed on its screen; the root
// shows it there, at once, so that it belongs to that screen.
func (r *Model) TakeWelcome() string {
	if !r.greetNow {
		return ""
	}
	w := r.welcome
	r.welcome, r.greetNow = "", false
	return w
}

// watch attaches to a run's job: the run view follows it live from its record (its steps and
// spending so far) and then its events. For someone else's run the view is read-only; Esc
// stops watching and the run goes on.
func (r *Model) watch(run, owner string) tea.Cmd {
	if r.running() {
		return setStatus("a run is in progress here: Esc stops it or stops watching it first", false)
	}
	cmd := r.launch(run, false, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.Watch(ctx, run, sink)
	})
	r.watching, r.owner = true, owner
	return cmd
}

// readOnly reports a run of another analyst's: this one may watch it, not decide for it.
func (r *Model) readOnly() bool {
	me, admin := r.be.Analyst()
	return r.owner != "" && r.owner != me && !admin
}

// stopWatching ends a watch: the run goes on, whoever's it is (ctrl+x cancels one's own).
func (r *Model) stopWatching() tea.Cmd {
	r.cancel()
	if r.readOnly() {
		return setStatus(fmt.Sprintf("stopped watching %s's run; it goes on (ctrl+o lists it)", safeLine(r.owner)), false)
	}
	return setStatus("stopped watching your run; it goes on (ctrl+o lists it)", false)
}

// watchEnded words how a watch ended when the run itself did not end it.
func watchEnded(err error) (string, bool) {
	switch {
	case errors.Is(err, service.ErrDetached):
		return "stopped watching; the run goes on (ctrl+o lists it)", true
	}
	return "", false
}

// Drafts returns what the analyst typed and did not send: the question (when it differs from
// the one last sent) and an answer with the run and step it belongs to.
func (r *Model) Drafts() (question, answer, answerFor string) {
	if r.question.Value() != r.sent {
		question = r.question.Value()
	}
	if strings.TrimSpace(r.answer.Value()) != "" {
		answer, answerFor = r.answer.Value(), r.draft
	}
	return question, answer, answerFor
}

// RestoreDrafts gives back what the analyst typed in an earlier connection: the question field
// holds it, and an answer comes back with its run's question.
func (r *Model) RestoreDrafts(question, answer, answerFor string) {
	if question != "" {
		r.question.SetValue(question)
	}
	if answer != "" {
		r.answer.SetValue(answer)
		r.draft = answerFor
	}
}

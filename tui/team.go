package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/service/jobs"
)

// NoticeMsg is a message from the server to this analyst (warren serve is stopping, say); it
// is shown on every tab until the next one.
type NoticeMsg struct {
	Text string
	Err  bool
}

// liveRunMsg carries the analyst's own run to land in when the workbench opens.
type liveRunMsg struct {
	job jobs.Job
	ok  bool
	err error
}

// Served makes the workbench one analyst's connection to warren serve: the header names the
// analyst, it opens on their run that is still running or waiting for them, and quitting (or a
// dropped connection) leaves their jobs running on the server.
//
// since is when the analyst was last connected (zero when unknown): a run of theirs that ended
// after it is opened at its report.
func (m *Model) Served(since time.Time) {
	m.served, m.since = true, since
	m.analyst, m.admin = m.be.Analyst()
	m.research.served = true
	m.gas.SetServed(true)
	m.knowledge.SetServed(true)
}

// landInLiveRun finds the analyst's run that went on while they were away.
func (m *Model) landInLiveRun() tea.Cmd {
	return func() tea.Msg {
		job, ok, err := m.be.LiveResearch(context.Background(), m.since)
		return liveRunMsg{job: job, ok: ok, err: err}
	}
}

// landIn opens the run the analyst comes back to: one running is followed live, one waiting is
// shown at its question, one that ended while they were away at its report. The welcome shows
// on the screen the run lands on.
func (r *researchTab) landIn(msg liveRunMsg) tea.Cmd {
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
		welcome := statusMsg{Text: fmt.Sprintf("welcome back: your run “%s” went on while you were away", j.Title), Tab: anyTab}
		return tea.Batch(r.watch(j.ID, j.Owner), func() tea.Msg { return welcome })
	case jobs.JobWaiting:
		r.welcome = fmt.Sprintf("welcome back: your run “%s” waits for you", j.Title)
		return r.watch(j.ID, j.Owner)
	}
	r.welcome = fmt.Sprintf("welcome back: your run “%s” ended (%s) while you were away", j.Title, j.State)
	return r.openRun(j.ID)
}

// greet marks the run landed in as drawn: its welcome is due (see takeWelcome).
func (r *researchTab) greet(cmd tea.Cmd) tea.Cmd {
	if r.welcome != "" {
		r.greetNow = true
	}
	return cmd
}

// takeWelcome returns the welcome once the run it greets has landed on its screen; the root
// shows it there, at once, so that it belongs to that screen.
func (r *researchTab) takeWelcome() string {
	if !r.greetNow {
		return ""
	}
	w := r.welcome
	r.welcome, r.greetNow = "", false
	return w
}

// watch attaches to a run's job: the run view follows it live from its current state. For
// someone else's run the view is read-only; Esc stops watching and the run goes on.
func (r *researchTab) watch(run, owner string) tea.Cmd {
	if r.running() {
		return setStatus("a run is in progress here: Esc stops it or stops watching it first", false)
	}
	cmd := r.launch(run, func(ctx context.Context, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
		return r.be.WatchResearch(ctx, run, sink)
	})
	r.watching, r.owner = true, owner
	return cmd
}

// readOnly reports a run of another analyst's: this one may watch it, not decide for it.
func (r *researchTab) readOnly() bool {
	me, admin := r.be.Analyst()
	return r.owner != "" && r.owner != me && !admin
}

// notYours says why a decision on a watched run is refused; nothing typed is lost.
func (r *researchTab) notYours(what string) tea.Cmd {
	return setStatus(fmt.Sprintf("%s's run: only %s (or an admin) can %s it — you are watching; what you typed stays", r.owner, r.owner, what), true)
}

// stopWatching ends a watch: the analyst's own run is cancelled (it stays resumable), someone
// else's is only left.
func (r *researchTab) stopWatching() tea.Cmd {
	if r.readOnly() {
		r.cancel()
		return setStatus(fmt.Sprintf("stopped watching %s's run; it goes on (ctrl+o lists it)", r.owner), false)
	}
	run := r.run
	return func() tea.Msg {
		if err := r.be.CancelJob(context.Background(), run); err != nil && !errors.Is(err, jobs.ErrNoJob) {
			return newStatus(err.Error(), true)
		}
		return newStatus("cancelling the run… it stays resumable (r)", false)
	}
}

// watchEnded words how a watch ended when the run itself did not end it.
func watchEnded(err error) (string, bool) {
	switch {
	case errors.Is(err, service.ErrDetached):
		return "stopped watching; the run goes on (ctrl+o lists it)", true
	case errors.Is(err, service.ErrNotOwner):
		return err.Error(), true
	}
	return "", false
}

// Drafts is what an analyst typed and did not send, kept by the server when their connection
// ends and given back to their next workbench, so that a dropped connection loses no text.
type Drafts struct {
	Question  string            // the research question field
	Answer    string            // an answer typed for a run's question or plan
	AnswerFor string            // the run and step the answer belongs to
	Tox       map[string]string // edit instructions, by profile
	Knowledge map[string]string // the search and ingest fields
}

// Drafts collects the text typed and not sent (call it once the program has ended).
func (m *Model) Drafts() Drafts {
	d := Drafts{Tox: map[string]string{}, Knowledge: map[string]string{}}
	r := m.research
	if r.question.Value() != r.sent {
		d.Question = r.question.Value()
	}
	if strings.TrimSpace(r.answer.Value()) != "" {
		d.Answer, d.AnswerFor = r.answer.Value(), r.draft
	}
	for k, v := range m.tox.Drafts() {
		d.Tox[k] = v
	}
	for f, v := range m.knowledge.Drafts() {
		d.Knowledge[f] = v
	}
	return d
}

// PublishedDrafts is what Drafts was after the analyst's last key; unlike Drafts it is safe to
// call from any goroutine while the program runs (warren serve reads it when the same analyst
// connects again before their dropped connection has been noticed).
func (m *Model) PublishedDrafts() Drafts {
	if d := m.typed.Load(); d != nil {
		return *d
	}
	return Drafts{}
}

// RestoreDrafts gives back what the analyst typed in an earlier connection (call it before the
// program starts): the question field holds it, an answer comes back with its run's question,
// and instructions and searches open with their text.
func (m *Model) RestoreDrafts(d Drafts) {
	if d.Question != "" {
		m.research.question.SetValue(d.Question)
	}
	if d.Answer != "" {
		m.research.answer.SetValue(d.Answer)
		m.research.draft = d.AnswerFor
	}
	m.tox.RestoreDrafts(d.Tox)
	m.knowledge.RestoreDrafts(d.Knowledge)
}

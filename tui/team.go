package tui

import "time"

// NoticeMsg is a message from the server to this analyst (warren serve is stopping, say); it
// is shown on every tab until the next one.
type NoticeMsg struct {
	Text string
	Err  bool
}

// Served makes the workbench one analyst's connection to warren serve: the header names the
// analyst, it opens on their run that is still running or waiting for them, and quitting (or a
// dropped connection) leaves their jobs running on the server.
//
// since is when the analyst was last connected (zero when unknown): a run of theirs that ended
// after it is opened at its report.
func (m *Model) Served(since time.Time) {
	m.served, m.since = true, since
	m.analyst, m.admin = m.desks.Session.Analyst()
	m.research.SetServed(true)
	m.gas.SetServed(true)
	m.knowledge.SetServed(true)
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
	d.Question, d.Answer, d.AnswerFor = m.research.Drafts()
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
	m.research.RestoreDrafts(d.Question, d.Answer, d.AnswerFor)
	m.tox.RestoreDrafts(d.Tox)
	m.knowledge.RestoreDrafts(d.Knowledge)
}

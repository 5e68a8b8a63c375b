package service

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"warren/gas"
	"warren/service/grants"
	"warren/service/jobs"
	"warren/tox"
)

// Team is what the analysts of a workspace see of each other's work: the gas decisions and
// toxicology saves other views make, as they make them, and what the inbox ingested.
type Team struct{ s *Service }

// Team is the team's feed as this view sees it (without its own changes).
func (s *Service) Team() *Team { return &Team{s: s} }

// Several analysts work on one workspace through views of one service (see As). Each gas cell
// decision and each toxicology version saved is published on the service's change feed, which
// every view shares, so that a screen showing the table or profile can reload it and say who
// changed what. The inbox (see WatchInbox) publishes there too, each change naming its
// collection, and only the analysts who may read that collection hear of it.

// Kinds of Change.
const (
	ChangeGasCell    = "gas cell"
	ChangeToxVersion = "tox version"
	ChangeInbox      = "inbox" // a file of an ingest folder ingested, removed, or not taken
)

// Change is one change of a gas cell, one new toxicology version, or one file of the inbox.
type Change struct {
	Kind    string    `json:"kind"`              // ChangeGasCell, ChangeToxVersion or ChangeInbox
	Table   string    `json:"table,omitempty"`   // the gas table
	INCI    string    `json:"inci,omitempty"`    // the profile
	Row     int       `json:"row,omitempty"`     // the gas row
	Field   string    `json:"field,omitempty"`   // the gas field
	Version int       `json:"version,omitempty"` // the version saved
	By      string    `json:"by"`                // the analyst who made it ("" when unnamed)
	At      time.Time `json:"at"`
	// Action is the verb of the change: approved, rejected, edited, filled, undid, changed
	// (gas); saved, imported, rolled back (toxicology); ingested, updated, removed, skipped,
	// failed, refused (inbox).
	Action string `json:"action"`
	// What says what the change did in a few words: "approved 1.2 ppm", "instruction in words:
	// Set NOAEL to 200".
	What string `json:"what"`
	// Collection is the inbox's collection (none for what concerns no collection, such as a
	// folder whose name is not one: only admins hear of that), and Path its file as analysts
	// name it (inbox/sds/x.pdf).
	Collection string `json:"collection,omitempty"`
	Path       string `json:"path,omitempty"`

	origin *Service // the view that made it: its own subscribers don't hear it
}

// String says who did what in a line for a status bar: "alice approved row 3 · TLV (ppm)",
// "bob saved EUGENOL version 4".
func (c Change) String() string {
	who := c.By
	if who == "" {
		who = "an unknown analyst"
	}
	switch c.Kind {
	case ChangeToxVersion:
		return fmt.Sprintf("%s %s %s: version %d", who, c.Action, c.INCI, c.Version)
	case ChangeInbox:
		return who + ": " + c.What // "inbox: ingested inbox/sds/x.pdf into sds"
	}
	label := c.Field
	if f, ok := gas.FieldByName(c.Field); ok {
		label = f.Label
	}
	return fmt.Sprintf("%s %s row %d · %s", who, c.Action, c.Row, label)
}

// gasChange is the change a logged gas decision made.
func gasChange(d gas.Decision) Change {
	action := "changed"
	switch {
	case d.Undoes != 0:
		action = "undid"
	case d.After.Status == gas.StatusApproved:
		action = "approved"
	case d.After.Status == gas.StatusEdited:
		action = "edited"
	case d.After.Status == gas.StatusRejected:
		action = "rejected"
	case d.After.Status == gas.StatusFilled || d.After.Status == gas.StatusReview:
		action = "filled"
	case d.After.Status == gas.StatusUnsupported:
		action = "flagged" // a value no passage states: not a fill
	}
	return Change{Kind: ChangeGasCell, Table: d.Table, Row: d.Row, Field: d.Field, By: d.By, At: d.At,
		Action: action, What: d.What()}
}

// toxChange is the change a saved version made.
func toxChange(v tox.VersionInfo) Change {
	action := "saved"
	switch v.EditType {
	case tox.EditImport:
		action = "imported"
	case tox.EditRollback:
		action = "rolled back"
	}
	return Change{Kind: ChangeToxVersion, INCI: v.INCI, Version: v.Version, By: v.By, At: v.CreatedAt,
		Action: action, What: ToxEditTypeWords(v.EditType) + ": " + v.Summary}
}

// changeBuffer is how many changes a subscriber may fall behind by before the oldest are
// dropped: a reader reloads what a change names, so a dropped one costs nothing the next
// doesn't bring.
const changeBuffer = 64

// changeFeed fans changes out to subscribers. Publishing never blocks: a subscriber whose
// buffer is full loses its oldest change.
type changeFeed struct {
	mu   sync.Mutex
	subs map[*changeSub]struct{}
}

type changeSub struct {
	ch   chan Change
	view *Service // changes this view made are not delivered
}

func newChangeFeed() *changeFeed { return &changeFeed{subs: map[*changeSub]struct{}{}} }

func (f *changeFeed) publish(c Change) {
	if f == nil {
		return
	}
	f.mu.Lock()
	subs := make([]*changeSub, 0, len(f.subs))
	for sub := range f.subs {
		if sub.view != c.origin {
			subs = append(subs, sub)
		}
	}
	f.mu.Unlock()
	// Who may hear it is read from the grants without the lock: subscribing never waits on it.
	subs = slices.DeleteFunc(subs, func(sub *changeSub) bool { return !sub.view.hears(c) })
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, sub := range subs {
		if _, ok := f.subs[sub]; !ok {
			continue // left meanwhile: its channel is closed
		}
		select {
		case sub.ch <- c:
			continue
		default:
		}
		select { // full: drop the oldest, then there is room (only this goroutine sends)
		case <-sub.ch:
		default:
		}
		select {
		case sub.ch <- c:
		default:
		}
	}
}

// hears says whether this view's analyst may hear of c: an inbox change only when they may
// read its collection (one without a collection, only an admin); admins and views outside
// `warren serve` hear every change.
func (s *Service) hears(c Change) bool {
	if c.Kind != ChangeInbox || s.isAdmin() {
		return true
	}
	if c.Collection == "" {
		return false
	}
	level, err := s.levels(context.Background())
	if err != nil {
		s.log.Warn("couldn't read an analyst's access: an inbox notice is not delivered", "analyst", s.Owner, "error", err)
		return false
	}
	return level(c.Collection).Allows(grants.Read)
}

func (f *changeFeed) subscribe(view *Service) *changeSub {
	sub := &changeSub{ch: make(chan Change, changeBuffer), view: view}
	f.mu.Lock()
	f.subs[sub] = struct{}{}
	f.mu.Unlock()
	return sub
}

func (f *changeFeed) unsubscribe(sub *changeSub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[sub]; ok {
		delete(f.subs, sub)
		close(sub.ch)
	}
}

// Changes delivers the changes that other views of the workspace make to gas tables and
// toxicology profiles (this view's own are not delivered), and the inbox's news of the
// collections this view's analyst may read (see WatchInbox), until ctx ends, when the channel is
// closed. A reader that falls behind loses the oldest changes, never blocks the analyst who
// made them; it should reload what the changes it gets name.
func (tm *Team) Changes(ctx context.Context) <-chan Change {
	if tm.s.changes == nil {
		ch := make(chan Change)
		go func() {
			defer jobs.Recover(tm.s.log, "closing a change feed panicked", "analyst", tm.s.Owner)
			<-ctx.Done()
			close(ch)
		}()
		return ch
	}
	sub := tm.s.changes.subscribe(tm.s)
	go func() {
		// A server's goroutine: a bug here must not end the process.
		defer jobs.Recover(tm.s.log, "leaving the change feed panicked", "analyst", tm.s.Owner)
		<-ctx.Done()
		tm.s.changes.unsubscribe(sub)
	}()
	return sub.ch
}

// gasDecided publishes the decisions a gas store committed for this view.
func (s *Service) gasDecided(ds []gas.Decision) {
	for _, d := range ds {
		c := gasChange(d)
		c.origin = s
		s.changes.publish(c)
	}
}

// toxSaved publishes the versions a toxicology store saved for this view.
func (s *Service) toxSaved(vs []tox.VersionInfo) {
	for _, v := range vs {
		c := toxChange(v)
		c.origin = s
		s.changes.publish(c)
	}
}

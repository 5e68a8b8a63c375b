// Package admin is the workbench's admin view: who may read which collection (the grants, with
// granting and revoking) and the audit trail, newest first, filtered by analyst and time,
// scrolled and exported as CSV. Only admins reach it (the root opens it with ctrl+g); the desks
// refuse anyone else all the same, and their refusal is what the status line says.
package admin

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"warren/kb"
	"warren/service"
	"warren/service/audit"
	"warren/service/grants"
	"warren/tui/component"
	"warren/tui/styles"
)

// Access is the access desk (service.Access) as the view uses it.
type Access interface {
	// List returns the grants of analyst ("" for everyone's) and the default level.
	List(ctx context.Context, analyst string) (service.AccessList, error)
	Grant(ctx context.Context, analyst, collection string, level grants.Level) (grants.Grant, error)
	// Revoke drops a grant and reports whether there was one.
	Revoke(ctx context.Context, analyst, collection string) (bool, error)
}

// Trail is the audit desk (service.Audit) as the view uses it.
type Trail interface {
	// List returns the entries f selects, oldest first.
	List(ctx context.Context, f audit.Filter) ([]audit.Entry, error)
	// ExportCSV writes the entries f selects into the workspace's exports folder and returns
	// the file's path and how many entries it holds.
	ExportCSV(ctx context.Context, f audit.Filter) (string, int, error)
}

// Collections names the collections to offer when granting (the knowledge desk's).
type Collections interface {
	Collections(ctx context.Context) ([]kb.CollectionInfo, error)
}

// Desks are the desks the view works on; tests fill them with fakes.
type Desks struct {
	Access      Access
	Trail       Trail
	Collections Collections
}

// trailLimit bounds the entries the view holds; the CSV export takes every one the filter selects.
const trailLimit = 1000

type view int

const (
	viewGrants  view = iota // the grants table
	viewForm                // granting: analyst, collection, level
	viewConfirm             // a revocation waiting for y
	viewTrail               // the audit trail
)

var viewNames = map[view]string{viewGrants: "grants", viewForm: "form", viewConfirm: "confirm", viewTrail: "trail"}

// Form rows.
const (
	rowAnalyst = iota
	rowCollection
	rowLevel
)

var levels = []grants.Level{grants.None, grants.Read, grants.Write}

// Results of the view's commands.
type (
	grantsMsg struct {
		list service.AccessList
		err  error
	}
	collectionsMsg struct {
		names []string
		err   error
	}
	trailMsg struct {
		gen     int
		entries []audit.Entry
		err     error
	}
	grantedMsg struct {
		g   grants.Grant
		err error
	}
	revokedMsg struct {
		analyst, collection string
		revoked             bool
		err                 error
	}
	exportedMsg struct {
		path string
		n    int
		err  error
	}
)

// Model is the admin view.
type Model struct {
	d             Desks
	st            *styles.Styles
	loc           *time.Location
	width, height int
	view          view
	closed        bool // esc left the view: the root takes it (TakeClosed)

	list        service.AccessList
	loaded      bool
	loadErr     string
	cur         int
	collection  []string  // the existing collections, offered when granting
	selectAfter [2]string // the grant to put the cursor on once the grants are read again

	// The grant form, and a revocation waiting for y.
	row                int
	analyst, collInput textinput.Model
	level              grants.Level
	changing           bool // the form changes an existing grant's level
	granting, revoking bool // a call is on its way
	confirm            grants.Grant

	// The audit trail.
	trailLoaded         bool
	entries             []audit.Entry // newest first
	trailCur            int
	trailGen            int // of the latest load: an older one's answer is dropped
	trailErr            string
	byAnalyst, sinceArg string // the trail's filter, as typed
	filterFor           string // "", "analyst" or "since": the filter field that is open
	filter              textinput.Model
}

// New is the view over d, drawn with st.
func New(d Desks, st *styles.Styles) *Model {
	in := func() textinput.Model {
		t := textinput.New()
		t.Prompt = ""
		t.CharLimit = 64 // analyst and collection names are at most 64
		st := t.Styles()
		st.Cursor.Blink = false // a steady cursor: no redraw every half second over SSH
		t.SetStyles(st)
		return t
	}
	return &Model{d: d, st: st, loc: time.Local, analyst: in(), collInput: in(), filter: in(), level: grants.Read}
}

// SetStyles draws the view with st from now on.
func (m *Model) SetStyles(st *styles.Styles) { m.st = st }

// SetLocation shows times in loc (time.Local unless set), for snapshots.
func (m *Model) SetLocation(loc *time.Location) { m.loc = loc }

// SetSize sets the area the view is drawn in.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.analyst.SetWidth(max(min(w-20, 40), 10))
	m.collInput.SetWidth(max(min(w-20, 40), 10))
	m.filter.SetWidth(max(w-30, 10))
}

// Open shows the view afresh from the desks: the grants, the collections and the trail.
func (m *Model) Open() tea.Cmd {
	m.closed = false
	return tea.Batch(m.loadGrants(), m.loadCollections(), m.loadTrail())
}

// TakeClosed reports once that esc left the view.
func (m *Model) TakeClosed() bool {
	c := m.closed
	m.closed = false
	return c
}

func (m *Model) loadGrants() tea.Cmd {
	acc := m.d.Access
	return func() tea.Msg {
		list, err := acc.List(context.Background(), "")
		return grantsMsg{list: list, err: err}
	}
}

func (m *Model) loadCollections() tea.Cmd {
	cols := m.d.Collections
	if cols == nil {
		return nil
	}
	return func() tea.Msg {
		infos, err := cols.Collections(context.Background())
		names := make([]string, 0, len(infos))
		for _, c := range infos {
			names = append(names, c.Name)
		}
		return collectionsMsg{names: names, err: err}
	}
}

// loadTrail reads the trail as the filter selects it; a since typed as a duration counts back
// from when the command runs, so a reload moves with the clock.
func (m *Model) loadTrail() tea.Cmd {
	m.trailGen++
	gen, tr, by, since := m.trailGen, m.d.Trail, m.byAnalyst, m.sinceArg
	return func() tea.Msg {
		from, err := service.ParseSince(since, time.Now())
		if err != nil {
			return trailMsg{gen: gen, err: err}
		}
		list, err := tr.List(context.Background(), audit.Filter{Analyst: by, Since: from, Limit: trailLimit})
		return trailMsg{gen: gen, entries: list, err: err}
	}
}

// Update takes keys and the results of the view's commands.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case grantsMsg:
		if msg.err != nil {
			m.loadErr = msg.err.Error()
			return component.SetStatus(msg.err.Error(), true)
		}
		m.list, m.loaded, m.loadErr = msg.list, true, ""
		m.cur = min(m.cur, max(len(m.list.Grants)-1, 0))
		if m.selectAfter != [2]string{} {
			for i, g := range m.list.Grants {
				if g.Analyst == m.selectAfter[0] && g.Collection == m.selectAfter[1] {
					m.cur = i
				}
			}
			m.selectAfter = [2]string{}
		}
		return nil
	case collectionsMsg:
		if msg.err != nil {
			return component.SetStatus("couldn't list the collections: "+msg.err.Error(), true)
		}
		m.collection = msg.names
		return nil
	case trailMsg:
		if msg.gen != m.trailGen {
			return nil // a filter changed meanwhile: a newer load is on its way
		}
		if msg.err != nil {
			m.trailErr = msg.err.Error()
			return component.SetStatus(msg.err.Error(), true)
		}
		m.entries = slices.Clone(msg.entries)
		slices.Reverse(m.entries)
		m.trailLoaded, m.trailErr = true, ""
		m.trailCur = min(m.trailCur, max(len(m.entries)-1, 0))
		return nil
	case grantedMsg:
		m.granting = false
		if msg.err != nil {
			return component.SetStatus("nothing was granted: "+msg.err.Error(), true)
		}
		m.view, m.selectAfter = viewGrants, [2]string{msg.g.Analyst, msg.g.Collection}
		m.analyst.Blur()
		m.collInput.Blur()
		return tea.Batch(component.SetStatus(grantedWords(msg.g), false), m.loadGrants(), m.loadTrail())
	case revokedMsg:
		m.revoking = false
		if msg.err != nil {
			return component.SetStatus("nothing was revoked: "+msg.err.Error(), true)
		}
		text := msg.analyst + " had no grant on " + msg.collection
		if msg.revoked {
			text = msg.analyst + " no longer has a grant on " + msg.collection
		}
		text += ": the default applies (" + string(m.list.Default) + ")"
		return tea.Batch(component.SetStatus(text, false), m.loadGrants(), m.loadTrail())
	case exportedMsg:
		if msg.err != nil {
			return component.SetStatus(msg.err.Error(), true)
		}
		// The export is in the trail too.
		return tea.Batch(component.SetStatus("wrote "+inExports(msg.path)+" ("+entriesWord(msg.n)+")", false), m.loadTrail())
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		if in := m.field(); in != nil {
			var cmd tea.Cmd
			*in, cmd = in.Update(msg)
			return cmd
		}
	}
	return nil
}

// grantedWords says what a grant lets its analyst do, as `warren access grant` does.
func grantedWords(g grants.Grant) string {
	what := "neither read nor ingest into"
	switch g.Level {
	case grants.Read:
		what = "read"
	case grants.Write:
		what = "read and ingest into"
	}
	return g.Analyst + " may now " + what + " " + g.Collection + " (from their next search or ingest)"
}

func entriesWord(n int) string {
	if n == 1 {
		return "1 audit entry"
	}
	return strconv.Itoa(n) + " audit entries"
}

// inExports names an export from the workspace's exports folder on (exports/audit-….csv), as
// the report's export does: whole at 80 columns wherever the workspace is.
func inExports(path string) string {
	sep := string(filepath.Separator)
	if i := strings.LastIndex(path, sep+"exports"+sep); i >= 0 {
		return path[i+1:]
	}
	return path
}

// field is the text field that has the keyboard, nil when none.
func (m *Model) field() *textinput.Model {
	switch {
	case m.filterFor != "":
		return &m.filter
	case m.view == viewForm && m.row == rowAnalyst:
		return &m.analyst
	case m.view == viewForm && m.row == rowCollection:
		return &m.collInput
	}
	return nil
}

// The focus, quit and status contract (see component.Panel).

// Field reports a field with the keyboard while the grant form or a filter is typed.
func (m *Model) Field() component.FieldState {
	if m.view == viewForm || m.filterFor != "" {
		return component.FieldActive
	}
	return component.NoField
}

// FocusField does nothing: a field has the keyboard whenever it is open.
func (m *Model) FocusField() tea.Cmd { return nil }

// Pending names a grant typed and not sent.
func (m *Model) Pending() []string {
	if m.view == viewForm && strings.TrimSpace(m.analyst.Value()) != "" {
		return []string{"the grant for “" + m.analyst.Value() + "” is not sent"}
	}
	return nil
}

// Screen names the view and the open filter.
func (m *Model) Screen() string { return "admin/" + viewNames[m.view] + "/" + m.filterFor }

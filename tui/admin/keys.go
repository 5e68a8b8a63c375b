package admin

import (
	"context"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/service/audit"
	"warren/service/grants"
	"warren/tui/component"
)

// key takes a key on the current view: the form and a filter field take every key but esc
// and enter, a revocation waits for y.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	switch {
	case m.view == viewForm:
		return m.formKey(msg)
	case m.view == viewConfirm:
		return m.confirmKey(s)
	case m.filterFor != "":
		return m.filterKey(msg)
	case m.view == viewTrail:
		return m.trailKey(s)
	}
	return m.grantsKey(s)
}

func (m *Model) grantsKey(s string) tea.Cmd {
	switch s {
	case "up", "k":
		m.cur = max(m.cur-1, 0)
	case "down", "j":
		m.cur = min(m.cur+1, max(len(m.list.Grants)-1, 0))
	case "g":
		return m.openForm(grants.Grant{})
	case "enter":
		if g, ok := m.selected(); ok {
			return m.openForm(g)
		}
		return m.openForm(grants.Grant{})
	case "x", "delete":
		g, ok := m.selected()
		if !ok {
			return component.SetStatus("no grant to revoke: g grants one", false)
		}
		if m.revoking {
			return component.SetStatus("a revocation is on its way", false)
		}
		m.view, m.confirm = viewConfirm, g
	case "t":
		m.view = viewTrail
		if !m.trailLoaded {
			return m.loadTrail()
		}
	case "r":
		return m.Open()
	case "esc":
		m.closed = true
	}
	return nil
}

// selected is the grant under the cursor.
func (m *Model) selected() (grants.Grant, bool) {
	if m.cur < len(m.list.Grants) {
		return m.list.Grants[m.cur], true
	}
	return grants.Grant{}, false
}

// openForm starts a grant: empty, or changing g's level (then the level row has the keys).
func (m *Model) openForm(g grants.Grant) tea.Cmd {
	m.view, m.changing = viewForm, g.Analyst != ""
	m.analyst.SetValue(g.Analyst)
	m.level = grants.Read
	if m.changing {
		m.collInput.SetValue(g.Collection)
		m.level = g.Level
		return m.focusRow(rowLevel)
	}
	first := ""
	if len(m.collection) > 0 {
		first = m.collection[0]
	}
	m.collInput.SetValue(first)
	return m.focusRow(rowAnalyst)
}

func (m *Model) focusRow(row int) tea.Cmd {
	m.row = row
	m.analyst.Blur()
	m.collInput.Blur()
	switch row {
	case rowAnalyst:
		m.analyst.CursorEnd()
		return m.analyst.Focus()
	case rowCollection:
		m.collInput.CursorEnd()
		return m.collInput.Focus()
	}
	return nil
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	switch s := msg.String(); s {
	case "esc":
		m.view = viewGrants
		m.analyst.Blur()
		m.collInput.Blur()
		return component.SetStatus("nothing was granted", false)
	case "up", "shift+up":
		return m.focusRow(max(m.row-1, rowAnalyst))
	case "down", "shift+down":
		return m.focusRow(min(m.row+1, rowLevel))
	case "enter":
		if m.row < rowLevel {
			return m.focusRow(m.row + 1)
		}
		return m.submit()
	case "ctrl+s":
		return m.submit()
	case "left", "right":
		d := 1
		if s == "left" {
			d = -1
		}
		switch m.row {
		case rowCollection:
			if len(m.collection) > 0 {
				i := slices.Index(m.collection, strings.TrimSpace(m.collInput.Value()))
				if i < 0 && d < 0 {
					i = 0
				}
				m.collInput.SetValue(m.collection[(i+d+len(m.collection))%len(m.collection)])
				m.collInput.CursorEnd()
			}
			return nil
		case rowLevel:
			i := slices.Index(levels, m.level)
			m.level = levels[(i+d+len(levels))%len(levels)]
			return nil
		}
	}
	if m.row == rowLevel {
		switch msg.String() {
		case "n":
			m.level = grants.None
		case "r":
			m.level = grants.Read
		case "w":
			m.level = grants.Write
		case "space":
			m.level = levels[(slices.Index(levels, m.level)+1)%len(levels)]
		}
		return nil
	}
	in := m.field()
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	return cmd
}

// submit asks the access desk for the grant; the desk checks the names and says what is wrong.
func (m *Model) submit() tea.Cmd {
	analyst, coll, level := strings.TrimSpace(m.analyst.Value()), strings.TrimSpace(m.collInput.Value()), m.level
	switch {
	case m.granting:
		return component.SetStatus("the grant is on its way", false)
	case analyst == "":
		return tea.Batch(m.focusRow(rowAnalyst), component.SetStatus("type the analyst's name first", true))
	case coll == "":
		return tea.Batch(m.focusRow(rowCollection), component.SetStatus("choose a collection first (←/→, or type one)", true))
	}
	m.granting = true
	acc := m.d.Access
	return func() tea.Msg {
		g, err := acc.Grant(context.Background(), analyst, coll, level)
		return grantedMsg{g: g, err: err}
	}
}

func (m *Model) confirmKey(s string) tea.Cmd {
	g := m.confirm
	m.view, m.confirm = viewGrants, grants.Grant{}
	if s != "y" && s != "Y" {
		return component.SetStatus("nothing was revoked: "+g.Analyst+" keeps "+string(g.Level)+" on "+g.Collection, false)
	}
	m.revoking = true
	acc := m.d.Access
	return func() tea.Msg {
		ok, err := acc.Revoke(context.Background(), g.Analyst, g.Collection)
		return revokedMsg{analyst: g.Analyst, collection: g.Collection, revoked: ok, err: err}
	}
}

func (m *Model) trailKey(s string) tea.Cmd {
	page := max(m.trailRows()-1, 1)
	last := max(len(m.entries)-1, 0)
	switch s {
	case "up", "k":
		m.trailCur = max(m.trailCur-1, 0)
	case "down", "j":
		m.trailCur = min(m.trailCur+1, last)
	case "pgup":
		m.trailCur = max(m.trailCur-page, 0)
	case "pgdown", "space":
		m.trailCur = min(m.trailCur+page, last)
	case "home":
		m.trailCur = 0
	case "end", "G":
		m.trailCur = last
	case "a":
		return m.openFilter("analyst", m.byAnalyst)
	case "s":
		return m.openFilter("since", m.sinceArg)
	case "e":
		if len(m.entries) == 0 {
			return component.SetStatus("nothing to export: no entry matches the filter", false)
		}
		return m.export()
	case "r":
		return m.loadTrail()
	case "t", "esc":
		m.view = viewGrants
	}
	return nil
}

func (m *Model) openFilter(which, value string) tea.Cmd {
	m.filterFor = which
	m.filter.Placeholder = "an analyst's name; empty: everyone"
	if which == "since" {
		m.filter.Placeholder = "24h, 7d, 2026-11-01; empty: from the first"
	}
	m.filter.SetValue(value)
	m.filter.CursorEnd()
	return m.filter.Focus()
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.filterFor = ""
		m.filter.Blur()
		return nil
	case "enter":
		v := strings.TrimSpace(m.filter.Value())
		if m.filterFor == "since" {
			if _, err := service.ParseSince(v, time.Now()); err != nil {
				return component.SetStatus("since "+v+": "+err.Error(), true)
			}
			m.sinceArg = v
		} else {
			m.byAnalyst = v
		}
		m.filterFor = ""
		m.filter.Blur()
		m.trailCur = 0
		return m.loadTrail()
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	return cmd
}

// export writes what the filter selects, every entry and not only those shown, as CSV.
func (m *Model) export() tea.Cmd {
	tr, by, since := m.d.Trail, m.byAnalyst, m.sinceArg
	return tea.Batch(component.SetStatus("writing the audit trail as CSV…", false), func() tea.Msg {
		from, err := service.ParseSince(since, time.Now())
		if err != nil {
			return exportedMsg{err: err}
		}
		path, n, err := tr.ExportCSV(context.Background(), audit.Filter{Analyst: by, Since: from})
		return exportedMsg{path: path, n: n, err: err}
	})
}

// Keys lists the keys of the current view; a key that cannot be used now says why.
func (m *Model) Keys() component.KeyMap {
	var short []key.Binding
	switch {
	case m.view == viewForm:
		short = []key.Binding{component.Bind("enter", "next / grant"), component.Bind("↑/↓", "field", "up", "down"),
			component.Bind("←/→", "choose", "left", "right"), component.Bind("esc", "cancel")}
	case m.view == viewConfirm:
		short = []key.Binding{component.Bind("y", "revoke"), component.Bind("any other key", "keep it")}
	case m.filterFor != "":
		short = []key.Binding{component.Bind("enter", "filter"), component.Bind("esc", "cancel")}
	case m.view == viewTrail:
		export := component.Bind("e", "export CSV")
		if len(m.entries) == 0 {
			export = component.Disabled("e", "export CSV (no entries)")
		}
		short = []key.Binding{component.Bind("↑/↓", "scroll", "up", "down"), component.Bind("a", "analyst"), component.Bind("s", "since"),
			export, component.Bind("esc", "back to grants"), component.Bind("pgup/pgdn", "page", "pgup", "pgdown"), component.Bind("r", "reload")}
	default:
		revoke := component.Bind("x", "revoke", "x", "delete")
		change := component.Bind("enter", "change level")
		if len(m.list.Grants) == 0 {
			revoke = component.Disabled("x", "revoke (no grant)")
			change = component.Disabled("enter", "change level (no grant)")
		}
		short = []key.Binding{component.Bind("g", "grant"), revoke, component.Bind("t", "audit trail"), component.Bind("esc", "close"),
			change, component.Bind("↑/↓", "move", "up", "down"), component.Bind("r", "reload")}
	}
	return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
}

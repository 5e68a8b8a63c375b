package tui

import (
	tea "charm.land/bubbletea/v2"

	adminpanel "warren/tui/admin"
)

// The admin view (package tui/admin: access grants and the audit trail) covers the tabs while
// it is open: keys, the help line and the status line are its own, and esc (or a tab chosen)
// goes back to the tab it covered. Only admins reach it.

// adminTab tags the admin view's status messages; it is no tab of the bar.
const adminTab = 101

var _ panel = (*adminpanel.Model)(nil)

// mayAdmin reports whether this workbench's analyst is an admin with the desks to work on.
func (m *Model) mayAdmin() bool {
	return m.desks.Access != nil && m.desks.Audit != nil && m.desks.Session.IsAdmin()
}

// toggleAdmin opens the admin view, reading the desks afresh, or closes it. Anyone else is only
// told why nothing opened.
func (m *Model) toggleAdmin() tea.Cmd {
	if m.adminOpen {
		m.adminOpen = false
		return nil
	}
	if !m.mayAdmin() {
		return m.setStatusNow(m.tab, "only an admin may see who reads which collection and the audit trail", false)
	}
	m.adminOpen = true
	return tagStatus(m.adminView.Open(), adminTab)
}

// active is what the content area shows: the admin view while it is open, else the tab's panel.
func (m *Model) active() panel {
	if m.adminOpen {
		return m.adminView
	}
	return m.panels[m.tab]
}

// toActive hands a key (or a paste) to what the content area shows; esc out of the admin view
// closes it.
func (m *Model) toActive(msg tea.Msg) tea.Cmd {
	if !m.adminOpen {
		return m.toPanel(m.tab, msg)
	}
	cmd := tagStatus(m.adminView.Update(msg), adminTab)
	if m.adminView.TakeClosed() {
		m.adminOpen = false
	}
	return cmd
}

// statusTab is whose status messages the status line shows now.
func (m *Model) statusTab() int {
	if m.adminOpen {
		return adminTab
	}
	return m.tab
}

// screenOf names the screen a tab's panel (or the admin view) shows, "" for anyTab.
func (m *Model) screenOf(tab int) string {
	switch {
	case tab == adminTab:
		return m.adminView.Screen()
	case tab >= 0 && tab < len(m.panels):
		return m.panels[tab].Screen()
	}
	return ""
}

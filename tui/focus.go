package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"warren/tui/component"
)

// fieldState says who gets a printable key on a panel's current view (see component.FieldState):
// the one rule of focus in the workbench.
type fieldState = component.FieldState

const (
	noField     = component.NoField
	fieldIdle   = component.FieldIdle
	fieldActive = component.FieldActive
)

// printable reports a key that types text: a character without ctrl or alt.
func printable(msg tea.KeyPressMsg) bool {
	k := msg.Key()
	return k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper) == 0
}

// editingKeys change a field's text or move in it: on an idle field they, too, give it the
// keyboard first.
var editingKeys = map[string]bool{"backspace": true, "delete": true, "left": true, "right": true, "home": true, "end": true,
	"ctrl+u": true, "ctrl+w": true, "ctrl+k": true, "ctrl+a": true}

// route decides where a key goes. It returns the command of whoever took it.
func (m *Model) route(msg tea.KeyPressMsg) tea.Cmd {
	p := m.active()
	switch msg.String() {
	case "tab":
		return m.selectTab((m.tab + 1) % len(m.panels))
	case "shift+tab":
		return m.selectTab((m.tab + len(m.panels) - 1) % len(m.panels))
	case "f1":
		m.showHelp = true
		return nil
	case "ctrl+g": // a control key types nothing, so it opens the admin view from a field too
		return m.toggleAdmin()
	}
	if i, ok := altTab(msg); ok {
		// alt+1-5 open a tab even while a field types (the digits alone type there).
		return m.selectTab(i)
	}
	field := p.Field()
	if field == fieldActive {
		return m.toActive(msg)
	}
	// No field has the keyboard: the one-letter commands of the whole workbench.
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.requestQuit()
	case key.Matches(msg, m.keys.Help):
		m.showHelp = true
		return nil
	}
	for i, b := range []key.Binding{m.keys.Tab1, m.keys.Tab2, m.keys.Tab3, m.keys.Tab4, m.keys.Tab5} {
		if key.Matches(msg, b) {
			return m.selectTab(i)
		}
	}
	if field == fieldIdle && (printable(msg) || editingKeys[msg.String()]) {
		focus := p.FocusField()
		return tea.Batch(focus, m.toActive(msg))
	}
	return m.toActive(msg)
}

// altTab reads alt+1 to alt+5 as the tab they open.
func altTab(msg tea.KeyPressMsg) (int, bool) {
	k := msg.Key()
	if k.Mod&tea.ModAlt == 0 || k.Mod&(tea.ModCtrl|tea.ModMeta|tea.ModSuper) != 0 || k.Code < '1' || k.Code > '5' {
		return 0, false
	}
	return int(k.Code - '1'), true
}

// selectTab shows tab i. Arriving on the Toxicology tab refreshes its waiting proposals, and on
// the Gas tab its tables, which another analyst or the CLI may have added or decided meanwhile.
func (m *Model) selectTab(i int) tea.Cmd {
	m.adminOpen = false // a tab chosen leaves the admin view, which covers the tabs
	changed := m.tab != i
	m.tab = i
	if changed && i == toxTabIndex {
		return tagStatus(m.tox.LoadWaiting(), i)
	}
	if changed && i == gasTabIndex { // a table imported from the CLI shows without r
		return tagStatus(m.gas.Arrived(), i)
	}
	return nil
}

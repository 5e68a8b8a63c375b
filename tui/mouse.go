package tui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// tabsRow is the screen row of the tab bar (below the header).
const tabsRow = 1

// click selects the tab under the pointer; clicks elsewhere do nothing yet.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.quitting != nil || msg.Button != tea.MouseLeft || msg.Y != tabsRow {
		return nil
	}
	x := 0
	for i, name := range tabNames {
		w := lipgloss.Width(m.tabLabel(i, name))
		if msg.X >= x && msg.X < x+w {
			m.showHelp = false
			return m.selectTab(i)
		}
		x += w
	}
	return nil
}

// wheel scrolls what the active view shows, as the arrow keys do: lists move their cursor,
// the report and the Log tab scroll. A text field with the keyboard is left alone.
func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	if m.quitting != nil || m.showHelp || m.active().Field() == fieldActive {
		return nil
	}
	code := tea.KeyUp
	switch msg.Button {
	case tea.MouseWheelUp:
	case tea.MouseWheelDown:
		code = tea.KeyDown
	default:
		return nil
	}
	return m.toActive(tea.KeyPressMsg{Code: code})
}

package research

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/component"
	"warren/tui/styles"
)

// Short names for what the tab uses of package component.

type (
	statusMsg  = component.StatusMsg
	eventQueue = component.Queue[service.RunEvent]
	eventsMsg  = component.Drained[service.RunEvent]
	keyMap     = component.KeyMap
	keyBinding = key.Binding
	fieldState = component.FieldState
)

const (
	noField     = component.NoField
	fieldIdle   = component.FieldIdle
	fieldActive = component.FieldActive
)

func newEventQueue() *eventQueue { return component.NewQueue[service.RunEvent]() }

func newStatus(text string, isErr bool) statusMsg { return component.NewStatus(text, isErr) }

func setStatus(text string, isErr bool) tea.Cmd { return component.SetStatus(text, isErr) }

func copyText(text, what string) tea.Cmd { return component.CopyText(text, what) }

func bind(label, help string, more ...string) key.Binding {
	return component.Bind(label, help, more...)
}

func disabled(keys, why string) key.Binding { return component.Disabled(keys, why) }

func safe(s string) string                { return component.Safe(s) }
func safeLine(s string) string            { return component.SafeLine(s) }
func oneLine(s string) string             { return component.OneLine(s) }
func orNone(s string) string              { return component.OrNone(s) }
func truncate(s string, width int) string { return component.Truncate(s, width) }
func wrap(s string, width int) string     { return component.Wrap(s, width) }
func lineCount(s string) int              { return component.LineCount(s) }

func bar(st *styles.Styles, label string, used, limit, width int) string {
	return component.Bar(st, label, used, limit, width)
}

func listWindow(n, cur, room int, row func(int) string, st *styles.Styles, width int) string {
	return component.ListWindow(n, cur, room, row, st, width)
}

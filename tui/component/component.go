// Package component holds what the workbench's panels share: the interface the root model
// drives them through (Panel, with the focus rule's FieldState), status-line messages, key
// maps for bubbles/help, the queue that carries a job's events into the program, and the
// helpers that make outside text safe to draw. A panel imports this package, never another
// panel; the root (package tui) routes messages, owns focus and decides about quitting.
package component

import (
	tea "charm.land/bubbletea/v2"
)

// Panel is one tab's content. Panels are plain structs: the root routes messages to them and
// places their views.
type Panel interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	Keys() KeyMap
	// Field reports who gets a printable key on the current view (see FieldState).
	Field() FieldState
	// FocusField gives the keyboard to the current view's text field (for FieldIdle).
	FocusField() tea.Cmd
	// Pending lists, in words, what quitting now would interrupt or lose.
	Pending() []string
	// Screen names the current view; the tab's status message is dropped when it changes.
	Screen() string
}

// FieldState says who gets a printable key on a panel's current view. It is the one rule of
// focus in the workbench: panels report their state, the root routes keys by it.
type FieldState int

const (
	// NoField: the view has no text field, so letters are commands.
	NoField FieldState = iota
	// FieldIdle: the view's main job is typing but its field does not have the keyboard (the
	// analyst pressed Esc to use the one-letter commands). A printable key that is not one of
	// those commands gives the field the keyboard and goes into it, so no letter is dropped.
	FieldIdle
	// FieldActive: a text field has the keyboard; every key but tab, shift+tab, f1, ctrl+g and
	// ctrl+c goes to it.
	FieldActive
)

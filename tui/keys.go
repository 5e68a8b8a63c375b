package tui

import (
	"charm.land/bubbles/v2/key"

	"warren/tui/component"
)

// globalKeys work everywhere unless a text field has the keyboard (tab, shift+tab, f1, ctrl+g
// and ctrl+c work even then).
type globalKeys struct {
	NextTab, PrevTab, Tab1, Tab2, Tab3, Tab4, Tab5, Help, Quit, Cancel, Admin key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		NextTab: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Tab1:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1-5 alt+1-5", "go to tab (alt also while typing)")),
		Tab2:    key.NewBinding(key.WithKeys("2")),
		Tab3:    key.NewBinding(key.WithKeys("3")),
		Tab4:    key.NewBinding(key.WithKeys("4")),
		Tab5:    key.NewBinding(key.WithKeys("5")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?/f1", "all keys (f1 also while typing)")),
		Quit:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit (asks first if work would be lost)")),
		Cancel:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel your run in flight in its run view, else quit")),
		Admin:   key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "admin: who reads which collection, audit trail (admins)")),
	}
}

// bind is a binding shown as label with help; the keys it answers are more, or label itself.
func bind(label, help string, more ...string) key.Binding {
	return component.Bind(label, help, more...)
}

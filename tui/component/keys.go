package component

import "charm.land/bubbles/v2/key"

// KeyMap adapts a panel's bindings to bubbles/help: Short for the help line, Full in groups
// for the full help.
type KeyMap struct {
	Short []key.Binding
	Full  [][]key.Binding
}

// ShortHelp returns the bindings of the help line.
func (k KeyMap) ShortHelp() []key.Binding { return k.Short }

// FullHelp returns the bindings of the full help, in groups.
func (k KeyMap) FullHelp() [][]key.Binding { return k.Full }

// Bind is a binding shown as label with help; the keys it answers are more, or label itself.
func Bind(label, help string, more ...string) key.Binding {
	keys := more
	if len(keys) == 0 {
		keys = []string{label}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(label, help))
}

// Disabled returns a binding shown as unavailable, with why in its help.
func Disabled(keys, why string) key.Binding {
	b := key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, why))
	b.SetEnabled(false)
	return b
}

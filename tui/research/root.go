package research

import (
	tea "charm.land/bubbletea/v2"

	"warren/tui/component"
)

var _ component.Panel = (*Model)(nil)

// What the root model asks of the Research tab besides component.Panel.

// SetServed makes the tab one connection of warren serve: runs go on when it closes.
func (r *Model) SetServed(served bool) { r.served = served }

// Reflow renders the report again for the tab's current width (after a resize); the rendering
// runs in the command.
func (r *Model) Reflow() tea.Cmd { return r.report.renderCmd() }

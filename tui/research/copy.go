package research

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/component"
)

// copyFromReport copies the selected citation's source, or the whole report as Markdown when
// no citation is selected.
func (r *Model) copyFromReport() tea.Cmd {
	if r.state == nil || r.state.Report == "" {
		return setStatus("no report to copy yet", false)
	}
	if n := r.report.selected(); n > 0 {
		for _, src := range r.state.Sources {
			if src.N == n {
				text := fmt.Sprintf("[%d] %s", n, src.Doc)
				text += component.PlaceSuffix(src.Section, src.PageRef)
				text += fmt.Sprintf(" (collection %s, chunk %s): %s\n", src.Collection, src.ChunkID, strings.TrimSpace(src.Excerpt))
				return copyText(text, fmt.Sprintf("citation [%d]", n))
			}
		}
	}
	return copyText(service.ResearchReport(r.state), "the report as Markdown")
}

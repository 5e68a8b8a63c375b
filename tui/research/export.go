package research

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// exportFormat is one format the report view's export chooser offers.
type exportFormat struct {
	key, format, name string
}

// exportFormats are the chooser's formats, in the order the service lists them; each has a
// key of its own, so that x then d exports DOCX.
var exportFormats = []exportFormat{
	{"m", "md", "Markdown"},
	{"d", "docx", "DOCX"},
	{"o", "odt", "ODT"},
	{"p", "pdf", "PDF"},
	{"h", "html", "HTML"},
}

// openExport opens the chooser over a finished report; the format last chosen is offered first.
func (r *Model) openExport() tea.Cmd {
	if r.state == nil || r.state.Report == "" {
		return setStatus("no report to export yet", false)
	}
	r.exportPick = true
	return setStatus("export as: m md, d docx, o odt, p pdf, h html · enter the one shown · esc cancels", false)
}

// exportKey is a key while the chooser is open: a format's key exports at once, ←/→ move,
// enter exports the one shown, esc closes it; other keys do nothing.
func (r *Model) exportKey(k string) tea.Cmd {
	switch k {
	case "esc", "x":
		r.exportPick = false
		return setStatus("not exported", false)
	case "left":
		r.exportCur = (r.exportCur + len(exportFormats) - 1) % len(exportFormats)
	case "right":
		r.exportCur = (r.exportCur + 1) % len(exportFormats)
	case "enter":
		r.exportPick = false
		return r.export(exportFormats[r.exportCur].format)
	default:
		for i, f := range exportFormats {
			if k == f.key || k == f.format {
				r.exportPick, r.exportCur = false, i
				return r.export(f.format)
			}
		}
	}
	return nil
}

// export writes the report in a format through the desk, off the update loop; the status line
// then names the file written.
func (r *Model) export(format string) tea.Cmd {
	if r.state == nil || r.state.Report == "" {
		return setStatus("no report to export yet", false)
	}
	run, be := r.run, r.be
	return tea.Batch(setStatus("exporting the report as "+format+" …", false), func() tea.Msg {
		path, err := be.Export(context.Background(), run, format, "")
		return exportedMsg{path: path, format: format, err: err}
	})
}

// exportChooser is the line that replaces the report's title while the chooser is open; it
// says how to pick when the tab is wide enough (the help line always does).
func (r *Model) exportChooser() string {
	parts := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		label := f.key + " " + f.name
		if i == r.exportCur {
			parts[i] = r.st.Selected.Render("▸ " + label)
		} else {
			parts[i] = r.st.Subtle.Render("  " + label)
		}
	}
	line := r.st.Title.Render("Export as") + "  " + strings.Join(parts, " ")
	if hint := "   enter exports · esc cancels"; ansi.StringWidth(line+hint) <= r.width {
		line += r.st.Subtle.Render(hint)
	}
	return line
}

// Package styles holds the workbench's look: a few semantic colours, chosen for a light or a
// dark terminal, and the styles built from them. Colour depth (and NO_COLOR) is handled when
// the program renders, so these styles may always name colours.
package styles

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are the workbench's styles.
type Styles struct {
	Dark bool

	Accent, Muted, Good, Warn, Bad, Text, Edit color.Color

	Header, Tab, ActiveTab, Status, StatusError, Title, Subtle, Selected, Key, Box, BarFull, BarEmpty lipgloss.Style
	Followed, Skipped, Unresolved, OverBudget                                                         lipgloss.Style

	// Gas-table cells by status, and the cell under the cursor.
	CellOriginal, CellFilled, CellReview, CellApproved, CellEdited, CellRejected, CellCursor lipgloss.Style

	// Diff lines: removed, added, and the hunk headers.
	DiffRemoved, DiffAdded, DiffHunk lipgloss.Style
}

// New builds the styles for a dark or light background.
func New(dark bool) *Styles {
	pick := lipgloss.LightDark(dark)
	s := &Styles{
		Dark:   dark,
		Accent: pick(lipgloss.Color("#005F87"), lipgloss.Color("#5FAFFF")),
		Muted:  pick(lipgloss.Color("#6C6C6C"), lipgloss.Color("#8A8A8A")),
		Good:   pick(lipgloss.Color("#007700"), lipgloss.Color("#87D787")),
		Warn:   pick(lipgloss.Color("#875F00"), lipgloss.Color("#FFD75F")),
		Bad:    pick(lipgloss.Color("#AF0000"), lipgloss.Color("#FF5F5F")),
		Text:   pick(lipgloss.Color("#1C1C1C"), lipgloss.Color("#E4E4E4")),
		Edit:   pick(lipgloss.Color("#870087"), lipgloss.Color("#D787D7")),
	}
	s.Header = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Tab = lipgloss.NewStyle().Foreground(s.Muted).Padding(0, 1)
	s.ActiveTab = lipgloss.NewStyle().Bold(true).Foreground(s.Accent).Underline(true).Padding(0, 1)
	s.Status = lipgloss.NewStyle().Foreground(s.Muted)
	s.StatusError = lipgloss.NewStyle().Foreground(s.Bad).Bold(true)
	s.Title = lipgloss.NewStyle().Bold(true)
	s.Subtle = lipgloss.NewStyle().Foreground(s.Muted)
	s.Selected = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Key = lipgloss.NewStyle().Foreground(s.Accent)
	s.Box = lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(s.Muted).Padding(0, 1)
	s.BarFull = lipgloss.NewStyle().Foreground(s.Accent)
	s.BarEmpty = lipgloss.NewStyle().Foreground(s.Muted)
	s.Followed = lipgloss.NewStyle().Foreground(s.Good)
	s.Skipped = lipgloss.NewStyle().Foreground(s.Muted)
	s.Unresolved = lipgloss.NewStyle().Foreground(s.Warn)
	s.OverBudget = lipgloss.NewStyle().Foreground(s.Bad)
	s.CellOriginal = lipgloss.NewStyle()
	s.CellFilled = lipgloss.NewStyle().Foreground(s.Good)
	s.CellReview = lipgloss.NewStyle().Foreground(s.Warn).Bold(true)
	s.CellApproved = lipgloss.NewStyle().Foreground(s.Accent).Bold(true)
	s.CellEdited = lipgloss.NewStyle().Foreground(s.Edit)
	s.CellRejected = lipgloss.NewStyle().Foreground(s.Bad).Faint(true)
	s.CellCursor = lipgloss.NewStyle().Reverse(true)
	s.DiffRemoved = lipgloss.NewStyle().Foreground(s.Bad)
	s.DiffAdded = lipgloss.NewStyle().Foreground(s.Good)
	s.DiffHunk = lipgloss.NewStyle().Foreground(s.Accent)
	return s
}

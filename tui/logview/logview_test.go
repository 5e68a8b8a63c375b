package logview

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/service"
	"warren/tui/styles"
)

// The log keeps every status message whole, wraps long lines, leaves tokens to the report,
// and keeps only the newest maxLogLines lines.
func TestLogKeepsMessagesWholeAndBounded(t *testing.T) {
	l := New(styles.New(true))
	l.SetSize(40, 10)
	at := time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)
	l.AddEvents([]service.RunEvent{{Time: at, Kind: service.EventToken, Summary: "tok"},
		{Time: at, Kind: service.EventNodeStarted, Node: "init"}})
	if got := l.Lines(); len(got) != 1 || !strings.Contains(got[0], "step    starting the run") {
		t.Fatalf("lines %q: the token is not logged, the node is", got)
	}
	long := strings.Repeat("word ", 20) + "end"
	l.AddStatus(long, true)
	view := ansi.Strip(l.View())
	if !strings.Contains(view, "error") || !strings.Contains(view, "end") {
		t.Errorf("the long status is not shown whole:\n%s", view)
	}
	for range maxLogLines + 10 {
		l.AddStatus("line", false)
	}
	if n := len(l.Lines()); n != maxLogLines {
		t.Errorf("%d lines kept, want %d", n, maxLogLines)
	}
}

// Scrolling stops at the oldest line and at the newest.
func TestLogScrollIsBounded(t *testing.T) {
	l := New(styles.New(true))
	l.SetSize(40, 3)
	for range 3 {
		l.AddStatus("line", false)
	}
	up := tea.KeyPressMsg{Code: tea.KeyUp}
	for range 10 {
		l.Update(up)
	}
	if l.Offset() != 2 {
		t.Errorf("offset %d after scrolling past the top, want 2", l.Offset())
	}
	l.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if l.Offset() != 0 {
		t.Errorf("G leaves offset %d, want 0", l.Offset())
	}
}

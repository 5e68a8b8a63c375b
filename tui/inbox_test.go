package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"warren/doctor"
	"warren/service"
)

// What the inbox did reaches the workbench as one line on whichever tab is shown, and a file
// name that tries to drive the terminal or break the line draws as text.
func TestInboxNewsIsOneSafeLine(t *testing.T) {
	m := New(desksOf(fixture{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	news := service.Change{Kind: service.ChangeInbox, Collection: "sds", Path: hostileID, By: service.InboxActor,
		Action: service.InboxIngested, What: "ingested " + hostileID + " into sds"}
	m.Update(changesMsg{Items: []service.Change{news}}) // its commands (the timer that clears the line) are not run
	line := m.statusLine()
	requireNothingDrives(t, "the status line", line)
	if !strings.Contains(line, "inbox: ingested inbox/evil⏎name.md into sds") {
		t.Errorf("the status line: %q", line)
	}
	if !strings.Contains(frame(m), "inbox: ingested inbox/evil⏎name.md into sds") {
		t.Errorf("the frame does not show it:\n%s", frame(m))
	}
}

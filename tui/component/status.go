package component

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// Untagged is the Tab of a status message that the root has not yet tagged with the tab of
// the panel that returned it.
const Untagged = -1

// AnyTab is the Tab of a status message shown on every tab that has no message of its own.
const AnyTab = 100

// A message's Seq is the order in which it was decided. Commands deliver their messages in
// whatever order their goroutines finish: "cancelling the run…", decided on Esc, could arrive
// after "run canceled", decided when the run ended, and hide it. The root shows a message
// decided before the one a tab shows in the Log tab only. 0: decided as it arrives.
var statusSeq atomic.Int64

// StatusMsg is a message for the status line. A panel returns it (see SetStatus); the root
// tags it with the panel's tab and shows it there.
type StatusMsg struct {
	Text string
	Err  bool
	Tab  int
	Seq  int64
}

// NextSeq is the order of a message decided now.
func NextSeq() int64 { return statusSeq.Add(1) }

// NewStatus is a message for the status line of the tab whose panel returns it, decided now.
func NewStatus(text string, isErr bool) StatusMsg {
	return StatusMsg{Text: text, Err: isErr, Tab: Untagged, Seq: NextSeq()}
}

// SetStatus is a command that shows a message in the status line of the tab that returns it.
func SetStatus(text string, isErr bool) tea.Cmd {
	msg := NewStatus(text, isErr)
	return func() tea.Msg { return msg }
}

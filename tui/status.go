package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/tui/component"
)

// Status messages belong to the tab whose panel produced them and to the screen that panel
// showed then: they are shown only there and dropped when that screen is left. A message from
// the workbench itself (the model check) belongs to every tab.
const (
	untagged = component.Untagged // not yet tagged by the root
	anyTab   = component.AnyTab   // shown on every tab that has no message of its own
)

// statusMsg is a status-line message (see component.StatusMsg): its Seq orders it, and one
// decided before the one a tab shows goes to the Log tab only.
type statusMsg = component.StatusMsg

type statusEntry struct {
	text   string
	err    bool
	id     int
	seq    int64
	screen string
}

// newStatus is a message for the status line of the tab whose panel returns it, decided now.
func newStatus(text string, isErr bool) statusMsg { return component.NewStatus(text, isErr) }

// setStatus is a command that shows a message in the status line of the tab that returns it.
func setStatus(text string, isErr bool) tea.Cmd { return component.SetStatus(text, isErr) }

// tagStatus marks the status messages that cmd produces (also inside a batch) with tab.
func tagStatus(cmd tea.Cmd, tab int) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case statusMsg:
			if msg.Tab == untagged {
				msg.Tab = tab
			}
			return msg
		case tea.BatchMsg:
			for i := range msg {
				msg[i] = tagStatus(msg[i], tab)
			}
			return msg
		default:
			return msg
		}
	}
}

// toPanel hands a message to panel i and tags what it returns with its tab.
func (m *Model) toPanel(i int, msg tea.Msg) tea.Cmd {
	return tagStatus(m.panels[i].Update(msg), i)
}

// setStatusNow records a message at once (for the root's own messages).
func (m *Model) setStatusNow(tab int, text string, isErr bool) tea.Cmd {
	return m.recordStatus(tab, text, isErr, component.NextSeq())
}

// showStatus records a message that a command delivered, unless the tab shows one decided
// after it.
func (m *Model) showStatus(msg statusMsg) tea.Cmd {
	tab := msg.Tab
	if tab == untagged {
		tab = anyTab
	}
	if msg.Seq == 0 {
		return m.setStatusNow(tab, msg.Text, msg.Err)
	}
	if e, ok := m.statuses[tab]; ok && msg.Seq < e.seq {
		m.log.AddStatus(msg.Text, msg.Err)
		return nil
	}
	return m.recordStatus(tab, msg.Text, msg.Err, msg.Seq)
}

func (m *Model) recordStatus(tab int, text string, isErr bool, seq int64) tea.Cmd {
	m.statusID++
	screen := m.screenOf(tab)
	m.statuses[tab] = statusEntry{text: text, err: isErr, id: m.statusID, seq: seq, screen: screen}
	m.log.AddStatus(text, isErr)
	id := m.statusID
	wait := 8 * time.Second
	if isErr {
		wait = 30 * time.Second
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return clearStatusMsg{tab: tab, id: id} })
}

// pruneStatus drops the messages of screens that are no longer shown.
func (m *Model) pruneStatus() {
	for tab, e := range m.statuses {
		if tab != anyTab && m.screenOf(tab) != e.screen {
			delete(m.statuses, tab)
		}
	}
}

func (m *Model) statusLine() string {
	e, ok := m.statuses[m.statusTab()]
	if !ok {
		e, ok = m.statuses[anyTab]
	}
	if !ok {
		return ""
	}
	text := fitWords(safe(e.text), m.width-2, " … (5 Log: all of it)") // messages name documents, runs, errors
	if e.err {
		return truncate(m.st.StatusError.Render("! "+text), m.width)
	}
	return truncate(m.st.Status.Render(text), m.width)
}

// fitWords shortens text to width cells at a word boundary, ending with more; text that fits
// is returned as it is.
func fitWords(text string, width int, more string) string {
	text = strings.Join(strings.Fields(text), " ")
	if ansi.StringWidth(text) <= width {
		return text
	}
	room := width - ansi.StringWidth(more)
	if room <= 0 {
		return ansi.Truncate(text, width, "…")
	}
	cut := ansi.Truncate(text, room, "")
	if i := strings.LastIndexByte(cut, ' '); i > room/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + more
}

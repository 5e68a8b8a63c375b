package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/styles"
)

// maxLogLines bounds the event log kept in memory; a long session keeps its newest lines.
const maxLogLines = 5000

// logTab shows the event stream and the model-call ledger of the current run.
type logTab struct {
	st            *styles.Styles
	lines         []string
	calls, tokens int
	offset        int // lines scrolled up from the bottom
	width, height int
}

func newLogTab(st *styles.Styles) *logTab { return &logTab{st: st} }

func (l *logTab) addEvents(events []service.RunEvent) {
	for _, e := range events {
		var line string
		ts := e.Time.Format("15:04:05")
		switch e.Kind {
		case service.EventToken:
			continue // the report has its own view; tokens would flood the log
		case service.EventLedger:
			if e.Ledger == nil {
				continue
			}
			l.calls++
			l.tokens += e.Ledger.PromptTokens + e.Ledger.CompletionTokens
			line = fmt.Sprintf("%s ledger  %-14s %-6s %-12s %4d+%-4d tok %5dms  %s", ts, e.Ledger.Node, e.Ledger.Role,
				e.Ledger.Kind, e.Ledger.PromptTokens, e.Ledger.CompletionTokens, e.Ledger.Duration.Milliseconds(), e.Ledger.Outcome)
			if _, host, ok := strings.Cut(e.Ledger.Host, "://"); ok { // which of a role's hosts answered
				line += "  " + host
			}
		case service.EventNodeFinished:
			line = fmt.Sprintf("%s node    %-14s done in %s: %s", ts, e.Node, e.Duration.Round(1e6), e.Summary)
		case service.EventNodeStarted:
			line = fmt.Sprintf("%s node    %-14s started", ts, e.Node)
		case service.EventInterrupt:
			line = fmt.Sprintf("%s waits   %s", ts, e.Intr.Kind)
		default:
			text := e.Summary
			if !strings.HasPrefix(text, e.Node) { // a node's error often names it already
				text = strings.TrimSpace(e.Node + " " + text)
			}
			line = fmt.Sprintf("%s %-7s %s", ts, e.Kind, text)
		}
		l.lines = append(l.lines, safeLine(line)) // summaries and errors quote documents and models
	}
	if len(l.lines) > maxLogLines {
		l.lines = append([]string(nil), l.lines[len(l.lines)-maxLogLines:]...)
	}
}

// addStatus keeps a status-line message whole: the status line may shorten it.
func (l *logTab) addStatus(text string, isErr bool) {
	kind := "status"
	if isErr {
		kind = "error"
	}
	l.lines = append(l.lines, fmt.Sprintf("%s %-7s %s", time.Now().Format("15:04:05"), kind, strings.Join(strings.Fields(safe(text)), " ")))
	if len(l.lines) > maxLogLines {
		l.lines = append([]string(nil), l.lines[len(l.lines)-maxLogLines:]...)
	}
}

func (l *logTab) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "up", "k":
			l.offset = min(l.offset+1, max(len(l.lines)-1, 0))
		case "down", "j":
			l.offset = max(l.offset-1, 0)
		case "pgup":
			l.offset = min(l.offset+l.height, max(len(l.lines)-1, 0))
		case "pgdown":
			l.offset = max(l.offset-l.height, 0)
		case "end", "G":
			l.offset = 0
		}
	}
	return nil
}

func (l *logTab) View() string {
	head := l.st.Title.Render("Events and model calls") + l.st.Subtle.Render(fmt.Sprintf("  %d calls, %d tokens", l.calls, l.tokens))
	if len(l.lines) == 0 {
		return head + "\n\n" + l.st.Subtle.Render("No events yet: start a research run in the Research tab.")
	}
	// Long lines wrap, so a status message cut short in the status line reads whole here.
	rows := max(l.height-1, 1)
	var shown []string
	for i := len(l.lines) - 1 - l.offset; i >= 0 && len(shown) < rows; i-- {
		wrapped := strings.Split(ansi.Wrap(l.lines[i], max(l.width, 20), ""), "\n")
		for j := len(wrapped) - 1; j >= 0 && len(shown) < rows; j-- {
			shown = append(shown, wrapped[j])
		}
	}
	slices.Reverse(shown)
	return head + "\n" + strings.Join(shown, "\n")
}

func (l *logTab) SetSize(w, h int) { l.width, l.height = w, h }
func (l *logTab) Keys() keyMap {
	b := []keyBinding{bind("↑/k", "scroll up", "up", "k"), bind("↓/j", "scroll down", "down", "j"), bind("G", "newest", "end", "G")}
	return keyMap{short: b, full: [][]keyBinding{b}}
}

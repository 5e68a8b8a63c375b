// Package logview is the Log tab: the event stream and the model-call ledger of the current
// run, and every status message whole.
package logview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tui/component"
	"warren/tui/styles"
)

// maxLogLines bounds the event log kept in memory; a long session keeps its newest lines.
const maxLogLines = 5000

// Model shows the event stream and the model-call ledger of the current run.
type Model struct {
	st            *styles.Styles
	lines         []string
	calls, tokens int
	offset        int // lines scrolled up from the bottom
	width, height int
}

// New is an empty log drawn with st.
func New(st *styles.Styles) *Model { return &Model{st: st} }

// SetStyles draws the log with st from now on (the terminal's background decides them).
func (l *Model) SetStyles(st *styles.Styles) { l.st = st }

// Lines returns the lines kept, oldest first.
func (l *Model) Lines() []string { return slices.Clone(l.lines) }

// Offset is how many lines the view is scrolled up from the newest.
func (l *Model) Offset() int { return l.offset }

// AddEvents logs a run's events (tokens are left to the report).
func (l *Model) AddEvents(events []service.RunEvent) {
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
			line = fmt.Sprintf("%s model   %-22s %-6s %-10s %4d+%-4d tok %5dms  %s", ts, service.StepWords(e.Ledger.Node), e.Ledger.Role,
				e.Ledger.Kind, e.Ledger.PromptTokens, e.Ledger.CompletionTokens, e.Ledger.Duration.Milliseconds(), e.Ledger.Outcome)
			if _, host, ok := strings.Cut(e.Ledger.Host, "://"); ok { // which of a role's hosts answered
				line += "  " + host
			}
		case service.EventNodeFinished:
			line = fmt.Sprintf("%s step    %-22s done in %s: %s", ts, service.StepWords(e.Node), e.Duration.Round(1e6), e.Summary)
		case service.EventNodeStarted:
			line = fmt.Sprintf("%s step    %-22s started", ts, service.StepWords(e.Node))
		case service.EventInterrupt:
			line = fmt.Sprintf("%s waits   %s", ts, e.Intr.Kind)
		default:
			// The step in words; a node's error often names the node already ("generate_queries: …").
			text := e.Summary
			if rest, ok := strings.CutPrefix(text, e.Node+":"); ok && e.Node != "" {
				text = service.StepWords(e.Node) + ":" + rest
			} else if e.Node != "" && !strings.HasPrefix(text, e.Node) {
				text = service.StepWords(e.Node) + ": " + text
			}
			line = fmt.Sprintf("%s %-7s %s", ts, e.Kind, text)
		}
		l.lines = append(l.lines, component.SafeLine(line)) // summaries and errors quote documents and models
	}
	if len(l.lines) > maxLogLines {
		l.lines = append([]string(nil), l.lines[len(l.lines)-maxLogLines:]...)
	}
}

// AddStatus keeps a status-line message whole: the status line may shorten it.
func (l *Model) AddStatus(text string, isErr bool) {
	kind := "status"
	if isErr {
		kind = "error"
	}
	l.lines = append(l.lines, fmt.Sprintf("%s %-7s %s", time.Now().Format("15:04:05"), kind, strings.Join(strings.Fields(component.Safe(text)), " ")))
	if len(l.lines) > maxLogLines {
		l.lines = append([]string(nil), l.lines[len(l.lines)-maxLogLines:]...)
	}
}

// Update scrolls the log.
func (l *Model) Update(msg tea.Msg) tea.Cmd {
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

// View draws the newest lines that fit, long ones wrapped.
func (l *Model) View() string {
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

// SetSize sets the area the log is drawn in.
func (l *Model) SetSize(w, h int) { l.width, l.height = w, h }

// Keys lists the scrolling keys.
func (l *Model) Keys() component.KeyMap {
	b := []key.Binding{component.Bind("↑/k", "scroll up", "up", "k"), component.Bind("↓/j", "scroll down", "down", "j"), component.Bind("G", "newest", "end", "G")}
	return component.KeyMap{Short: b, Full: [][]key.Binding{b}}
}

// Field reports that the log has no text field.
func (l *Model) Field() component.FieldState { return component.NoField }

// FocusField does nothing: there is no field.
func (l *Model) FocusField() tea.Cmd { return nil }

// Pending is empty: leaving the log loses nothing.
func (l *Model) Pending() []string { return nil }

// Screen is the log's only view.
func (l *Model) Screen() string { return "log" }

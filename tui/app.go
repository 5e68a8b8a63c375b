package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"warren/doctor"
	"warren/tui/styles"
)

// panel is one tab's content. Panels are plain structs: the root routes messages to them and
// places their views.
type panel interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	Keys() keyMap
	// Capturing reports that a text field has the keyboard, so single-letter global keys
	// must reach the panel.
	Capturing() bool
}

// Messages the root handles.
type (
	statusMsg struct {
		text string
		err  bool
	}
	clearStatusMsg struct{ id int }
	doctorMsg      struct{ report doctor.Report }
	doctorTickMsg  struct{}
)

// setStatus is a command that shows a message in the status line.
func setStatus(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text, err: isErr} }
}

// doctorInterval is how often the header's model status is refreshed.
const doctorInterval = time.Minute

var tabNames = []string{"Research", "Knowledge", "Gas", "Toxicology", "Log"}

// Model is the workbench.
type Model struct {
	be     Backend
	st     *styles.Styles
	keys   globalKeys
	help   help.Model
	panels []panel
	tab    int

	research  *researchTab
	knowledge *knowledgeTab
	gas       *gasTab
	tox       *toxTab
	log       *logTab

	interrupted bool // a first ctrl+c was pressed

	width, height int
	lastFrame     atomic.Pointer[string]
	showHelp      bool
	status        string
	statusErr     bool
	statusID      int
	doctor        *doctor.Report
}

// New builds the workbench over a backend.
func New(be Backend) *Model {
	st := styles.New(true)
	m := &Model{be: be, st: st, keys: newGlobalKeys(), help: help.New(), width: 80, height: 24}
	m.log = newLogTab(st)
	m.research = newResearchTab(be, st, m.log)
	m.knowledge = newKnowledgeTab(be, st)
	m.gas = newGasTab(be, st)
	m.tox = newToxTab(be, st)
	m.panels = []panel{m.research, m.knowledge, m.gas, m.tox, m.log}
	m.layout()
	return m
}

// gasTabIndex is the Gas tab's place among the tabs.
const gasTabIndex = 2

// OpenGas makes the workbench open on the Gas tab showing the named table ("" for the first).
// Call it before the program starts.
func (m *Model) OpenGas(table string) {
	m.tab = gasTabIndex
	m.gas.open(table)
}

// toxTabIndex is the Toxicology tab's place among the tabs.
const toxTabIndex = 3

// OpenTox makes the workbench open on the Toxicology tab with the named profile selected
// ("" for the first). Call it before the program starts.
func (m *Model) OpenTox(inci string) {
	m.tab = toxTabIndex
	m.tox.want = inci
}

// Init asks for the background colour, starts the model-status checks and loads the gas table
// and the toxicology profiles.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.checkDoctor(), m.research.Init(), m.gas.load(m.gas.want, nil), m.tox.load())
}

func (m *Model) checkDoctor() tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return doctorMsg{report: m.be.Doctor(ctx)}
	}
}

func (m *Model) layout() {
	body := max(m.height-4, 3) // header, tabs, status, help line
	for _, p := range m.panels {
		p.SetSize(m.width, body)
	}
	m.help.SetWidth(m.width)
}

// Update routes a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.research.report.renderCmd() // reflow the report for the new width
	case tea.BackgroundColorMsg:
		m.st = styles.New(msg.IsDark())
		m.knowledge.st, m.log.st, m.gas.st, m.tox.st = m.st, m.st, m.st, m.st
		return m, m.research.restyle(m.st)
	case doctorMsg:
		m.doctor = &msg.report
		if !msg.report.OK {
			for _, c := range msg.report.Checks {
				if c.Status == doctor.Fail && c.Fix != "" {
					return m, tea.Batch(setStatus(c.Detail+" — "+c.Fix, true), tea.Tick(doctorInterval, func(time.Time) tea.Msg { return doctorTickMsg{} }))
				}
			}
		}
		return m, tea.Tick(doctorInterval, func(time.Time) tea.Msg { return doctorTickMsg{} })
	case doctorTickMsg:
		return m, m.checkDoctor()
	case statusMsg:
		m.statusID++
		m.status, m.statusErr = msg.text, msg.err
		id := m.statusID
		wait := 6 * time.Second
		if msg.err {
			wait = 20 * time.Second
		}
		return m, tea.Tick(wait, func(time.Time) tea.Msg { return clearStatusMsg{id: id} })
	case clearStatusMsg:
		if msg.id == m.statusID {
			m.status = ""
		}
		return m, nil
	case eventsMsg:
		m.log.addEvents(msg.events)
		cmd := m.research.Update(msg)
		return m, cmd
	case reportRenderedMsg:
		return m, m.research.Update(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		// A paste goes where the keys go: the active tab's text field.
		return m, m.panels[m.tab].Update(msg)
	}
	// Everything else (results of commands) goes to every panel; each takes its own.
	var cmds []tea.Cmd
	for _, p := range m.panels {
		cmds = append(cmds, p.Update(msg))
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.showHelp {
		m.showHelp = false
		return nil
	}
	p := m.panels[m.tab]
	if msg.String() == "ctrl+c" {
		// The first ctrl+c cancels what runs (both stay consistent); a second one quits.
		if !m.interrupted {
			m.interrupted = true
			cancelled := false
			if cmd := m.research.interrupt(); cmd != nil {
				cancelled = true
			}
			if m.knowledge.ingestCancel != nil {
				m.knowledge.ingestCancel()
				cancelled = true
			}
			if m.gas.running() {
				m.gas.cancelQuery()
				cancelled = true
			}
			if m.tox.running() {
				m.tox.cancelPropose()
				cancelled = true
			}
			if cancelled {
				return setStatus("cancelling; ctrl+c again quits at once", false)
			}
		}
		return tea.Quit
	}
	m.interrupted = false
	if k := msg.String(); k == "tab" || k == "shift+tab" {
		// Tab always switches tabs, even from a text field, as the help line says.
		if k == "tab" {
			m.tab = (m.tab + 1) % len(m.panels)
		} else {
			m.tab = (m.tab + len(m.panels) - 1) % len(m.panels)
		}
		return nil
	}
	if p.Capturing() {
		return p.Update(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		if m.research.running() {
			return setStatus("a run is in progress: Esc in the Research tab cancels it (it can be resumed), then q quits; ctrl+c twice quits at once", false)
		}
		if m.knowledge.ingesting() {
			return setStatus("an ingest is running: Esc in the Knowledge tab cancels it (both stores stay consistent), then q quits", false)
		}
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, m.keys.NextTab):
		m.tab = (m.tab + 1) % len(m.panels)
		return nil
	case key.Matches(msg, m.keys.PrevTab):
		m.tab = (m.tab + len(m.panels) - 1) % len(m.panels)
		return nil
	}
	for i, b := range []key.Binding{m.keys.Tab1, m.keys.Tab2, m.keys.Tab3, m.keys.Tab4, m.keys.Tab5} {
		if key.Matches(msg, b) {
			m.tab = i
			return nil
		}
	}
	return p.Update(msg)
}

// View draws the frame: header, tabs, the active panel, status and help.
func (m *Model) View() tea.View {
	frame := m.Render()
	m.lastFrame.Store(&frame)
	v := tea.NewView(frame)
	v.AltScreen = true
	v.WindowTitle = "warren"
	return v
}

// LastFrame returns the last frame drawn; safe to call from any goroutine (tests watch it).
func (m *Model) LastFrame() string {
	if f := m.lastFrame.Load(); f != nil {
		return *f
	}
	return ""
}

// Render is the frame as a string (golden tests compare it).
func (m *Model) Render() string {
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	b.WriteString(m.tabs())
	b.WriteByte('\n')
	body := max(m.height-4, 3)
	var content string
	if m.showHelp {
		content = m.fullHelp()
	} else {
		content = m.panels[m.tab].View()
	}
	b.WriteString(fit(content, m.width, body))
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	b.WriteString(truncate(m.helpLine(), m.width))
	return b.String()
}

// helpLine lists the current keys; a key that cannot be used now is shown with the reason.
// While a text field has the keyboard, letters go into it: only tab and ctrl+c are global.
func (m *Model) helpLine() string {
	keys := m.panels[m.tab].Keys().short
	global := []key.Binding{m.keys.NextTab, m.keys.Help, m.keys.Quit}
	if m.panels[m.tab].Capturing() {
		global = []key.Binding{m.keys.NextTab, bind("ctrl+c", "quit")}
	}
	var parts []string
	for _, k := range append(keys, global...) {
		h := k.Help()
		if h.Key == "" {
			continue
		}
		if k.Enabled() {
			parts = append(parts, m.st.Key.Render(h.Key)+" "+h.Desc)
		} else {
			parts = append(parts, m.st.Subtle.Render(h.Key+" "+h.Desc))
		}
	}
	return strings.Join(parts, " • ")
}

func (m *Model) header() string {
	models := "models: checking…"
	if m.doctor != nil {
		fails := 0
		for _, c := range m.doctor.Checks {
			if c.Status == doctor.Fail {
				fails++
			}
		}
		if fails == 0 {
			models = "models: ready"
		} else {
			models = fmt.Sprintf("models: %d problem(s)", fails)
		}
	}
	left := m.st.Header.Render("warren") + " " + m.st.Subtle.Render(m.be.Workspace())
	right := models + " · " + m.research.stateLabel()
	gap := max(m.width-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return truncate(left+strings.Repeat(" ", gap)+right, m.width)
}

func (m *Model) tabs() string {
	parts := make([]string, len(tabNames))
	for i, name := range tabNames {
		label := fmt.Sprintf("%d %s", i+1, name)
		if i == m.tab {
			parts[i] = m.st.ActiveTab.Render(label)
		} else {
			parts[i] = m.st.Tab.Render(label)
		}
	}
	return truncate(strings.Join(parts, ""), m.width)
}

func (m *Model) statusLine() string {
	if m.status == "" {
		return ""
	}
	if m.statusErr {
		return truncate(m.st.StatusError.Render("! "+m.status), m.width)
	}
	return truncate(m.st.Status.Render(m.status), m.width)
}

func (m *Model) fullHelp() string {
	h := m.help
	h.ShowAll = true
	groups := append(m.panels[m.tab].Keys().full, []key.Binding{m.keys.NextTab, m.keys.PrevTab, m.keys.Tab1, m.keys.Help, m.keys.Quit})
	// Groups go side by side while they fit the width, then on the next rows.
	var rows []string
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && lipgloss.Width(unbounded(h).FullHelpView(groups[start:end+1])) <= m.width {
			end++
		}
		rows = append(rows, h.FullHelpView(groups[start:end]))
		start = end
	}
	return m.st.Title.Render("Keys — "+tabNames[m.tab]) + "\n\n" + strings.Join(rows, "\n\n") + "\n\n" + m.st.Subtle.Render("any key closes this help")
}

// unbounded is the help without a width limit, to measure what it needs.
func unbounded(h help.Model) help.Model {
	h.SetWidth(0)
	return h
}

package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"warren/doctor"
	"warren/internal/termsafe"
	adminpanel "warren/tui/admin"
	"warren/tui/component"
	gaspanel "warren/tui/gas"
	"warren/tui/knowledge"
	"warren/tui/logview"
	researchpanel "warren/tui/research"
	"warren/tui/styles"
	toxpanel "warren/tui/tox"
)

// panel is one tab's content (see component.Panel): the root routes messages to it and places
// its view.
type panel = component.Panel

// Messages the root handles.
type (
	clearStatusMsg struct{ tab, id int }
	doctorMsg      struct{ report doctor.Report }
	doctorTickMsg  struct{}
)

// doctorInterval is how often the header's model status is refreshed.
const doctorInterval = time.Minute

var tabNames = []string{"Research", "Knowledge", "Gas", "Toxicology", "Log"}

// Model is the workbench.
type Model struct {
	desks  Desks
	st     *styles.Styles
	keys   globalKeys
	help   help.Model
	panels []panel
	tab    int

	research  *researchpanel.Model
	knowledge *knowledge.Model
	gas       *gaspanel.Model
	tox       *toxpanel.Model
	log       *logview.Model

	adminView *adminpanel.Model // the admins' view over the tabs (ctrl+g), while adminOpen
	adminOpen bool

	quitting *quitQuestion // the question asked before quitting, while it is open

	width, height int
	lastFrame     atomic.Pointer[string]
	showHelp      bool
	statuses      map[int]statusEntry // by tab, and anyTab
	statusID      int
	doctor        *doctor.Report
	changes       *changeQueue // other analysts' changes (see watchChanges)
	stopChanges   context.CancelFunc

	checks sync.WaitGroup         // doctor checks in flight
	typed  atomic.Pointer[Drafts] // the drafts as of the last key, for PublishedDrafts

	served  bool      // one connection of warren serve (see Served)
	since   time.Time // when the analyst was last connected, when served
	analyst string    // who it acts for, when served
	admin   bool
}

// New builds the workbench over warren's desks.
func New(d Desks) *Model {
	st := styles.New(true)
	m := &Model{desks: d, st: st, keys: newGlobalKeys(), help: help.New(), width: 80, height: 24, statuses: map[int]statusEntry{}}
	m.log = logview.New(st)
	m.research = researchpanel.New(researchDesks{d.Research, d.Jobs, d.Knowledge, d.Session}, st)
	m.knowledge = knowledge.New(d.Knowledge, st)
	m.gas = gaspanel.New(gasDesks{d.Gas, d.Jobs}, st)
	m.tox = toxpanel.New(d.Tox, st)
	m.panels = []panel{m.research, m.knowledge, m.gas, m.tox, m.log}
	m.adminView = adminpanel.New(adminpanel.Desks{Access: d.Access, Trail: d.Audit, Collections: d.Knowledge}, st)
	m.layout()
	return m
}

// gasTabIndex is the Gas tab's place among the tabs.
const gasTabIndex = 2

// OpenGas makes the workbench open on the Gas tab showing the named table ("" for the first).
// Call it before the program starts.
func (m *Model) OpenGas(table string) {
	m.tab = gasTabIndex
	m.gas.Open(table)
}

// toxTabIndex is the Toxicology tab's place among the tabs.
const toxTabIndex = 3

// OpenTox makes the workbench open on the Toxicology tab with the named profile selected
// ("" for the first). Call it before the program starts.
func (m *Model) OpenTox(inci string) {
	m.tab = toxTabIndex
	m.tox.Open(inci)
}

// Init asks for the background colour, starts the model-status checks, loads the gas table
// and the toxicology profiles, and follows other analysts' changes to them.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.checkDoctor(), m.gas.Load(), m.tox.Load(), m.watchChanges()}
	if m.served {
		cmds = append(cmds, m.research.LandInLiveRun(m.since))
	}
	return tea.Batch(cmds...)
}

func (m *Model) checkDoctor() tea.Cmd {
	return func() tea.Msg {
		// A check opens the workspace on its own: Close waits for one in flight, so that
		// nothing touches the workspace once the workbench is closed.
		m.checks.Add(1)
		defer m.checks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return doctorMsg{report: m.desks.Session.Doctor(ctx)}
	}
}

func (m *Model) layout() {
	body := max(m.height-4, 3) // header, tabs, status, help line
	for _, p := range m.panels {
		p.SetSize(m.width, body)
	}
	m.adminView.SetSize(m.width, body)
	m.help.SetWidth(m.width)
}

// Update routes a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.pruneStatus()
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		if m.served {
			d := m.Drafts()
			m.typed.Store(&d)
		}
	}
	if w := m.research.TakeWelcome(); w != "" {
		cmd = tea.Batch(cmd, m.setStatusNow(researchTabIndex, w, false))
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m.research.Reflow() // reflow the report for the new width
	case tea.BackgroundColorMsg:
		m.st = styles.New(msg.IsDark())
		m.gas.SetStyles(m.st)
		m.tox.SetStyles(m.st)
		m.knowledge.SetStyles(m.st)
		m.log.SetStyles(m.st)
		m.adminView.SetStyles(m.st)
		return m.research.SetStyles(m.st)
	case doctorMsg:
		m.doctor = &msg.report
		next := tea.Tick(doctorInterval, func(time.Time) tea.Msg { return doctorTickMsg{} })
		if !msg.report.OK {
			for _, c := range msg.report.Checks {
				if c.Status == doctor.Fail && c.Fix != "" {
					return tea.Batch(m.setStatusNow(anyTab, c.Detail+" — "+c.Fix, true), next)
				}
			}
		} else if e, ok := m.statuses[anyTab]; ok && e.err {
			delete(m.statuses, anyTab) // the problem it named is gone
		}
		return next
	case doctorTickMsg:
		return m.checkDoctor()
	case statusMsg:
		return m.showStatus(msg)
	case clearStatusMsg:
		if e, ok := m.statuses[msg.tab]; ok && e.id == msg.id {
			delete(m.statuses, msg.tab)
		}
		return nil
	case eventsMsg:
		m.log.AddEvents(msg.Items)
		if m.gas.Owns(msg.Queue) {
			return m.toPanel(gasTabIndex, msg) // a gas fill's events
		}
		return m.toPanel(researchTabIndex, msg)
	case changesMsg:
		return m.changed(msg)
	case NoticeMsg:
		return m.setStatusNow(anyTab, msg.Text, msg.Err)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		return m.click(msg)
	case tea.MouseWheelMsg:
		return m.wheel(msg)
	case tea.PasteMsg:
		// A paste goes where the keys go: the active tab's text field.
		if m.quitting != nil || m.active().Field() == noField {
			return nil
		}
		return tea.Batch(m.active().FocusField(), m.toActive(msg))
	}
	// Everything else (results of commands) goes to every panel; each takes its own.
	var cmds []tea.Cmd
	for i := range m.panels {
		cmds = append(cmds, m.toPanel(i, msg))
	}
	cmds = append(cmds, tagStatus(m.adminView.Update(msg), adminTab))
	return tea.Batch(cmds...)
}

// researchTabIndex is the Research tab's place among the tabs.
const researchTabIndex = 0

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.quitting != nil {
		return m.quitKey(msg)
	}
	if m.showHelp {
		m.showHelp = false
		return nil
	}
	if msg.String() == "ctrl+c" {
		// Inside the view of a run in flight that is theirs to cancel, ctrl+c cancels it, as
		// ctrl+x does; everywhere else it quits, asking first when something is at stake.
		if m.tab == researchTabIndex && !m.adminOpen && m.research.Cancellable() {
			return m.toPanel(researchTabIndex, tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
		}
		return m.requestQuit()
	}
	return m.route(msg)
}

// View draws the frame: header, tabs, the active panel, status and help.
func (m *Model) View() tea.View {
	frame := m.Render()
	m.lastFrame.Store(&frame)
	v := tea.NewView(frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
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
	switch {
	case m.quitting != nil:
		content = m.quitView()
	case m.showHelp:
		content = m.fullHelp()
	default:
		content = m.active().View()
	}
	b.WriteString(fit(content, m.width, body))
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	b.WriteString(truncate(m.helpLine(), m.width))
	return termsafe.Styled(b.String()) // see safe
}

// helpLine lists the most useful keys of the current view that fit the width, then where to
// find the rest; a key that cannot be used now is shown with the reason. While a text field has
// the keyboard, letters go into it: only tab, f1, ctrl+g and ctrl+c are global.
func (m *Model) helpLine() string {
	if m.quitting != nil {
		return m.st.Key.Render("y") + " quit • " + m.st.Key.Render("n/esc") + " stay"
	}
	if m.showHelp {
		return m.st.Subtle.Render("any key closes this help")
	}
	p := m.active()
	keys := p.Keys().Short
	global := []key.Binding{m.keys.NextTab, bind("1-5", "tabs"), bind("q", "quit")}
	more := bind("?", "more")
	switch p.Field() {
	case fieldActive:
		global = []key.Binding{bind("ctrl+c", "quit"), m.keys.NextTab}
		more = bind("f1", "more")
	case fieldIdle:
		keys = append([]key.Binding{bind("type", "to write")}, keys...)
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
	h := more.Help()
	return fitHelp(parts, m.st.Key.Render(h.Key)+" "+h.Desc, m.width)
}

// fitHelp joins as many parts as fit width, in order, and ends with more.
func fitHelp(parts []string, more string, width int) string {
	const sep = " • "
	line := ""
	for _, p := range parts {
		next := p
		if line != "" {
			next = line + sep + p
		}
		if lipgloss.Width(next+sep+more) > width {
			break
		}
		line = next
	}
	if line == "" {
		return truncate(more, width)
	}
	return line + sep + more
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
	left := m.st.Header.Render("warren") + " " + m.st.Subtle.Render(safeLine(m.desks.Session.Workspace()))
	if m.served {
		who := m.analyst
		if m.admin {
			who += " (admin)"
		}
		left = m.st.Header.Render("warren") + " " + m.st.Header.Render(who) + " " + m.st.Subtle.Render(safeLine(m.desks.Session.Workspace()))
	}
	right := models + " · " + m.jobsLabel()
	gap := max(m.width-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return truncate(left+strings.Repeat(" ", gap)+right, m.width)
}

func (m *Model) tabs() string {
	parts := make([]string, len(tabNames))
	for i, name := range tabNames {
		parts[i] = m.tabLabel(i, name)
	}
	bar := strings.Join(parts, "")
	if m.adminOpen {
		bar += m.st.ActiveTab.Render("Admin")
	}
	if m.quitting == nil && !m.showHelp && m.active().Field() == fieldActive {
		// While a field types, the digits type too: the bar says how its numbers work (shorter
		// beside the Admin label, to fit 80 columns).
		hint := "alt+1-5 switch tabs"
		if m.adminOpen {
			hint = "alt+1-5 tabs"
		}
		bar += "  " + m.st.Subtle.Render(hint)
	}
	return truncate(bar, m.width)
}

func (m *Model) tabLabel(i int, name string) string {
	label := fmt.Sprintf("%d %s", i+1, name)
	if i == m.tab && !m.adminOpen {
		return m.st.ActiveTab.Render(label)
	}
	return m.st.Tab.Render(label)
}

func (m *Model) fullHelp() string {
	h := m.help
	h.ShowAll = true
	global := []key.Binding{m.keys.NextTab, m.keys.PrevTab, m.keys.Tab1, m.keys.Help, m.keys.Quit, m.keys.Cancel,
		bind("mouse", "wheel scrolls, a click on a tab opens it")}
	if m.mayAdmin() { // the others are never shown the admin view
		global = append(global, m.keys.Admin)
	}
	groups := append(m.active().Keys().Full, global)
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
	title := tabNames[m.tab]
	if m.adminOpen {
		title = "Admin"
	}
	return m.st.Title.Render("Keys — "+title) + "\n\n" + strings.Join(rows, "\n\n") + "\n\n" + m.st.Subtle.Render("any key closes this help")
}

// unbounded is the help without a width limit, to measure what it needs.
func unbounded(h help.Model) help.Model {
	h.SetWidth(0)
	return h
}

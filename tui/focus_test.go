package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// run feeds keys to the workbench as the program would and reports whether it quit.
func run(t *testing.T, m *Model, names ...string) (quit bool) {
	t.Helper()
	for _, k := range keys(names...) {
		msgs := []tea.Msg{k}
		for steps := 0; len(msgs) > 0; steps++ {
			if steps > 100 {
				t.Fatal("the messages never settle")
			}
			msg := msgs[0]
			msgs = msgs[1:]
			if _, ok := msg.(tea.QuitMsg); ok {
				return true
			}
			_, cmd := m.Update(msg)
			if _, ok := msg.(statusMsg); ok {
				continue // its command is the timer that clears it
			}
			msgs = append(msgs, drain(cmd)...)
		}
	}
	return false
}

func TestTypingNeverDropsALetterNorQuits(t *testing.T) {
	m := sized(80, 24)
	// The sequence that once lost "li" and then quit mid-sentence; the tabs are alt+digits
	// on this typing view, and a question may start with q.
	if run(t, m, "esc", "alt+5", "alt+1", "qliquid") {
		t.Fatal("warren quit")
	}
	if got := m.research.Snapshot().Question; got != "qliquid" {
		t.Fatalf("the field holds %q, want qliquid", got)
	}
	if m.research.Field() != fieldActive {
		t.Error("the field that took the letters does not show it has the keyboard")
	}
	if run(t, m, " test q") {
		t.Fatal("q in the middle of a sentence quit warren")
	}
	if got := m.research.Snapshot().Question; got != "qliquid test q" {
		t.Fatalf("the field holds %q", got)
	}
	if !strings.Contains(m.helpLine(), "esc") || strings.Contains(m.helpLine(), "type") {
		t.Errorf("the help line does not match a focused field: %q", m.helpLine())
	}
	// Esc leaves the field; the help line and the field say so, and offer no q.
	run(t, m, "esc")
	help := ansi.Strip(m.helpLine())
	if !strings.Contains(help, "type to write") || strings.Contains(help, "q quit") || !strings.Contains(help, "ctrl+c quit") ||
		!strings.Contains(ansi.Strip(m.Render()), "not typing") {
		t.Errorf("after esc: field %d, help %q", m.research.Field(), help)
	}
	// Every printable key types again, q and the digits too; nothing quits.
	if run(t, m, "q2") {
		t.Fatal("q after esc on the question view quit warren")
	}
	if got := m.research.Snapshot().Question; got != "qliquid test qq2" || m.tab != researchTabIndex {
		t.Fatalf("after esc the keys did not type: %q, tab %d", got, m.tab)
	}
	// The tab bar says how its numbers work here, and they do.
	if !strings.Contains(ansi.Strip(m.tabs()), "alt+1-5 switch") {
		t.Errorf("the tab bar does not say how to switch while typing: %q", ansi.Strip(m.tabs()))
	}
	run(t, m, "alt+2")
	if m.tab != 1 || strings.Contains(ansi.Strip(m.tabs()), "alt+1-5 switch") {
		t.Errorf("alt+2: tab %d, bar %q", m.tab, ansi.Strip(m.tabs()))
	}
}

func TestQuitAsksWhenTextWouldBeLost(t *testing.T) {
	m := sized(80, 24)
	if !run(t, m, "alt+5", "q") {
		t.Fatal("with nothing at stake q should quit at once (off the question view)")
	}
	m = sized(80, 24)
	run(t, m, "half a question", "alt+5")
	if run(t, m, "q") {
		t.Fatal("q quit with unsent text")
	}
	if m.quitting == nil || !strings.Contains(ansi.Strip(m.Render()), "the question field holds text not yet sent") {
		t.Fatalf("no question before quitting:\n%s", m.Render())
	}
	if run(t, m, "n") || m.quitting != nil {
		t.Fatal("n should close the question and stay")
	}
	if m.research.Snapshot().Question != "half a question" {
		t.Fatal("staying lost the text")
	}
	// On the question view ctrl+c is how to quit: it asks too.
	run(t, m, "alt+1")
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if m.quitting == nil {
		t.Fatal("ctrl+c on the question view did not ask before losing the text")
	}
	run(t, m, "n", "alt+5", "q")
	if !run(t, m, "y") {
		t.Fatal("y should quit")
	}
}

func TestCtrlCCancelsARunInItsRunViewAndAsksElsewhere(t *testing.T) {
	m := New(desksOf(blocking{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.RestoreDrafts(Drafts{Question: "How are cylinders purged?"})
	cmd := m.research.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !m.research.Snapshot().Running {
		t.Fatal("the run should be running")
	}
	// Elsewhere, ctrl+c asks: a run is in flight.
	run(t, m, "alt+2")
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if m.quitting == nil || !strings.Contains(ansi.Strip(m.Render()), "is in flight") {
		t.Fatalf("ctrl+c outside the run view should ask:\n%s", m.Render())
	}
	run(t, m, "esc", "1")
	// In the run view it cancels the run.
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if m.quitting != nil {
		t.Fatal("ctrl+c in the run view asked to quit instead of cancelling")
	}
	for _, msg := range drain(cmd) { // the run ends, cancelled
		m.Update(msg)
	}
	if s := m.research.Snapshot(); s.Running || s.Status != "cancelled" {
		t.Fatalf("the run was not cancelled: status %q", s.Status)
	}
}

func TestStatusMessagesBelongToTheirTabAndScreen(t *testing.T) {
	m := sized(80, 24)
	run(t, m, "alt+2")
	m.Update(statusMsg{Text: "ingested 3 files", Tab: 1})
	if !strings.Contains(m.statusLine(), "ingested 3 files") {
		t.Fatal("the Knowledge tab's message is not shown there")
	}
	run(t, m, "1")
	if strings.Contains(m.statusLine(), "ingested") {
		t.Fatal("the Knowledge tab's message shows on the Research tab")
	}
	run(t, m, "alt+2", "/")
	if strings.Contains(m.statusLine(), "ingested") {
		t.Fatal("the message outlived the screen it belonged to")
	}
	long := strings.Repeat("a long message about the gas table ", 6)
	m.Update(statusMsg{Text: long, Tab: 1})
	line := m.statusLine()
	if !strings.Contains(line, "(5 Log: all of it)") || strings.Contains(line, "tab…") {
		t.Fatalf("a long message is not cut at a word with a pointer to the Log: %q", line)
	}
	if !strings.Contains(m.log.View(), "gas table a long") {
		t.Error("the Log tab does not keep the message whole")
	}
}

func TestEscKeepsTheUnsentInstructionAndSearch(t *testing.T) {
	m := New(desksOf(fixture{}, newToxBackend(t)))
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	settle(t, m, drain(m.tox.Load())...)
	m.tab = toxTabIndex
	if m.tox.Snapshot().Profile == nil {
		t.Fatal("no profile loaded")
	}
	run(t, m, "i", "set NOAEL 1 to 120", "esc")
	if m.tox.Field() != noField {
		t.Fatal("esc did not leave the editor")
	}
	run(t, m, "i")
	if got := m.tox.Snapshot().Text; got != "set NOAEL 1 to 120" {
		t.Fatalf("the instruction came back as %q", got)
	}
	if len(m.tox.Pending()) == 0 {
		t.Error("an unsent instruction is not named before quitting")
	}

	k := sized(80, 24)
	run(t, k, "alt+2", "/", "silane purge", "esc", "/")
	if got := k.knowledge.Typed(); got != "silane purge" {
		t.Fatalf("the search field came back as %q", got)
	}
}

func TestMouseClickOpensTabAndWheelScrolls(t *testing.T) {
	m := sized(80, 24)
	m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 28, Y: tabsRow})
	if m.tab != gasTabIndex {
		t.Fatalf("a click on the Gas tab opened tab %d", m.tab)
	}
	m.tab = 4
	for i := 0; i < 50; i++ {
		m.log.AddStatus("line", false)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 5, Y: 10})
	if m.log.Offset() != 1 {
		t.Fatalf("the wheel did not scroll the Log tab: offset %d", m.log.Offset())
	}
}

func TestPasteGoesIntoTheQuestionWhole(t *testing.T) {
	m := sized(80, 24)
	run(t, m, "esc") // even from a field left with esc
	m.Update(tea.PasteMsg{Content: "Which purge sequence applies to silane?"})
	if got := m.research.Snapshot().Question; got != "Which purge sequence applies to silane?" {
		t.Fatalf("the pasted question is %q", got)
	}
	if m.research.Field() != fieldActive {
		t.Error("a paste into a field left with esc should give it the keyboard")
	}
}

func TestArrivingOnTheToxicologyTabRefreshesWaitingProposals(t *testing.T) {
	m := sized(80, 24)
	if cmd := m.selectTab(toxTabIndex); cmd == nil {
		t.Fatal("arriving on the Toxicology tab asks for no refresh of its waiting proposals")
	}
	if cmd := m.selectTab(toxTabIndex); cmd != nil {
		t.Error("staying on the tab refreshes again")
	}
}

// Commands deliver their messages in whatever order their goroutines finish: a message decided
// before the one the tab shows (Esc's "cancelling the run…" arriving after "run canceled")
// goes to the Log only.
func TestAnEarlierDecidedStatusDoesNotHideALaterOne(t *testing.T) {
	m := sized(80, 24)
	run(t, m, "esc")
	cancelling := newStatus("cancelling the run… it stays resumable (r)", false)
	canceled := newStatus("run canceled; its checkpoint is kept", false)
	cancelling.Tab, canceled.Tab = researchTabIndex, researchTabIndex
	m.Update(canceled)
	m.Update(cancelling)
	if line := m.statusLine(); !strings.Contains(line, "run canceled") {
		t.Fatalf("the later message is hidden by the earlier one: %q", line)
	}
	if !strings.Contains(m.log.View(), "cancelling the run") {
		t.Error("the earlier message is not in the Log")
	}
}

package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"warren/doctor"
	"warren/service"
	researchpanel "warren/tui/research"
)

// A table imported by another process (the CLI) shows when the Gas tab is opened, without r:
// such an import reaches no change feed.
func TestGasTabShowsATableImportedElsewhereOnArrival(t *testing.T) {
	be := newGasBackend(t, nil)
	m := New(be.desks())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	settle(t, m, drain(m.gas.Load())...)
	if m.gas.Snapshot().Table != nil {
		t.Fatal("the workspace has no table yet")
	}
	if err := be.store.SaveTable(context.Background(), gasFixture()); err != nil { // as `warren gas import` does
		t.Fatal(err)
	}
	press(t, m, "alt+3")
	if tab := m.gas.Snapshot().Table; tab == nil || tab.Name != "fab-k2" {
		t.Fatalf("the Gas tab does not show the imported table:\n%s", frame(m))
	}
	if f := frame(m); !strings.Contains(f, "Gas table fab-k2") {
		t.Errorf("the frame:\n%s", f)
	}
}

// The quit question names an answer as unsent only while it is: once sent, the text left in
// the field is not claimed.
func TestQuitQuestionClaimsOnlyAnUnsentAnswer(t *testing.T) {
	m := sized(80, 24)
	questions, _ := service.NewRunInterrupt(service.InterruptQuestions, service.ResearchQuestions{Iteration: 1,
		Questions: []string{"Silane only?"}})
	m.research.SetUp(researchpanel.Fixture{Run: "r1", Pending: questions, View: "refine"})
	press(t, m, "only silane")
	if p := strings.Join(m.research.Pending(), "; "); !strings.Contains(p, "answer is typed but not sent") {
		t.Fatalf("a typed answer is not named: %q", p)
	}
	press(t, m, "ctrl+s")
	if p := strings.Join(m.research.Pending(), "; "); strings.Contains(p, "not sent") {
		t.Errorf("a sent answer is claimed unsent: %q", p)
	}
}

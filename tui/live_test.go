package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/config"
	"warren/gas"
	"warren/internal/schema"
	"warren/kb"
	"warren/service"
	"warren/tox"
)

// teamService is one workspace served to several analysts, as warren serve does: the real
// service over a fresh workspace holding the gas fixture. No model is reachable.
func teamService(t *testing.T) *service.Service {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	s, err := service.Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin"}}, service.Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.GasStore().SaveTable(context.Background(), gasFixture()); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitScreen waits until the workbench has drawn text; the deadline only ends a test that
// would otherwise hang.
func waitScreen(t *testing.T, m *Model, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(ansi.Strip(m.LastFrame()), text) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q; last frame:\n%s", text, ansi.Strip(m.LastFrame()))
}

// Two analysts' workbenches on one service: a decision in one appears in the other's Gas tab
// without a key press there; an edit typed on the cell before the other's decision is refused
// with who changed it, keeps its text, and goes through when sent again.
func TestTwoWorkbenchesSeeEachOthersGasDecisions(t *testing.T) {
	s := teamService(t)
	alice, bob := New(DesksOf(s.As("alice", false))), New(DesksOf(s.As("bob", false)))
	alice.OpenGas("fab-k2")
	bob.OpenGas("fab-k2")
	ta := teatest.NewTestModel(t, alice, teatest.WithInitialTermSize(160, 40))
	tb := teatest.NewTestModel(t, bob, teatest.WithInitialTermSize(160, 40))
	t.Cleanup(func() {
		ta.Quit()
		tb.Quit()
		alice.Close()
		bob.Close()
	})
	waitScreen(t, alice, "fab-k2")
	waitScreen(t, bob, "fab-k2")

	// Both go to the first cell to review: Silane's autoignition temperature, 21 °C.
	ta.Type("n")
	tb.Type("n")
	waitScreen(t, alice, "general pass: confidence below 0.7")
	waitScreen(t, bob, "general pass: confidence below 0.7")
	// Bob starts typing a value of his own.
	tb.Type("e")
	waitScreen(t, bob, "Edit Autoignition")
	tb.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tb.Type("25")
	waitScreen(t, bob, "25")

	// Alice approves the value; bob's desk says so by itself.
	ta.Type("a")
	waitScreen(t, alice, "approved Autoignition")
	waitScreen(t, bob, "alice approved row 1 · Autoignition")

	// Bob's edit was typed on 21 °C as filled: refused, with who and what, and his text kept.
	tb.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, bob, "alice approved 21 °C at ")
	waitScreen(t, bob, "your view is refreshed — decide again")
	if c := storedCell(t, s, 1, "autoignition_c"); c.Status != gas.StatusApproved || c.By != "alice" || c.Value != "21" {
		t.Fatalf("after the refusal the cell is %+v", c)
	}
	if !strings.Contains(ansi.Strip(bob.LastFrame()), ": 25") {
		t.Errorf("bob's typed value is gone:\n%s", ansi.Strip(bob.LastFrame()))
	}

	// Sent again, it is decided on the cell as it is now; alice's desk hears of it.
	tb.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, bob, "saved Autoignition")
	waitScreen(t, alice, "bob edited row 1 · Autoignition")
	if c := storedCell(t, s, 1, "autoignition_c"); c.Status != gas.StatusEdited || c.By != "bob" || c.Value != "25" {
		t.Errorf("bob's edit is stored as %+v", c)
	}
	waitScreen(t, alice, "decided by bob")
	waitScreen(t, bob, "decided by bob") // his own desk names him at once, not "—"
}

func storedCell(t *testing.T, s *service.Service, row int, field string) gas.Cell {
	t.Helper()
	tab, err := s.Gas().Table(context.Background(), "fab-k2")
	if err != nil {
		t.Fatal(err)
	}
	return tab.Row(row).Cells[field]
}

// The Toxicology tab follows versions other analysts save: the history shown is reloaded with
// who saved what, and a rollback asked on the older history is refused, saving nothing.
func TestToxTabFollowsOthersSavesAndRefusesAStaleRollback(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 120, 40)
	proposeText(t, m, toxPatch)
	press(t, m, "a", "h") // version 2, by ana; the history shows it
	if len(m.tox.Snapshot().History) != 2 {
		t.Fatalf("history %+v", m.tox.Snapshot().History)
	}
	ctx := context.Background()
	bob := &tox.Store{DB: be.store.DB, Analyst: "bob"}
	saveAs := func(base int) int {
		t.Helper()
		pv, err := bob.Version(ctx, "EUGENOL", 1)
		if err != nil {
			t.Fatal(err)
		}
		v, err := bob.Save(ctx, "EUGENOL", base, pv.Data, nil, "bob's save", "NLI_EDIT", "")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := saveAs(2)
	news := service.Change{Kind: service.ChangeToxVersion, INCI: "EUGENOL", Version: v, By: "bob", Action: "saved"}
	if status := settle(t, m, changesMsg{Items: []service.Change{news}}); !hasStatus(status, "bob saved EUGENOL: version 3") {
		t.Errorf("the news: %q", status)
	}
	if len(m.tox.Snapshot().History) != 3 || m.tox.Snapshot().History[0].By != "bob" || !strings.Contains(frame(m), "bob") {
		t.Fatalf("the history after bob's save: %+v\n%s", m.tox.Snapshot().History, frame(m))
	}

	// Ana asks to roll back to version 1 on the history she sees; bob saves version 4 first.
	press(t, m, "k", "k", "k", "j", "j") // version 1
	press(t, m, "R")
	if m.tox.Snapshot().View != "confirm" {
		t.Fatalf("no confirmation:\n%s", frame(m))
	}
	saveAs(3)
	status := press(t, m, "y")
	if !hasStatus(status, "not rolled back: bob saved version 4 of EUGENOL at ") {
		t.Errorf("the refusal: %q", status)
	}
	if latest, _ := be.store.Latest(ctx, "EUGENOL"); latest.Version != 4 || latest.By != "bob" {
		t.Errorf("the refused rollback saved v%d by %s", latest.Version, latest.By)
	}
	if m.tox.Snapshot().View != "history" || len(m.tox.Snapshot().History) != 4 {
		t.Errorf("after the refusal the history is shown again, refreshed: view %q, %d versions", m.tox.Snapshot().View, len(m.tox.Snapshot().History))
	}
}

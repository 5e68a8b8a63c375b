package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/service"
	"warren/tox"
)

func hasStatus(status []string, part string) bool {
	for _, s := range status {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

func noael0(t *testing.T, data []byte) float64 {
	t.Helper()
	p, err := tox.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return p.NOAEL[0].Value
}

func TestToxApproveSavesAVersionWithTheComment(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 100, 30)
	proposeText(t, m, toxPatch)
	if m.tox.Snapshot().View != "proposal" || m.tox.Snapshot().Proposal == nil {
		t.Fatalf("no proposal shown:\n%s", screen(m))
	}
	press(t, m, "c", "raised after the re-evaluation", "enter")
	status := press(t, m, "a")
	if !hasStatus(status, "EUGENOL saved as version 2") {
		t.Errorf("status %q", status)
	}
	latest, err := be.store.Latest(context.Background(), "EUGENOL")
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version != 2 || noael0(t, latest.Data) != 200 || latest.Summary != "raised after the re-evaluation" || latest.EditType != "FORM_EDIT_STRUCTURED" {
		t.Errorf("saved %d %q %q value %v", latest.Version, latest.Summary, latest.EditType, noael0(t, latest.Data))
	}
	if m.tox.Snapshot().Proposal != nil || m.tox.Snapshot().View != "browse" || m.tox.Snapshot().Profile.Version != 2 {
		t.Errorf("after the approval the desk shows the new version: view %q profile v%d", m.tox.Snapshot().View, m.tox.Snapshot().Profile.Version)
	}
}

func TestToxStaleApproveIsRefusedAndTheProposalKept(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 100, 30)
	proposeText(t, m, toxPatch)
	mine := m.tox.Snapshot().Proposal

	// Someone else saves a version of the same profile from the same base.
	ctx := context.Background()
	other, err := be.Propose(ctx, "EUGENOL", `[{"op":"replace","path":"/noael/1/value","value":120}]`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := be.Approve(ctx, other, "the other analyst"); err != nil {
		t.Fatal(err)
	}

	status := press(t, m, "a")
	if !hasStatus(status, "not saved: ") || !hasStatus(status, "changed since version 1 (now at version 2, saved by ") {
		t.Errorf("status %q", status)
	}
	if m.tox.Snapshot().Proposal != mine || m.tox.Snapshot().View != "proposal" {
		t.Errorf("the refused proposal stays on screen")
	}
	if !strings.Contains(string(screen(m)), "replace /noael/0/value: 100 → 200") {
		t.Errorf("the proposal's operations are still shown:\n%s", screen(m))
	}
	latest, _ := be.store.Latest(ctx, "EUGENOL")
	if latest.Version != 2 || latest.Summary != "the other analyst" {
		t.Errorf("the other version is the latest: v%d %q", latest.Version, latest.Summary)
	}

	// Nothing is lost: e re-proposes the same operations against the new latest version.
	press(t, m, "e")
	settle(t, m, ctrlS())
	if m.tox.Snapshot().Proposal == nil || m.tox.Snapshot().Proposal.BaseVersion != 2 {
		t.Fatalf("re-proposed from version 2: %+v", m.tox.Snapshot().Proposal)
	}
	if status := press(t, m, "a"); !hasStatus(status, "saved as version 3") {
		t.Errorf("status %q", status)
	}
}

func TestToxRejectSavesNothing(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 100, 30)
	proposeText(t, m, toxPatch)
	status := press(t, m, "r")
	if !hasStatus(status, "proposal for EUGENOL rejected: nothing was saved") {
		t.Errorf("status %q", status)
	}
	if m.tox.Snapshot().Proposal != nil || m.tox.Snapshot().View != "browse" {
		t.Error("the proposal is discarded")
	}
	if len(be.rejected) != 1 || be.rejected[0] != "EUGENOL" {
		t.Errorf("the proposal's run was not closed as rejected: %v", be.rejected)
	}
	if latest, _ := be.store.Latest(context.Background(), "EUGENOL"); latest.Version != 1 {
		t.Errorf("version %d saved", latest.Version)
	}
}

func TestToxRollbackAsksAndCreatesANewVersion(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 100, 30)
	proposeText(t, m, toxPatch)
	press(t, m, "a", "h")
	if len(m.tox.Snapshot().History) != 2 {
		t.Fatalf("history %+v", m.tox.Snapshot().History)
	}
	if status := press(t, m, "R"); !hasStatus(status, "version 2 is the latest") {
		t.Errorf("rolling back to the latest is refused: %q", status)
	}
	press(t, m, "j", "R")
	if m.tox.Snapshot().View != "confirm" || !strings.Contains(string(screen(m)), "Roll back to version 1? This saves version 3") {
		t.Fatalf("no confirmation:\n%s", screen(m))
	}
	if status := press(t, m, "n"); !hasStatus(status, "rollback cancelled") {
		t.Errorf("status %q", status)
	}
	press(t, m, "R")
	status := press(t, m, "y")
	if !hasStatus(status, "EUGENOL rolled back to version 1: saved as version 3") {
		t.Errorf("status %q", status)
	}
	ctx := context.Background()
	v1, _ := be.store.Version(ctx, "EUGENOL", 1)
	latest, _ := be.store.Latest(ctx, "EUGENOL")
	if latest.Version != 3 || string(latest.Data) != string(v1.Data) || latest.EditType != tox.EditRollback {
		t.Errorf("latest v%d %s", latest.Version, latest.EditType)
	}
	if m.tox.Snapshot().View != "history" || len(m.tox.Snapshot().History) != 3 || m.tox.Snapshot().History[0].Version != 3 {
		t.Errorf("the history shows the new version: %+v", m.tox.Snapshot().History)
	}
}

func TestToxHistoryDiffOfTwoVersions(t *testing.T) {
	m := toxDesk(t, newToxBackend(t), 100, 30)
	proposeText(t, m, toxPatch)
	press(t, m, "a", "h")
	if status := press(t, m, "d"); !hasStatus(status, "select two versions") {
		t.Errorf("status %q", status)
	}
	press(t, m, " ", "j", " ", "d")
	out := string(screen(m))
	if m.tox.Snapshot().View != "versions" || !strings.Contains(out, "EUGENOL: version 1 → version 2") || !strings.Contains(out, `+      "value": 200`) {
		t.Errorf("diff of v1 and v2:\n%s", out)
	}
	press(t, m, "esc")
	if m.tox.Snapshot().View != "history" {
		t.Error("esc goes back to the history")
	}
}

func TestToxEditedOperationsAreProposedAgain(t *testing.T) {
	be := newToxBackend(t)
	m := toxDesk(t, be, 100, 30)
	proposeText(t, m, toxPatch)
	press(t, m, "c", "my note", "enter", "e")
	if m.tox.Snapshot().Input != "ops" || !strings.Contains(m.tox.Snapshot().Text, `"path": "/noael/0/value"`) {
		t.Fatalf("the editor holds the operations: %q", m.tox.Snapshot().Text)
	}
	// A broken edit is refused in the editor, and its text kept.
	replaceEditorText(t, m, `[{"op":"replace","path":"/noael/0/value","value":"high"}]`)
	settle(t, m, ctrlS())
	if m.tox.Snapshot().Input != "ops" || m.tox.Snapshot().InputErr == "" || !strings.Contains(m.tox.Snapshot().Text, `"high"`) {
		t.Fatalf("the invalid edit stays in the editor: input %q err %q", m.tox.Snapshot().Input, m.tox.Snapshot().InputErr)
	}
	replaceEditorText(t, m, `[{"op":"replace","path":"/noael/0/value","value":300}]`)
	status := settle(t, m, ctrlS())
	if !hasStatus(status, "proposed again") || m.tox.Snapshot().Input != "" {
		t.Fatalf("status %q", status)
	}
	p := m.tox.Snapshot().Proposal
	if p.EditType != service.ToxFormStructured || len(p.Patch) != 1 || noael0(t, p.After) != 300 || m.tox.Snapshot().Comment != "my note" {
		t.Errorf("proposal %+v comment %q", p, m.tox.Snapshot().Comment)
	}
	if len(be.rejected) != 1 {
		t.Errorf("the replaced proposal's run was closed %d times, want once", len(be.rejected))
	}
}

func TestToxInstructionErrorKeepsTheText(t *testing.T) {
	m := toxDesk(t, newToxBackend(t), 100, 30)
	press(t, m, "i", "Set NOAEL to 200", "enter") // one line in words: enter sends it
	if m.tox.Snapshot().Input != "instruction" || m.tox.Snapshot().Text != "Set NOAEL to 200" || m.tox.Snapshot().InputErr == "" {
		t.Errorf("the editor stays open with the text and the error: %q %q %q", m.tox.Snapshot().Input, m.tox.Snapshot().Text, m.tox.Snapshot().InputErr)
	}
	press(t, m, "esc")
	if m.tox.Field() == fieldActive {
		t.Error("esc closes the editor")
	}
}

// blockingBackend proposes nothing until its context is cancelled.
type blockingBackend struct{ *toxBackend }

func (blockingBackend) Propose(ctx context.Context, _, _ string) (*service.ToxProposal, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestToxEscCancelsTheProposal(t *testing.T) {
	m := toxDesk(t, blockingBackend{newToxBackend(t)}, 100, 30)
	press(t, m, "i")
	settle(t, m, pasteMsg(toxPatch))
	_, cmd := m.Update(ctrlS())
	if !m.tox.Snapshot().Running || !strings.Contains(string(screen(m)), "proposing… (esc cancels)") {
		t.Fatalf("no proposing state:\n%s", screen(m))
	}
	status := press(t, m, "esc")
	if !hasStatus(status, "proposal cancelled") || m.tox.Snapshot().Running {
		t.Errorf("status %q", status)
	}
	done := make(chan []tea.Msg)
	go func() { done <- drain(cmd) }()
	select {
	case msgs := <-done:
		settle(t, m, msgs...)
	case <-time.After(5 * time.Second):
		t.Fatal("the proposal's context was not cancelled")
	}
	if m.tox.Snapshot().Proposal != nil || m.tox.Snapshot().Text != toxPatch {
		t.Error("a cancelled proposal shows nothing, and the text is kept")
	}
}

// TestToxFlow drives the program as a terminal does: an edit → the proposal → approve → the
// history shows the new version → rollback.
func TestToxFlow(t *testing.T) {
	be := newToxBackend(t)
	m := New(desksOf(fixture{}, be))
	m.OpenTox("EUGENOL")
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 32))
	t.Cleanup(func() { tm.Quit() })
	waitFrame := func(text string) {
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
	waitFrame("EUGENOL · v1 · import")
	tm.Type("i")
	waitFrame("Edit EUGENOL · from version 1")
	tm.Send(tea.PasteMsg{Content: toxPatch})
	tm.Send(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	waitFrame("Proposal · EUGENOL · from version 1")
	waitFrame("replace /noael/0/value: 100 → 200")
	tm.Type("a")
	waitFrame("EUGENOL saved as version 2")
	tm.Type("h")
	waitFrame("History · EUGENOL · 2 version(s)")
	waitFrame("structured edit (JSON)") // the kind of edit in words
	tm.Type("jR")
	waitFrame("Roll back to version 1?")
	tm.Type("y")
	waitFrame("EUGENOL rolled back to version 1: saved as version 3")
	waitFrame("History · EUGENOL · 3 version(s)")

	latest, err := be.store.Latest(context.Background(), "EUGENOL")
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version != 3 || latest.EditType != tox.EditRollback || noael0(t, latest.Data) != 100 {
		t.Errorf("latest v%d %s value %v", latest.Version, latest.EditType, noael0(t, latest.Data))
	}
}

// A filter closed with esc keeps the filtered list; the profile shown and the one an edit goes
// to must then be the same: the one under the cursor.
func TestToxFilterEscShowsTheSelectedProfile(t *testing.T) {
	m := toxDesk(t, newToxBackend(t), 100, 30)
	press(t, m, "/", "sal", "esc")
	sel := m.tox.Snapshot().Selected
	if sel == "" || sel == "EUGENOL" {
		t.Fatalf("the filter selects another profile: %q", sel)
	}
	if m.tox.Snapshot().Profile == nil || m.tox.Snapshot().Profile.INCI != sel {
		inci := "none"
		if m.tox.Snapshot().Profile != nil {
			inci = m.tox.Snapshot().Profile.INCI
		}
		t.Fatalf("the cursor is on %s but the profile shown is %s", sel, inci)
	}
	proposeText(t, m, `[{"op":"add","path":"/statements/-","value":{"text":"x"}}]`)
	if m.tox.Snapshot().Proposal == nil || m.tox.Snapshot().Proposal.INCI != sel {
		t.Fatalf("the edit went to the wrong profile")
	}
}

// Every view of the desk draws at 40x12 without a crash.
func TestToxNarrowTerminal(t *testing.T) {
	for _, sz := range [][2]int{{40, 12}, {20, 5}, {1, 1}} {
		m := toxDesk(t, newToxBackend(t), sz[0], sz[1])
		screen(m)
		press(t, m, "enter", "j", "j")
		screen(m)
		press(t, m, "left")
		proposeText(t, m, toxPatch)
		screen(m)
		press(t, m, "e")
		screen(m)
		press(t, m, "esc", "c", "x", "enter")
		screen(m)
		press(t, m, "a", "h", " ", "j", " ", "d")
		screen(m)
		press(t, m, "esc", "R")
		screen(m)
		press(t, m, "esc", "esc", "/", "zzzz", "enter", "i", "h")
		screen(m)
	}
}

// replaceEditorText replaces the text of the open editor as the analyst does: from its end,
// backspace over all of it, then paste text.
func replaceEditorText(t *testing.T, m *Model, text string) {
	t.Helper()
	msgs := []tea.Msg{tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl}}
	for range []rune(m.tox.Snapshot().Text) {
		msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, msg := range msgs {
		settle(t, m, msg)
	}
	if got := m.tox.Snapshot().Text; got != "" {
		t.Fatalf("the editor still holds %q", got)
	}
	settle(t, m, pasteMsg(text))
}

package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"warren/service"
)

// The fixture's workspace has no proposal waiting.
func (noTox) Waiting(context.Context) ([]service.ToxWaitingEdit, error) { return nil, nil }
func (noTox) WaitingProposal(_ context.Context, run string) (*service.ToxProposal, error) {
	return nil, fmt.Errorf("couldn't load proposal %s: it is %w", run, service.ErrNotWaiting)
}

// Waiting lists the proposals left waiting, oldest first, the first made at fixedTime and
// each next one an hour later.
func (b *toxBackend) Waiting(context.Context) ([]service.ToxWaitingEdit, error) {
	var out []service.ToxWaitingEdit
	for i, p := range b.waiting {
		out = append(out, service.ToxWaitingEdit{Run: p.ID, INCI: p.INCI, BaseVersion: p.BaseVersion, EditType: p.EditType,
			Method: p.Method, Summary: p.Summary, BatchID: p.BatchID, Since: fixedTime.Add(time.Duration(i) * time.Hour)})
	}
	return out, nil
}

func (b *toxBackend) WaitingProposal(_ context.Context, run string) (*service.ToxProposal, error) {
	for _, p := range b.waiting {
		if p.ID == run {
			q := *p
			return &q, nil
		}
	}
	return nil, fmt.Errorf("couldn't load proposal %s: it is %w", run, service.ErrNotWaiting)
}

// decide takes a proposal off the waiting list.
func (b *toxBackend) decide(p *service.ToxProposal) {
	b.waiting = slices.DeleteFunc(b.waiting, func(w *service.ToxProposal) bool { return w.ID == p.ID })
}

// leaveWaiting proposes input for inci and leaves it waiting under run, as `warren tox edit`
// without --yes does.
func (b *toxBackend) leaveWaiting(t *testing.T, inci, input, run, batch string) *service.ToxProposal {
	t.Helper()
	p, err := b.Propose(context.Background(), inci, input)
	if err != nil {
		t.Fatal(err)
	}
	p.ID, p.BatchID = run, batch
	b.waiting = append(b.waiting, p)
	return p
}

// vanillinPatch lowers the DAP of VANILLIN, as a batch would.
const vanillinPatch = `[{"op":"test","path":"/inci","value":"VANILLIN"},{"op":"add","path":"/dap/-","value":{"value":3}}]`

// waitingDesk is the desk with two proposals left waiting before it opened: one for EUGENOL by
// `warren tox edit`, one for VANILLIN by a batch.
func waitingDesk(t *testing.T, w, h int) (*Model, *toxBackend) {
	t.Helper()
	be := newToxBackend(t)
	be.leaveWaiting(t, "EUGENOL", toxPatch, "tox-20261121-101500-aaaaaa", "")
	be.leaveWaiting(t, "VANILLIN", vanillinPatch, "tox-20261121-111500-bbbbbb", "batch-20261121-111500")
	return toxDesk(t, be, w, h), be
}

func TestToxWaitingIsListedAndOpens(t *testing.T) {
	m, be := waitingDesk(t, 100, 30)
	frame := string(screen(m))
	for _, want := range []string{"● 2 proposals wait (w)", "EUGENOL", "w next waiting (2)"} {
		if !strings.Contains(frame, want) {
			t.Fatalf("want %q in\n%s", want, frame)
		}
	}
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, "BHT ") && strings.Contains(l, "●") {
			t.Errorf("a profile without a waiting proposal is marked: %q", l)
		}
		if strings.Contains(l, "EUGENOL ") && strings.Contains(l, "v1 │") && !strings.Contains(l, "● v1") {
			t.Errorf("EUGENOL is not marked: %q", l)
		}
	}

	// w opens the oldest with its diff; esc leaves it waiting; w again goes on to the next.
	press(t, m, "w")
	frame = string(screen(m))
	for _, want := range []string{"Proposal · EUGENOL · from version 1", "waiting since", "run tox-20261121-101500-aaaaaa",
		"replace /noael/0/value: 100 → 200", `+      "value": 200`, "esc leave it waiting"} {
		if !strings.Contains(frame, want) {
			t.Fatalf("want %q in\n%s", want, frame)
		}
	}
	status := press(t, m, "esc")
	if m.tox.Snapshot().View != "browse" || len(be.rejected) != 0 || len(be.waiting) != 2 || !slices.Contains(status, "the proposal for EUGENOL still waits: w opens it again") {
		t.Fatalf("esc on a waiting proposal: view %q, rejected %v, status %q", m.tox.Snapshot().View, be.rejected, status)
	}
	press(t, m, "w")
	if p := m.tox.Snapshot().Proposal; p == nil || p.INCI != "VANILLIN" || m.tox.Snapshot().Selected != "VANILLIN" ||
		!strings.Contains(string(screen(m)), "run tox-20261121-111500-bbbbbb") {
		t.Fatalf("the second w opens VANILLIN; the screen:\n%s", screen(m))
	}

	// r rejects it as any proposal; the list follows.
	press(t, m, "r")
	if !slices.Equal(be.rejected, []string{"VANILLIN"}) || len(m.tox.Snapshot().Waiting) != 1 || m.tox.Snapshot().View != "browse" {
		t.Fatalf("reject: rejected %v, listed %+v", be.rejected, m.tox.Snapshot().Waiting)
	}
	if frame := string(screen(m)); !strings.Contains(frame, "● 1 proposal waits (w)") {
		t.Errorf("the header after the rejection:\n%s", frame)
	}

	// a approves the other: a new version, and nothing waits any more.
	status = press(t, m, "w", "a")
	if v, _ := be.store.Latest(context.Background(), "EUGENOL"); v.Version != 2 || !slices.Contains(status, "EUGENOL saved as version 2") {
		t.Fatalf("approve: version %d, status %q", v.Version, status)
	}
	frame = string(screen(m))
	if len(m.tox.Snapshot().Waiting) != 0 || strings.Contains(frame, "wait (w)") || !strings.Contains(frame, "w waiting (none)") {
		t.Errorf("after the approval:\n%s", frame)
	}
	if status := press(t, m, "w"); m.tox.Snapshot().View != "browse" || len(status) != 1 || !strings.HasPrefix(status[0], "no proposal waits") {
		t.Errorf("w without a waiting proposal: %q", status)
	}
}

// TestToxWaitingStaleIsRefused: a waiting proposal whose profile changed since it was made is
// refused as in the tab, nothing is saved, and it is listed no more.
func TestToxWaitingStaleIsRefused(t *testing.T) {
	m, be := waitingDesk(t, 100, 30)
	if _, err := be.store.Save(context.Background(), "EUGENOL", 1, be.waiting[0].After, []byte("[]"), "meanwhile", "manual", ""); err != nil {
		t.Fatal(err)
	}
	status := press(t, m, "w", "a")
	if !slices.ContainsFunc(status, func(s string) bool { return strings.Contains(s, "not saved") && strings.Contains(s, "e re-proposes") }) {
		t.Fatalf("stale approval: %q", status)
	}
	if v, _ := be.store.Latest(context.Background(), "EUGENOL"); v.Version != 2 || v.Summary != "meanwhile" {
		t.Errorf("the stale proposal was saved: version %d %q", v.Version, v.Summary)
	}
	if m.tox.Snapshot().View != "proposal" || m.tox.Snapshot().Proposal == nil {
		t.Errorf("the refused proposal is kept on screen")
	}
}

// TestToxWaitingDecidedMeanwhile: a proposal approved elsewhere (the CLI) after the list was
// read doesn't open; the list is read again.
func TestToxWaitingDecidedMeanwhile(t *testing.T) {
	m, be := waitingDesk(t, 100, 30)
	be.waiting = be.waiting[1:] // `warren tox approve` took EUGENOL's
	status := press(t, m, "w")
	if m.tox.Snapshot().View != "browse" || !slices.Contains(status, "the proposal for EUGENOL was decided meanwhile: nothing to do") ||
		len(m.tox.Snapshot().Waiting) != 1 {
		t.Errorf("view %q, status %q, listed %+v", m.tox.Snapshot().View, status, m.tox.Snapshot().Waiting)
	}
}

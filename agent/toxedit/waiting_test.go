package toxedit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"warren/agent"
	"warren/tox"
)

// TestWaitingListsAndLoadsOpenProposals: proposals from Propose and from a batch wait until
// they are decided; an approved, a rejected and a NO_EDIT one don't; a loaded waiting proposal
// has everything the desk shows, and approving it saves a version.
func TestWaitingListsAndLoadsOpenProposals(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	first, err := h.ed.Propose(ctx, "COUMARIN", `[{"op":"replace","path":"/noael/0/value","value":200}]`)
	if err != nil {
		t.Fatal(err)
	}
	approved, _ := h.ed.Propose(ctx, "BHT", "Set NOAEL to 26 mg/kg bw/day")
	if _, err := h.ed.Approve(ctx, approved, ""); err != nil {
		t.Fatal(err)
	}
	rejected, _ := h.ed.Propose(ctx, "MENTHOL", `{"dap":[{"value":1}]}`)
	if err := h.ed.Reject(ctx, rejected, "no"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Propose(ctx, "GERANIOL", "hello"); err != nil { // NO_EDIT: nothing waits
		t.Fatal(err)
	}
	res, err := h.ed.Batch(ctx, strings.NewReader(`{"inci":"EUGENOL","payload":{"dap":[{"value":2}]}}`), nil)
	if err != nil || res.Proposed != 1 {
		t.Fatalf("batch: %+v %v", res, err)
	}

	// A fresh editor over the same stores, as the workbench after `warren tox edit`.
	later := &Editor{Profiles: h.ed.Profiles, Runs: h.ed.Runs}
	ws, err := later.Waiting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Run != first.ID || ws[1].INCI != "EUGENOL" || ws[1].BatchID != res.ID {
		t.Fatalf("waiting, oldest first: %+v", ws)
	}
	if w := ws[0]; w.INCI != "COUMARIN" || w.BaseVersion != 1 || w.EditType != FormStructured || w.Method != MethodStructured ||
		w.Summary == "" || w.Since.IsZero() {
		t.Errorf("waiting COUMARIN: %+v", w)
	}

	p, err := later.LoadWaiting(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != first.ID || p.INCI != "COUMARIN" || p.BaseVersion != 1 || len(p.Patch) != 2 || p.Diff != first.Diff ||
		!strings.Contains(string(p.After), `"value":200`) || string(p.Before) == string(p.After) || p.Input != first.Input {
		t.Fatalf("loaded proposal: %+v", p)
	}
	if v, err := later.Approve(ctx, p, ""); err != nil || v != 2 {
		t.Fatalf("approve the loaded proposal: %d %v", v, err)
	}
	if ws, _ := later.Waiting(ctx); len(ws) != 1 || ws[0].INCI != "EUGENOL" {
		t.Errorf("after the approval: %+v", ws)
	}
	if _, err := later.LoadWaiting(ctx, first.ID); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("a decided proposal loads as waiting: %v", err)
	}
	if _, err := later.LoadWaiting(ctx, "tox-nothing"); !errors.Is(err, agent.ErrNoRun) {
		t.Errorf("an unknown run: %v", err)
	}
}

// TestWaitingStaleProposalIsRefused: a waiting proposal whose profile changed since is refused
// like any other, and waits no longer.
func TestWaitingStaleProposalIsRefused(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	old, _ := h.ed.Propose(ctx, "COUMARIN", `{"dap":[{"value":3}]}`)
	newer, _ := h.ed.Propose(ctx, "COUMARIN", "Set NOAEL to 200 mg/kg bw/day")
	if _, err := h.ed.Approve(ctx, newer, ""); err != nil {
		t.Fatal(err)
	}
	p, err := h.ed.LoadWaiting(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Approve(ctx, p, ""); !errors.Is(err, tox.ErrStale) {
		t.Fatalf("stale approval: %v", err)
	}
	if ws, _ := h.ed.Waiting(ctx); len(ws) != 0 {
		t.Errorf("a refused proposal still waits: %+v", ws)
	}
}

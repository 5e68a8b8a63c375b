package gas

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// as is a second store over the same database, acting for another analyst.
func as(s *Store, analyst string) *Store {
	return &Store{DB: s.DB, Analyst: analyst, Decided: s.Decided}
}

func TestDecisionsNameTheirAnalyst(t *testing.T) {
	ctx := context.Background()
	s, tab := storedSample(t)
	var published []Decision
	s.Decided = func(ds []Decision) { published = append(published, ds...) }
	alice, bob := as(s, "alice"), as(s, "bob")
	filled := tab.Rows[0].Cells["boiling_point_c"]
	approved := filled
	approved.Status = StatusApproved
	d, err := alice.Decide(ctx, tab.Name, 1, "boiling_point_c", filled, approved, "approve")
	if err != nil {
		t.Fatal(err)
	}
	if d.By != "alice" || d.ID == 0 || d.After.By != "alice" {
		t.Errorf("the decision returned: %+v", d)
	}
	review := tab.Rows[0].Cells["lel_vol_pct"]
	if _, err := bob.Decide(ctx, tab.Name, 1, "lel_vol_pct", review, Cell{Status: StatusRejected, Note: "no LEL", UpdatedAt: at}, "reject"); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Decisions(ctx, tab.Name, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	var by []string
	for _, d := range ds {
		by = append(by, d.Field+":"+d.By)
	}
	if want := []string{"boiling_point_c:alice", "lel_vol_pct:bob"}; !slices.Equal(by, want) {
		t.Errorf("decisions by %q, want %q", by, want)
	}
	got, err := s.LoadTable(ctx, tab.Name)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Row(1).Cells["boiling_point_c"]; c.By != "alice" || c.Status != StatusApproved {
		t.Errorf("the approved cell names %q: %+v", c.By, c)
	}
	if c := got.Row(1).Cells["lel_vol_pct"]; c.By != "bob" {
		t.Errorf("the rejected cell names %q", c.By)
	}
	if len(published) != 2 || published[0].By != "alice" || published[1].By != "bob" || published[1].ID != ds[1].ID {
		t.Errorf("the hook saw %+v", published)
	}
}

func TestStaleDecisionIsRefusedAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	s, tab := storedSample(t)
	alice, bob := as(s, "alice"), as(s, "bob")
	// Both see the filled IDLH; alice approves it first.
	seen := tab.Rows[0].Cells["idlh_ppm"]
	approved := seen
	approved.Status = StatusApproved
	if _, err := alice.Decide(ctx, tab.Name, 1, "idlh_ppm", seen, approved, "approve"); err != nil {
		t.Fatal(err)
	}
	bobs := Cell{Value: "0.1", Unit: "ppm", Status: StatusEdited, UpdatedAt: at}
	_, err := bob.Decide(ctx, tab.Name, 1, "idlh_ppm", seen, bobs, "edit")
	var stale *StaleError
	if !errors.Is(err, ErrStale) || !errors.As(err, &stale) {
		t.Fatalf("bob's decision on the stale cell: %v", err)
	}
	if stale.Last == nil || stale.Last.By != "alice" || stale.Now.Status != StatusApproved {
		t.Errorf("the refusal: %+v", stale)
	}
	for _, part := range []string{"alice approved 0.00005 ppm at ", "IDLH", "row 1"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("the message %q lacks %q", err, part)
		}
	}
	got, _ := s.LoadTable(ctx, tab.Name)
	if c := got.Row(1).Cells["idlh_ppm"]; !sameCell(c, stale.Now) || c.Value != seen.Value {
		t.Errorf("the cell after the refusal: %+v", c)
	}
	if ds, _ := s.Decisions(ctx, tab.Name, 0, ""); len(ds) != 1 {
		t.Errorf("%d decisions logged, want alice's only", len(ds))
	}
	// Decided again on the cell as it is now, bob's decision goes through.
	if _, err := bob.Decide(ctx, tab.Name, 1, "idlh_ppm", stale.Now, bobs, "edit"); err != nil {
		t.Errorf("deciding on the refreshed cell: %v", err)
	}
}

func TestUndoTakesBackTheAnalystsOwnLatestDecision(t *testing.T) {
	ctx := context.Background()
	s, tab := storedSample(t)
	alice, bob := as(s, "alice"), as(s, "bob")
	bp, lel := tab.Rows[0].Cells["boiling_point_c"], tab.Rows[0].Cells["lel_vol_pct"]
	bpApproved := bp
	bpApproved.Status = StatusApproved
	if _, err := alice.Decide(ctx, tab.Name, 1, "boiling_point_c", bp, bpApproved, "approve"); err != nil {
		t.Fatal(err)
	}
	rejected := Cell{Status: StatusRejected, Note: "no LEL", UpdatedAt: at}
	if _, err := bob.Decide(ctx, tab.Name, 1, "lel_vol_pct", lel, rejected, "reject"); err != nil {
		t.Fatal(err)
	}
	// Alice's undo takes back her approval, not bob's later rejection.
	row, field, err := alice.Undo(ctx, tab.Name)
	if err != nil || row != 1 || field != "boiling_point_c" {
		t.Fatalf("alice's undo: row %d %s, %v", row, field, err)
	}
	got, _ := s.LoadTable(ctx, tab.Name)
	if c := got.Row(1).Cells["boiling_point_c"]; !sameCell(c, bp) {
		t.Errorf("alice's cell after her undo: %+v", c)
	}
	if c := got.Row(1).Cells["lel_vol_pct"]; c.Status != StatusRejected {
		t.Errorf("bob's rejection was touched: %+v", c)
	}
	if _, _, err := alice.Undo(ctx, tab.Name); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("alice has nothing left to undo: %v", err)
	}
	ds, _ := s.Decisions(ctx, tab.Name, 0, "")
	if last := ds[len(ds)-1]; last.By != "alice" || last.Undoes != ds[0].ID {
		t.Errorf("the undo is logged as %+v", last)
	}

	// Bob's rejection, changed by alice since, can no longer be undone by bob.
	if _, err := alice.Decide(ctx, tab.Name, 1, "lel_vol_pct", got.Row(1).Cells["lel_vol_pct"], Cell{Value: "1.4", Unit: "vol %", Status: StatusEdited, UpdatedAt: at}, "edit"); err != nil {
		t.Fatal(err)
	}
	_, _, err = bob.Undo(ctx, tab.Name)
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "alice set 1.4 vol %") {
		t.Fatalf("bob's undo of a cell alice changed since: %v", err)
	}
	got, _ = s.LoadTable(ctx, tab.Name)
	if c := got.Row(1).Cells["lel_vol_pct"]; c.Value != "1.4" || c.By != "alice" {
		t.Errorf("the refused undo wrote %+v", c)
	}
}

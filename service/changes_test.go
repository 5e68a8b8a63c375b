package service

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"warren/gas"
	"warren/internal/testkb"
	"warren/tox"
)

// next takes the change a feed already holds: publishing is synchronous with the decision, so
// a change that is not there by now was never delivered.
func next(t *testing.T, feed <-chan Change) (Change, bool) {
	t.Helper()
	select {
	case c := <-feed:
		return c, true
	default:
		return Change{}, false
	}
}

// Two analysts on one workspace, each through their own view: a decision on a cell the other
// changed is refused and writes nothing, each hears the other's changes and not their own, and
// the export names who decided.
func TestTwoAnalystsOnOneGasTable(t *testing.T) {
	s := openService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Gas().Import(ctx, filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"), "fab", false); err != nil {
		t.Fatal(err)
	}
	alice, bob := s.As("alice", false), s.As("bob", false)
	aliceFeed, bobFeed := alice.Team().Changes(ctx), bob.Team().Changes(ctx)

	// Both look at the table.
	view, err := bob.Gas().Table(ctx, "fab")
	if err != nil {
		t.Fatal(err)
	}
	const field = "odour"
	seen := view.Row(1).Cells[field]
	if _, err := alice.Gas().Edit(ctx, "fab", 1, field, "repulsive", seen); err != nil {
		t.Fatal(err)
	}
	if c, ok := next(t, aliceFeed); ok {
		t.Errorf("alice hears her own change: %+v", c)
	}
	c, ok := next(t, bobFeed)
	if !ok || c.Kind != ChangeGasCell || c.By != "alice" || c.Table != "fab" || c.Row != 1 || c.Field != field || c.Action != "edited" {
		t.Fatalf("bob's feed: %+v (%v)", c, ok)
	}
	if got := c.String(); got != "alice edited row 1 · Odour" {
		t.Errorf("the change reads %q", got)
	}

	// Bob decides on his stale view: refused, and the cell stays alice's.
	_, err = bob.Gas().Edit(ctx, "fab", 1, field, "none", seen)
	var stale *gas.StaleError
	if !errors.Is(err, gas.ErrStale) || !errors.As(err, &stale) || !strings.Contains(err.Error(), "alice set repulsive at ") {
		t.Fatalf("bob's stale decision: %v", err)
	}
	if now, _ := alice.Gas().Table(ctx, "fab"); now.Row(1).Cells[field].Value != "repulsive" {
		t.Errorf("the refused decision wrote %+v", now.Row(1).Cells[field])
	}
	if c, ok := next(t, aliceFeed); ok {
		t.Errorf("a refused decision was published: %+v", c)
	}

	// On the refreshed cell bob's decision goes through, and alice hears it.
	if _, err := bob.Gas().Edit(ctx, "fab", 1, field, "none", stale.Now); err != nil {
		t.Fatal(err)
	}
	if c, ok := next(t, aliceFeed); !ok || c.By != "bob" || c.Row != 1 || c.Field != field || !strings.Contains(c.What, "none") {
		t.Errorf("alice's feed: %+v (%v)", c, ok)
	}

	// Alice's undo is refused: her cell is bob's now.
	if _, _, err := alice.Gas().Undo(ctx, "fab"); !errors.Is(err, gas.ErrStale) {
		t.Errorf("alice's undo of a cell bob changed since: %v", err)
	}

	// The export's Provenance sheet names the analyst.
	file := filepath.Join(t.TempDir(), "fab.xlsx")
	if _, err := alice.Gas().Export(ctx, "fab", file); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(gas.SheetProvenance)
	if err != nil || len(rows) < 2 {
		t.Fatalf("the Provenance sheet: %d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	by, ok := col["Decided By"]
	if !ok {
		t.Fatalf("no Decided By column in %q", rows[0])
	}
	found := false
	for _, r := range rows[1:] {
		if f, _ := gas.MatchHeader(r[col["Field"]]); r[col["Row"]] == "1" && f.Name == field { // the Field column holds the header
			found = true
			if by >= len(r) || r[by] != "bob" {
				t.Errorf("the Provenance record of row 1 %s: %q", field, r)
			}
		}
	}
	if !found {
		t.Errorf("no Provenance record of row 1 %s", field)
	}

	// Detached, a feed is closed and hears nothing more.
	cancel()
	for range aliceFeed {
	}
}

const eugenolPatch = `[{"op":"test","path":"/inci","value":"EUGENOL"},{"op":"replace","path":"/noael/0/value","value":200}]`

// Toxicology history names who saved each version; a rollback planned on a version another
// analyst has since followed is refused and names them; each hears the other's saves.
func TestTwoAnalystsOnOneProfile(t *testing.T) {
	s := openService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alice, bob := s.As("alice", false), s.As("bob", false)
	aliceFeed := alice.Team().Changes(ctx)
	if _, err := alice.Tox().Import(ctx, filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	if c, ok := next(t, aliceFeed); ok { // her own import is not news to her
		t.Fatalf("alice hears her own import: %+v", c)
	}
	plan, err := alice.Tox().PlanRollback(ctx, "EUGENOL", 1)
	if err == nil {
		t.Fatalf("a rollback to the only version was planned: %+v", plan)
	}
	if v, err := approveEdit(ctx, bob, "EUGENOL", eugenolPatch); err != nil || v != 2 {
		t.Fatalf("bob's edit: version %d %v", v, err)
	}
	c, ok := next(t, aliceFeed)
	if !ok || c.Kind != ChangeToxVersion || c.INCI != "EUGENOL" || c.Version != 2 || c.By != "bob" {
		t.Fatalf("alice's feed: %+v (%v)", c, ok)
	}
	if got := c.String(); got != "bob saved EUGENOL: version 2" {
		t.Errorf("the change reads %q", got)
	}

	// Alice plans a rollback to version 1 on version 2; bob saves version 3 meanwhile.
	plan, err = alice.Tox().PlanRollback(ctx, "EUGENOL", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Tox().Rollback(ctx, "EUGENOL", 1, 2, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Tox().Rollback(ctx, plan.INCI, plan.Target.Version, plan.Latest.Version, ""); !errors.Is(err, tox.ErrStale) || !strings.Contains(err.Error(), "saved by bob") {
		t.Errorf("alice's stale rollback: %v", err)
	}
	h, err := alice.Tox().History(ctx, "eugenol")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range h {
		got = append(got, v.EditType+":"+v.By)
	}
	if want := "rollback:bob FORM_EDIT_STRUCTURED:bob import:alice"; strings.Join(got, " ") != want {
		t.Errorf("history %q, want %q", got, want)
	}
}

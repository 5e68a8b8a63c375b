package gas

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"slices"
	"warren/kb"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	db, err := kb.OpenDB(filepath.Join(t.TempDir(), kb.DBFileName), slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Store{DB: db}
}

// storedSample opens a store holding sampleTable.
func storedSample(t *testing.T) (*Store, *Table) {
	t.Helper()
	s, tab := openStore(t), sampleTable()
	if err := s.SaveTable(context.Background(), tab); err != nil {
		t.Fatal(err)
	}
	return s, tab
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	want := sampleTable()
	if err := s.SaveTable(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadTable(ctx, want.Name)
	if err != nil {
		t.Fatal(err)
	}
	assertSameTable(t, got, want)
	if ds, _ := s.Decisions(ctx, want.Name, 0, ""); len(ds) != 0 {
		t.Errorf("the first save logged %d decisions", len(ds))
	}
	// Saving again replaces, and logs exactly the cells that changed.
	want.Rows[1].Set("boiling_point_c", Cell{Value: "-252.9", Unit: "°C", Status: StatusEdited, UpdatedAt: at})
	want.Rows[2].Set("un_number", Cell{Value: "UN2451", Status: StatusFilled, Confidence: 0.9, UpdatedAt: at})
	delete(want.Rows[0].Cells, "idlh_ppm")
	want.Rows = want.Rows[:3]
	if err := s.SaveTable(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err = s.LoadTable(ctx, want.Name)
	if err != nil {
		t.Fatal(err)
	}
	assertSameTable(t, got, want)
	ds, err := s.Decisions(ctx, want.Name, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]bool{}
	for _, d := range ds {
		changed[d.Field] = true
		if d.Reason != "save" {
			t.Errorf("reason %q", d.Reason)
		}
	}
	if !reflect.DeepEqual(changed, map[string]bool{"boiling_point_c": true, "un_number": true, "idlh_ppm": true}) || len(ds) != 3 {
		t.Errorf("decisions %+v", ds)
	}
	if names, _ := s.Tables(ctx); !reflect.DeepEqual(names, []string{want.Name}) {
		t.Errorf("tables %q", names)
	}
	if _, err := s.LoadTable(ctx, "nope"); !errors.Is(err, ErrNoTable) {
		t.Errorf("missing table: %v", err)
	}
}

func TestSetCellAndUndo(t *testing.T) {
	ctx := context.Background()
	s, tab := storedSample(t)
	name := tab.Name
	filled := tab.Rows[0].Cells["boiling_point_c"]
	approved := filled
	approved.Status = StatusApproved
	edited := Cell{Value: "-112", Unit: "°C", Status: StatusEdited, Note: "from the cylinder label", UpdatedAt: at}
	steps := []struct {
		row    int
		field  string
		cell   Cell
		reason string
	}{
		{1, "boiling_point_c", approved, "approve"},
		{1, "boiling_point_c", edited, "edit"},
		{2, "formula", Cell{Value: "H2", Status: StatusEdited, UpdatedAt: at}, "edit"},
		{1, "lel_vol_pct", Cell{Status: StatusRejected, Note: "pyrophoric, no LEL", UpdatedAt: at}, "reject"},
	}
	for _, st := range steps {
		if err := s.SetCell(ctx, name, st.row, st.field, st.cell, st.reason); err != nil {
			t.Fatal(err)
		}
	}
	cellOf := func(row int, field string) Cell {
		t.Helper()
		got, err := s.LoadTable(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return got.Row(row).Cells[field]
	}
	if c := cellOf(1, "boiling_point_c"); !sameCell(c, edited) {
		t.Fatalf("after edit: %+v", c)
	}
	// Setting a cell to what it is changes nothing and logs nothing.
	if err := s.SetCell(ctx, name, 1, "boiling_point_c", edited, "again"); err != nil {
		t.Fatal(err)
	}
	if ds, _ := s.Decisions(ctx, name, 1, "boiling_point_c"); len(ds) != 2 || ds[0].Reason != "approve" || !sameCell(ds[0].Before, filled) || !sameCell(ds[1].After, edited) {
		t.Fatalf("decisions of the boiling point: %+v", ds)
	}
	// Undo walks back one decision at a time.
	wantUndo := []struct {
		row   int
		field string
		cell  Cell
	}{
		{1, "lel_vol_pct", tab.Rows[0].Cells["lel_vol_pct"]},
		{2, "formula", Cell{}},
		{1, "boiling_point_c", approved},
		{1, "boiling_point_c", filled},
	}
	for _, w := range wantUndo {
		row, field, err := s.Undo(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if row != w.row || field != w.field {
			t.Fatalf("undo restored row %d %s, want row %d %s", row, field, w.row, w.field)
		}
		if c := cellOf(row, field); !sameCell(c, w.cell) {
			t.Errorf("after undo, row %d %s = %+v, want %+v", row, field, c, w.cell)
		}
	}
	if _, _, err := s.Undo(ctx, name); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo past the start: %v", err)
	}
	all, _ := s.Decisions(ctx, name, 0, "")
	if len(all) != 8 {
		t.Fatalf("%d decisions, want 4 changes and 4 undos", len(all))
	}
	for i, d := range all[4:] {
		if d.Undoes != all[3-i].ID || !strings.HasPrefix(d.Reason, "undo of decision") || d.At.IsZero() {
			t.Errorf("undo decision %+v", d)
		}
	}
	// The final table is the one first saved.
	got, _ := s.LoadTable(ctx, name)
	assertSameTable(t, got, sampleTable())
	// Errors name what is wrong.
	for _, c := range []struct {
		row    int
		field  string
		substr string
	}{{9, "formula", "no row 9"}, {1, "colour", "unknown field"}} {
		if err := s.SetCell(ctx, name, c.row, c.field, Cell{Value: "x", Status: StatusEdited}, "x"); err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("SetCell(row %d, %s): %v", c.row, c.field, err)
		}
	}
}

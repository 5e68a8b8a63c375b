package gas

import (
	"reflect"
	"testing"
)

func TestTableHelpers(t *testing.T) {
	tab := sampleTable()
	tab.Rows = append(tab.Rows, &Row{ID: 9, Cells: map[string]Cell{"formula": {Value: "X", Status: StatusOriginal}}})
	if r := tab.Row(2); r == nil || r.Name() != "Hydrogen" {
		t.Errorf("Row(2) = %v", r)
	}
	if r := tab.Row(9); r == nil || r.Cell("formula").Value != "X" || r.Name() != "" {
		t.Errorf("Row(9) = %v", r)
	}
	if tab.Row(4) != nil || tab.Row(0) != nil {
		t.Error("Row found a row that doesn't exist")
	}
	if r := tab.RowByName(" hydrogen "); r == nil || r.ID != 2 {
		t.Errorf("RowByName = %v", r)
	}
	empty := tab.EmptyCells()
	// Silane has 9 cells besides its name, one of them (h_statements) rejected and so open for
	// filling; hydrogen has 5; NF3 none; the nameless row is skipped.
	if want := (46 - 9 + 1) + (46 - 5) + 46; len(empty) != want {
		t.Errorf("%d empty cells, want %d", len(empty), want)
	}
	if empty[0] != (CellRef{Row: 1, Field: "formula"}) {
		t.Errorf("first empty cell %v", empty[0])
	}
	found := false
	for _, e := range empty {
		if e == (CellRef{Row: 1, Field: "h_statements"}) {
			found = true
		}
		if e.Field == "chemical_name" || e.Row == 9 {
			t.Errorf("empty cell %v", e)
		}
	}
	if !found {
		t.Error("a rejected cell isn't offered for filling")
	}
	counts := tab.Counts()
	want := map[Status]int{StatusOriginal: 10, StatusFilled: 3, StatusReview: 2, StatusApproved: 1, StatusEdited: 1, StatusRejected: 1}
	want[StatusEmpty] = 4*47 - 18
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
	var r Row
	r.Set("odour", Cell{Value: "none"})
	r.Set("odour", Cell{})
	if len(r.Cells) != 0 {
		t.Errorf("a zero cell was kept: %v", r.Cells)
	}
}

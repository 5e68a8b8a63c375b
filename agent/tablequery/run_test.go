package tablequery

import (
	"slices"
	"strings"
	"testing"
)

// The missing-value rules of the package doc, on a table with blanks in every kind of field.
func TestRunMissingValues(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []int
	}{
		// Text: a blank is "".
		{`empty(cas_number)`, []int{3, 4}},
		{`cas_number == ""`, []int{3, 4}},
		{`cas_number == nil`, []int{3, 4}},
		{`has(cas_number)`, []int{0, 1, 2}},
		{`formula startsWith "A"`, []int{0, 4}},
		{`hazard_class contains "Flammable" and empty(cas_number)`, []int{3}},
		// Numbers: a comparison that reads a blank is false, != included; not makes it true.
		{`flash_point_c < 0`, []int{1, 3}},
		{`flash_point_c != -50`, []int{3}},
		{`not (flash_point_c < 0)`, []int{0, 2, 4}},
		{`has(flash_point_c) and not (flash_point_c < -30)`, []int{3}},
		{`empty(flash_point_c)`, []int{0, 2, 4}},
		{`flash_point_c + 10 < 0`, []int{1, 3}},
		{`(flash_point_c ?? 0) < 1`, []int{0, 1, 2, 3, 4}},
		// Ints.
		{`flammability >= 4`, []int{1, 2, 3}},
		{`flammability in [0, 4]`, []int{0, 1, 2, 3}},
		{`flammability == nil`, []int{4}},
		// Bools: a blank is not true, and not a blank is true.
		{`toxic`, []int{4}},
		{`pyrophoric`, []int{1}},
		{`not toxic`, []int{0, 1, 2, 3}},
		{`toxic == false`, []int{0, 1, 2}},
		{`toxic != true`, []int{0, 1, 2}},
		{`pyrophoric or health >= 4`, []int{1, 4}},
		{`pyrophoric ? false : true`, []int{0, 2, 3, 4}},
		// Whole-row search.
		{`any_text contains "sih4"`, []int{1}},
		{`any_text contains "flammable"`, []int{1, 2, 3}},
	} {
		if got := match(t, tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestRunFailingRows(t *testing.T) {
	// int("Argon") fails at run time: such rows do not match...
	p, err := Compile(gasSchema, `int(formula) > 0`)
	if err != nil {
		t.Fatal(err)
	}
	rows := append(slices.Clone(gasRows), map[string]any{"formula": "7"})
	got, err := Run(p, rows)
	if err != nil || !slices.Equal(got, []int{5}) {
		t.Errorf("got %v, %v; want row 5 and no error", got, err)
	}
	// ...and when every row fails, the expression is wrong for the table.
	if _, err := Run(p, gasRows); err == nil || !strings.Contains(err.Error(), "any of the 5 rows") {
		t.Errorf("want an error when every row fails, got %v", err)
	}
	// No rows, no matches, no error; a nil row is a row of blanks.
	if got, err := Run(p, nil); got != nil || err != nil {
		t.Errorf("empty table: %v, %v", got, err)
	}
	p, _ = Compile(gasSchema, `empty(name) and not toxic`)
	if got, err := Run(p, []map[string]any{nil}); err != nil || !slices.Equal(got, []int{0}) {
		t.Errorf("nil row: %v, %v", got, err)
	}
}

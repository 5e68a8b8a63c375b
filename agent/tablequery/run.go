package tablequery

import (
	"fmt"

	"github.com/expr-lang/expr/vm"
)

// Run evaluates a compiled filter on every row and returns the indexes of the rows it matches,
// in order. A row is read as it is (no copy): values must have their field's Go type (float64,
// int, bool, string) or be nil.
//
// A row on which the expression fails at run time (arithmetic on a missing number, say) or
// does not give true/false does not match. Only when every row fails is that an error: the
// expression is then wrong for this table, not for a few of its rows.
func Run(program *vm.Program, rows []map[string]any) ([]int, error) {
	if program == nil {
		return nil, fmt.Errorf("couldn't run the filter: no compiled expression")
	}
	var machine vm.VM
	var matches []int
	failed := 0
	var firstErr error
	empty := map[string]any{}
	for i, row := range rows {
		if row == nil {
			row = empty
		}
		out, err := machine.Run(program, row)
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = fmt.Errorf("row %d: %w", i, err)
			}
			continue
		}
		if ok, _ := out.(bool); ok {
			matches = append(matches, i)
		}
	}
	if len(rows) > 0 && failed == len(rows) {
		return nil, fmt.Errorf("couldn't evaluate the filter on any of the %d rows: %w", len(rows), firstErr)
	}
	return matches, nil
}

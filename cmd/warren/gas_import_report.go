package main

import (
	"fmt"

	"warren/kb/hmis"
)

// gasImportSummary is what `warren gas import --json` prints: the counts and the import report
// (header rows, unmatched headers with suggestions, renamed rows, unmatched Provenance records,
// invalid values, valid values awaiting review, values changed after an export).
type gasImportSummary struct {
	Table      string `json:"table"`
	Rows       int    `json:"rows"`
	Columns    int    `json:"columns"`
	EmptyCells int    `json:"empty_cells"`
	// FlaggedInSheet counts the values of the sheet that don't validate (invalid_cells).
	FlaggedInSheet int `json:"flagged_in_sheet"`
	*hmis.ImportReport
}

// printGasImport reports an import: one summary line, then the report in words.
func (a *app) printGasImport(name string, t *hmis.Table, rep *hmis.ImportReport) error {
	sum := gasImportSummary{Table: name, Rows: len(t.Rows), Columns: len(t.Columns), EmptyCells: len(t.EmptyCells()),
		FlaggedInSheet: len(rep.InvalidCells), ImportReport: rep}
	if a.jsonOut {
		return a.printJSON(sum)
	}
	fmt.Fprintf(a.stdout, "Imported %q: %d rows, %d columns, %d empty cells of %d.\n",
		name, sum.Rows, sum.Columns, sum.EmptyCells, len(t.Rows)*len(hmis.Fields()))
	for _, line := range rep.Lines() {
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

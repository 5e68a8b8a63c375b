package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"warren/gas"
	"warren/service/audit"
)

// ErrNoGasTable means the workspace has no gas table yet.
var ErrNoGasTable = errors.New("no gas table in the workspace")

// ErrGasFileFormat means a file to import is neither .xlsx nor .csv.
var ErrGasFileFormat = errors.New("give an .xlsx or .csv file")

// ErrGasTableExists means an import would overwrite a table without being asked to replace it.
var ErrGasTableExists = errors.New("a gas table of that name exists")

// GasTableError says why a table name does not resolve: Name is not one of the workspace's
// Tables, or no name was given (Name is empty) and there are several.
type GasTableError struct {
	Name   string
	Tables []string
}

func (e *GasTableError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("no gas table %q; the tables are %s", e.Name, strings.Join(e.Tables, ", "))
	}
	return fmt.Sprintf("the workspace has %d gas tables (%s): choose one", len(e.Tables), strings.Join(e.Tables, ", "))
}

// GasRowError says that a table has no row of the number asked for.
type GasRowError struct {
	Table string
	Row   int // the row asked for
	Rows  int // how many rows the table has
}

func (e *GasRowError) Error() string {
	return fmt.Sprintf("gas table %q has no row %d (it has %d rows)", e.Table, e.Row, e.Rows)
}

// Resolve names the table a use case works on: name itself when the workspace has such
// a table, else the only table when name is empty. The error wraps ErrNoGasTable when there
// is no table at all, and is a *GasTableError when name is unknown or ambiguous.
func (g *Gas) Resolve(ctx context.Context, name string) (string, error) {
	names, err := g.Tables(ctx)
	switch {
	case err != nil:
		return "", err
	case len(names) == 0:
		return "", ErrNoGasTable
	case name != "" && !slices.Contains(names, name):
		return "", &GasTableError{Name: name, Tables: names}
	case name != "":
		return name, nil
	case len(names) == 1:
		return names[0], nil
	}
	return "", &GasTableError{Tables: names}
}

// Table loads the table Resolve names; given rows, it checks that the table
// has each of them (a *GasRowError names the first it has not). The sources of cells that lie
// in collections the analyst may not read are withheld (see withholdSources); so is every
// export and query made from it.
func (g *Gas) Table(ctx context.Context, name string, rows ...int) (*gas.Table, error) {
	name, err := g.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	t, err := g.s.GasStore().LoadTable(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := g.s.withholdSources(ctx, t); err != nil {
		return nil, err
	}
	for _, id := range rows {
		if t.Row(id) == nil {
			return nil, &GasRowError{Table: name, Row: id, Rows: len(t.Rows)}
		}
	}
	return t, nil
}

// GasImportSummary is what an import did: the counts and the import report (header rows,
// unmatched headers with suggestions, renamed rows, unmatched Provenance records, invalid
// values, valid values awaiting review, values changed after an export).
type GasImportSummary struct {
	Table      string `json:"table"`
	Rows       int    `json:"rows"`
	Columns    int    `json:"columns"`
	EmptyCells int    `json:"empty_cells"`
	// FlaggedInSheet counts the values of the sheet that don't validate (invalid_cells).
	FlaggedInSheet int `json:"flagged_in_sheet"`
	*gas.ImportReport
}

// Import imports a gas table from an .xlsx or .csv file (ErrGasFileFormat otherwise) under
// name, by default the file's name without its extension. A table of that name is replaced
// (its decision log and fill runs start afresh) only when replace is set; otherwise the error
// wraps ErrGasTableExists and the summary names the table.
func (g *Gas) Import(ctx context.Context, file, name string, replace bool) (GasImportSummary, error) {
	var t *gas.Table
	var rep *gas.ImportReport
	var err error
	switch strings.ToLower(filepath.Ext(file)) {
	case ".xlsx":
		t, rep, err = gas.ImportXLSXWithReport(file)
	case ".csv":
		t, rep, err = gas.ImportCSVWithReport(file)
	default:
		return GasImportSummary{}, fmt.Errorf("%s: %w", file, ErrGasFileFormat)
	}
	if err != nil {
		return GasImportSummary{}, err
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	t.Name = name
	sum := GasImportSummary{Table: name, Rows: len(t.Rows), Columns: len(t.Columns), EmptyCells: len(t.EmptyCells()),
		FlaggedInSheet: len(rep.InvalidCells), ImportReport: rep}
	existing, err := g.Tables(ctx)
	if err != nil {
		return sum, err
	}
	replacing := slices.Contains(existing, name)
	if replacing && !replace {
		return sum, fmt.Errorf("%w: %q", ErrGasTableExists, name)
	}
	if err := g.s.GasStore().SaveTable(ctx, t); err != nil {
		return sum, err
	}
	if replacing {
		if err := g.s.GasStore().ClearHistory(ctx, name); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// GasExport is what an export wrote.
type GasExport struct {
	File  string `json:"file"`
	Rows  int    `json:"rows"`
	Table string `json:"table"`
}

// Export writes the table Resolve names to an xlsx file: original columns, cells
// coloured by status, sources in comments, a provenance sheet.
func (g *Gas) Export(ctx context.Context, table, file string) (ex GasExport, err error) {
	defer func() {
		g.s.record(ctx, audit.ActionExport, file, map[string]any{"what": "gas table", "table": table, "rows": ex.Rows}, err)
	}()
	t, err := g.Table(ctx, table)
	if err != nil {
		return GasExport{}, err
	}
	if err := gas.ExportXLSX(t, file); err != nil {
		return GasExport{}, err
	}
	return GasExport{File: file, Rows: len(t.Rows), Table: t.Name}, nil
}

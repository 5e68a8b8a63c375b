package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"warren/agent/gasfill"
	"warren/gas"
	"warren/internal/testkb"
)

// A table name resolves to itself, or to the only table when none is given; no table, an
// unknown name and a missing name among several tables are each refused with their reason.
func TestResolveGasTable(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	if _, err := s.Gas().Resolve(ctx, ""); !errors.Is(err, ErrNoGasTable) {
		t.Errorf("no table: %v", err)
	}
	sample := filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")
	sum, err := s.Gas().Import(ctx, sample, "", false)
	if err != nil || sum.Table != "hmis-sample" || sum.Rows == 0 || sum.ImportReport == nil {
		t.Fatalf("import: %+v %v", sum, err)
	}
	if name, err := s.Gas().Resolve(ctx, ""); err != nil || name != "hmis-sample" {
		t.Errorf("the only table: %q %v", name, err)
	}
	var te *GasTableError
	if _, err := s.Gas().Resolve(ctx, "nope"); !errors.As(err, &te) || te.Name != "nope" || len(te.Tables) != 1 {
		t.Errorf("unknown table: %v", err)
	}
	if _, err := s.Gas().Import(ctx, sample, "fab-k2", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Gas().Resolve(ctx, ""); !errors.As(err, &te) || te.Name != "" || len(te.Tables) != 2 {
		t.Errorf("two tables, no name: %v", err)
	}
	if name, err := s.Gas().Resolve(ctx, "fab-k2"); err != nil || name != "fab-k2" {
		t.Errorf("a named table: %q %v", name, err)
	}
	var re *GasRowError
	if _, err := s.Gas().Table(ctx, "fab-k2", 1, 9999); !errors.As(err, &re) || re.Row != 9999 || re.Rows != sum.Rows {
		t.Errorf("a row the table lacks: %v", err)
	}
	if tab, err := s.Gas().Table(ctx, "fab-k2", 1, 2); err != nil || tab.Name != "fab-k2" {
		t.Errorf("rows it has: %v", err)
	}
}

// An import takes .xlsx and .csv only, replaces a table only when asked, and an export writes
// the table back out.
func TestImportAndExportGas(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := s.Gas().Import(ctx, filepath.Join(dir, "fab.txt"), "", false); !errors.Is(err, ErrGasFileFormat) {
		t.Errorf("a .txt file: %v", err)
	}
	csv := filepath.Join(dir, "fab.csv")
	if err := os.WriteFile(csv, []byte("Chemical Name,CAS No.\nSilane,7803-62-5\nArsine,7784-42-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Gas().Import(ctx, csv, "", false); err != nil {
		t.Fatal(err)
	}
	if sum, err := s.Gas().Import(ctx, csv, "", false); !errors.Is(err, ErrGasTableExists) || sum.Table != "fab" {
		t.Errorf("a second import without replace: %+v %v", sum, err)
	}
	if sum, err := s.Gas().Import(ctx, csv, "", true); err != nil || sum.Rows != 2 || sum.Columns != 2 {
		t.Errorf("a replacing import: %+v %v", sum, err)
	}
	out := filepath.Join(dir, "fab.xlsx")
	exp, err := s.Gas().Export(ctx, "", out)
	if err != nil || exp != (GasExport{File: out, Rows: 2, Table: "fab"}) {
		t.Fatalf("export: %+v %v", exp, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// A fill's summary counts the rows worked (not those never started), the cells filled and
// those for review, the calls per row, the rows not grounded and those that failed.
func TestGasFillSummary(t *testing.T) {
	review := gasfill.CellChange{Field: "lel_vol_pct", After: gas.Cell{Status: gas.StatusReview}}
	filled := gasfill.CellChange{Field: "formula", After: gas.Cell{Status: gas.StatusFilled}}
	res := GasFillResult{Run: "gasfill-1", Table: "fab", Results: []gasfill.RowResult{
		{Row: 1, Name: "Silane", Grounded: true, Calls: 3, Changes: []gasfill.CellChange{review, filled}},
		{Row: 2, Name: "", Identity: "no CAS number found", Calls: 1},
		{Row: 3, Name: "Arsine", Grounded: true, Calls: 6, Err: "model down"},
		{Row: 4, Name: "Phosphine", Grounded: true, Calls: 4, Err: "model down"},
		{}, // never started
	}}
	sum := res.Summary()
	if sum.Table != "fab" || sum.LedgerRun != "gasfill-1" || sum.Rows != 4 || sum.Filled != 2 || sum.Review != 1 ||
		sum.CallsMax != 6 || sum.CallsMedian != 3.5 || sum.Failed != 2 || len(sum.NotGrounded) != 1 ||
		sum.NotGrounded[0] != "row 2 (no CAS number found)" {
		t.Errorf("summary: %+v", sum)
	}
	if first, ok := sum.FirstFailure(); !ok || first.Row != 3 {
		t.Errorf("first failure: %+v %v", first, ok)
	}
	if _, ok := (GasFillResult{}).Summary().FirstFailure(); ok {
		t.Error("an empty fill has a failure")
	}
}

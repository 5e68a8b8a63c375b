package service

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/kb"
	"warren/service/audit"
)

// The workbench's CSV export writes what `warren audit --csv` writes into exports/, refuses a
// served analyst who is no admin, and is itself in the trail.
func TestExportCSVWritesTheTrailIntoExports(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	if !s.IsAdmin() || s.Admin {
		t.Fatalf("outside serve the account is an admin (IsAdmin %v) without the Admin flag (%v)", s.IsAdmin(), s.Admin)
	}
	bob, lead := s.As("bob", false).Served(), s.As("lead", true).Served()
	if bob.IsAdmin() || !lead.IsAdmin() {
		t.Fatalf("served: bob %v, lead %v", bob.IsAdmin(), lead.IsAdmin())
	}
	s.Audit().Record(ctx, audit.Entry{Analyst: "bob", Action: audit.ActionSearch, Target: "silane, \"purge\"\nnext"})
	s.Audit().Record(ctx, audit.Entry{Analyst: "carol", Action: audit.ActionSearch, Target: "arsine"})

	if _, _, err := bob.Audit().ExportCSV(ctx, audit.Filter{}); !errors.Is(err, ErrAuditAdminsOnly) {
		t.Fatalf("bob exporting the trail: %v", err)
	}
	path, n, err := lead.Audit().ExportCSV(ctx, audit.Filter{Analyst: "bob"})
	if err != nil || n != 1 {
		t.Fatalf("export: %q %d %v", path, n, err)
	}
	if filepath.Dir(path) != filepath.Join(s.Workspace(), kb.ExportsDir) || !strings.HasPrefix(filepath.Base(path), "audit-") || filepath.Ext(path) != ".csv" {
		t.Errorf("written to %s", path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "seq" || rows[1][2] != "bob" || rows[1][4] != "silane, \"purge\"\nnext" {
		t.Errorf("the CSV: %q %v", rows, err)
	}
	again, _, err := lead.Audit().ExportCSV(ctx, audit.Filter{Analyst: "bob"})
	if err != nil || again == path {
		t.Errorf("a second export in the same second: %q (first %q) %v", again, path, err)
	}
	es := trail(t, s, audit.Filter{Analyst: "lead"})
	if len(es) != 2 {
		t.Fatalf("the exports' entries: %+v", es)
	}
	if e := es[0]; e.Action != audit.ActionExport || e.Target != path || detail(t, e)["what"] != "audit trail" ||
		detail(t, e)["entries"] != float64(1) || detail(t, e)["analyst"] != "bob" {
		t.Errorf("the export's entry: %+v", e)
	}
}

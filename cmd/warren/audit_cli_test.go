package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/service/audit"
)

// Two analysts search; the trail lists them, filtered by analyst and time, as JSON and CSV.
func TestAuditListsFiltersAndExports(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	for _, who := range []string{"ana", "bob"} {
		env := []string{"USER=" + who, "WARREN_KB_EMBEDDER=builtin"}
		// Nothing is ingested: the search fails, and is on record as failed.
		warren(t, env, "--workspace", ws, "--ollama-host", "127.0.0.1:9", "search", "arsine "+who)
	}
	entries := func(args ...string) []audit.Entry {
		t.Helper()
		r := warren(t, nil, append([]string{"--workspace", ws, "audit", "--json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("audit %v: %+v", args, r)
		}
		var es []audit.Entry
		if err := json.Unmarshal([]byte(r.stdout), &es); err != nil {
			t.Fatalf("audit --json %v: %v\n%s", args, err, r.stdout)
		}
		return es
	}
	all := entries()
	if len(all) != 2 || all[0].Analyst != "ana" || all[1].Analyst != "bob" || all[0].Action != audit.ActionSearch {
		t.Fatalf("the trail: %+v", all)
	}
	if es := entries("--analyst", "bob"); len(es) != 1 || !strings.Contains(es[0].Detail, "arsine bob") {
		t.Errorf("--analyst bob: %+v", es)
	}
	if es := entries("--since", "1h"); len(es) != 2 {
		t.Errorf("--since 1h: %+v", es)
	}
	if es := entries("--since", "2999-01-01"); len(es) != 0 {
		t.Errorf("--since 2999-01-01: %+v", es)
	}
	if es := entries("--limit", "1"); len(es) != 1 || es[0].Analyst != "bob" {
		t.Errorf("--limit 1: %+v", es)
	}
	if r := warren(t, nil, "--workspace", ws, "audit", "--since", "yesterday"); r.code != 2 {
		t.Errorf("--since yesterday: %+v", r)
	}

	r := warren(t, nil, "--workspace", ws, "audit")
	if r.code != 0 || !strings.Contains(r.stdout, "ANALYST") || !strings.Contains(r.stdout, "bob") {
		t.Errorf("the table: %+v", r)
	}

	file := filepath.Join(t.TempDir(), "trail.csv")
	if r := warren(t, nil, "--workspace", ws, "audit", "--csv", file); r.code != 0 {
		t.Fatalf("--csv: %+v", r)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("the CSV: %v", err)
	}
	if len(rows) != 3 || strings.Join(rows[0], ",") != "seq,at,analyst,action,target,outcome,detail" || rows[2][2] != "bob" {
		t.Errorf("the CSV: %q", rows)
	}
	// The export is itself in the trail, after what it wrote.
	r = warren(t, nil, "--workspace", ws, "audit", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"action": "export"`) || !strings.Contains(r.stdout, "trail.csv") {
		t.Errorf("the trail after --csv: %+v", r)
	}
}

package schema

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"warren/kb"
)

// The versions and names are what existing workspaces recorded in schema_migrations; a step
// that changed its version would run again on every one of them.
func TestAllListsEveryStepOnceInAscendingOrder(t *testing.T) {
	want := []kb.Migration{
		{Version: 1, Name: "meta"},
		{Version: 2, Name: "knowledge base"},
		{Version: 3, Name: "lexical statistics"},
		{Version: 4, Name: "lexical stamp"},
		{Version: 5, Name: "chunks name their page"},
		{Version: 6, Name: "documents keep their file's size and time"},
		{Version: 7, Name: "lexical index version"},
		{Version: 10, Name: "runs and checkpoints"},
		{Version: 11, Name: "ledger and call journal"},
		{Version: 12, Name: "ledger names the host"},
		{Version: 20, Name: "gas tables"},
		{Version: 21, Name: "gas decisions"},
		{Version: 22, Name: "gas fill runs"},
		{Version: 23, Name: "gas decisions name the analyst"},
		{Version: 24, Name: "gas cells name their source's page"},
		{Version: 30, Name: "toxicology profile versions"},
		{Version: 31, Name: "toxicology versions are append-only"},
		{Version: 32, Name: "toxicology versions name the analyst"},
		{Version: 40, Name: "jobs"},
		{Version: 41, Name: "job events"},
		{Version: 42, Name: "job cancel requests"},
		{Version: 43, Name: "job pace"},
		{Version: 50, Name: "knowledge base copy checkpoints"},
		{Version: 60, Name: "audit trail"},
		{Version: 70, Name: "access grants"},
	}
	all := All()
	for i, m := range all {
		if i > 0 && m.Version <= all[i-1].Version {
			t.Errorf("step %d (%s) follows %d (%s): versions must be unique and ascending", m.Version, m.Name, all[i-1].Version, all[i-1].Name)
		}
		if m.SQL == "" {
			t.Errorf("step %d (%s) has no SQL", m.Version, m.Name)
		}
	}
	if len(all) != len(want) {
		t.Fatalf("%d steps, want %d", len(all), len(want))
	}
	for i := range want {
		if all[i].Version != want[i].Version || all[i].Name != want[i].Name {
			t.Errorf("step %d is %d %q, want %d %q", i, all[i].Version, all[i].Name, want[i].Version, want[i].Name)
		}
	}
	// All returns a fresh slice each time: a caller appending to it changes no one else's list.
	all[0].Name = "changed"
	if All()[0].Name != "meta" {
		t.Error("All shares its slice with its callers")
	}
}

// A workspace made before the toxicology store and jobs existed opens with the full list: the
// missing steps are applied, the ones it has are left as they were, and its data stays.
func TestOpeningAnOldDatabaseAppliesOnlyTheMissingSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), kb.DBFileName)
	old := slices.DeleteFunc(All(), func(m kb.Migration) bool { return m.Version >= 30 })
	db, err := kb.OpenDB(path, old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO gas_tables (name, columns, imported_at) VALUES ('gases', '[]', '2025-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	before := appliedSteps(t, db)
	db.Close()

	db, err = kb.OpenDB(path, All())
	if err != nil {
		t.Fatalf("opening the old database with every step: %v", err)
	}
	defer db.Close()
	after := appliedSteps(t, db)
	for v, at := range before {
		if after[v] != at {
			t.Errorf("step %d was applied again (%s, then %s)", v, at, after[v])
		}
	}
	var added []int
	for v := range after {
		if _, ok := before[v]; !ok {
			added = append(added, v)
		}
	}
	slices.Sort(added)
	if !slices.Equal(added, []int{30, 31, 32, 40, 41, 42, 43, 50, 60, 70}) {
		t.Errorf("steps applied on reopening: %v, want [30 31 32 40 41 42 43 50 60 70]", added)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM gas_tables`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the old gas table: %d rows, %v", n, err)
	}
	for _, table := range []string{"tox_versions", "jobs", "kb_copies", "audit", "access_grants"} {
		if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Errorf("%s after reopening: %v", table, err)
		}
	}
}

// appliedSteps maps each applied version to when it was applied.
func appliedSteps(t *testing.T, db *sql.DB) map[int]string {
	t.Helper()
	rows, err := db.Query(`SELECT version, applied_at FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	steps := map[int]string{}
	for rows.Next() {
		var v int
		var at string
		if err := rows.Scan(&v, &at); err != nil {
			t.Fatal(err)
		}
		steps[v] = at
	}
	return steps
}

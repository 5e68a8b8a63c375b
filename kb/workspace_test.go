package kb

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"warren/config"
)

func TestInitCreatesEveryPartAndOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	res, err := Init(dir, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"warren.toml", "registry.json", "vectors/", "exports/", "inbox/", "warren.db"}
	if strings.Join(res.Created, ",") != strings.Join(want, ",") || len(res.Existing) != 0 {
		t.Fatalf("created %v existing %v", res.Created, res.Existing)
	}
	ws, err := Open(dir, config.Sources{}, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Config.Chat.Model != "qwen3:8b" {
		t.Errorf("config not loaded: %+v", ws.Config.Chat)
	}
	var mode string
	if err := ws.DB.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q %v", mode, err)
	}
	var steps int
	ws.DB.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&steps)
	if steps != len(Migrations) {
		t.Errorf("want %d schema steps applied, got %d", len(Migrations), steps)
	}
	if reg, err := ws.Registry(); err != nil || reg.DocumentCount() != 0 {
		t.Errorf("empty registry expected: %v", err)
	}
}

func TestInitKeepsEditedFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir, Migrations); err != nil {
		t.Fatal(err)
	}
	edited := "[models.chat]\nmodel = \"llama3.1:8b\"\n"
	os.WriteFile(filepath.Join(dir, config.FileName), []byte(edited), 0o644)
	os.RemoveAll(filepath.Join(dir, ExportsDir))
	res, err := Init(dir, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Created, ",") != "exports/" {
		t.Errorf("only the missing folder should be created, got %v", res.Created)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, config.FileName)); string(got) != edited {
		t.Errorf("an edited config was overwritten: %q", got)
	}
}

func TestOpenWithoutWorkspaceSaysHowToCreateOne(t *testing.T) {
	_, err := Open(t.TempDir(), config.Sources{}, Migrations)
	if !errors.Is(err, ErrNoWorkspace) || !strings.Contains(err.Error(), "warren init") {
		t.Fatalf("got %v", err)
	}
}

func TestOpenReportsInvalidConfig(t *testing.T) {
	dir := t.TempDir()
	Init(dir, Migrations)
	os.WriteFile(filepath.Join(dir, config.FileName), []byte("[ollama]\nretries = -3\n"), 0o644)
	_, err := Open(dir, config.Sources{}, Migrations)
	var ve *config.ValueError
	if !errors.As(err, &ve) || ve.Key != "ollama.retries" {
		t.Fatalf("want a ValueError for ollama.retries, got %v", err)
	}
}

func TestOpenDBRejectsGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644)
	if _, err := OpenDB(path, Migrations); err == nil {
		t.Fatal("a file that is not SQLite must be refused")
	}
	if got, _ := os.ReadFile(path); !strings.HasPrefix(string(got), "not a database") {
		t.Error("the refused file must be left as it was")
	}
}

func TestWorkspacePathWithURISpecialCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab #2 50% ready?")
	if _, err := Init(dir, Migrations); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFileName)); err != nil {
		t.Fatalf("the database must be created inside the workspace folder: %v", err)
	}
	ws, err := Open(dir, config.Sources{}, Migrations)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var mode string
	if ws.DB.QueryRow("PRAGMA journal_mode").Scan(&mode); mode != "wal" {
		t.Errorf("pragmas lost: journal mode %q", mode)
	}
}

// An existing database gets only the steps it lacks: the ones it applied are neither run again
// (their CREATE TABLE would fail) nor recorded again, and their data stays.
func TestOpenDBAppliesOnlyTheMissingSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	old := []Migration{
		{Version: 1, Name: "first", SQL: `CREATE TABLE first (x TEXT)`},
		{Version: 5, Name: "second", SQL: `CREATE TABLE second (x TEXT)`},
	}
	db, err := OpenDB(path, old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO first VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	var appliedAt string
	db.QueryRow(`SELECT applied_at FROM schema_migrations WHERE version = 1`).Scan(&appliedAt)
	db.Close()

	newer := append(slices.Clone(old),
		Migration{Version: 7, Name: "third", SQL: `CREATE TABLE third (x TEXT)`},
		Migration{Version: 12, Name: "fourth", SQL: `ALTER TABLE first ADD COLUMN y TEXT NOT NULL DEFAULT 'new'`})
	db, err = OpenDB(path, newer)
	if err != nil {
		t.Fatalf("reopening with two more steps: %v", err)
	}
	defer db.Close()
	var versions []int
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		rows.Scan(&v)
		versions = append(versions, v)
	}
	rows.Close()
	if !slices.Equal(versions, []int{1, 5, 7, 12}) {
		t.Errorf("applied steps %v, want [1 5 7 12]", versions)
	}
	var again string
	db.QueryRow(`SELECT applied_at FROM schema_migrations WHERE version = 1`).Scan(&again)
	if again != appliedAt {
		t.Errorf("step 1 was recorded again: %q, then %q", appliedAt, again)
	}
	var x, y string
	if err := db.QueryRow(`SELECT x, y FROM first`).Scan(&x, &y); err != nil || x != "kept" || y != "new" {
		t.Errorf("the old table's row after the new step: %q %q %v", x, y, err)
	}
	if _, err := db.Exec(`INSERT INTO third VALUES ('ok')`); err != nil {
		t.Errorf("the new table is missing: %v", err)
	}

	// A list without a step the database already has (an older binary, a package's test)
	// opens it and leaves that step alone.
	db2, err := OpenDB(path, old[:1])
	if err != nil {
		t.Fatalf("reopening with fewer steps: %v", err)
	}
	db2.Close()
}

func TestOpenDBRefusesAListOutOfOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	for name, list := range map[string][]Migration{
		"twice":      {{Version: 1, Name: "a", SQL: `CREATE TABLE a (x)`}, {Version: 1, Name: "b", SQL: `CREATE TABLE b (x)`}},
		"descending": {{Version: 2, Name: "a", SQL: `CREATE TABLE a (x)`}, {Version: 1, Name: "b", SQL: `CREATE TABLE b (x)`}},
	} {
		if db, err := OpenDB(path, list); err == nil {
			db.Close()
			t.Errorf("%s: a list with steps %d, %d must be refused", name, list[0].Version, list[1].Version)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused list must not create the database")
	}
}

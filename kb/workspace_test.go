package kb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/config"
)

func TestInitCreatesEveryPartAndOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	res, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"warren.toml", "registry.json", "vectors/", "exports/", "warren.db"}
	if strings.Join(res.Created, ",") != strings.Join(want, ",") || len(res.Existing) != 0 {
		t.Fatalf("created %v existing %v", res.Created, res.Existing)
	}
	ws, err := Open(dir, config.Sources{})
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
	if steps != len(migrations) {
		t.Errorf("want %d schema steps applied, got %d", len(migrations), steps)
	}
	if reg, err := ws.Registry(); err != nil || reg.DocumentCount() != 0 {
		t.Errorf("empty registry expected: %v", err)
	}
}

func TestInitKeepsEditedFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	edited := "[models.chat]\nmodel = \"llama3.1:8b\"\n"
	os.WriteFile(filepath.Join(dir, config.FileName), []byte(edited), 0o644)
	os.RemoveAll(filepath.Join(dir, ExportsDir))
	res, err := Init(dir)
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
	_, err := Open(t.TempDir(), config.Sources{})
	if !errors.Is(err, ErrNoWorkspace) || !strings.Contains(err.Error(), "warren init") {
		t.Fatalf("got %v", err)
	}
}

func TestOpenReportsInvalidConfig(t *testing.T) {
	dir := t.TempDir()
	Init(dir)
	os.WriteFile(filepath.Join(dir, config.FileName), []byte("[ollama]\nretries = -3\n"), 0o644)
	_, err := Open(dir, config.Sources{})
	var ve *config.ValueError
	if !errors.As(err, &ve) || ve.Key != "ollama.retries" {
		t.Fatalf("want a ValueError for ollama.retries, got %v", err)
	}
}

func TestOpenDBRejectsGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644)
	if _, err := OpenDB(path); err == nil {
		t.Fatal("a file that is not SQLite must be refused")
	}
	if got, _ := os.ReadFile(path); !strings.HasPrefix(string(got), "not a database") {
		t.Error("the refused file must be left as it was")
	}
}

func TestWorkspacePathWithURISpecialCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab #2 50% ready?")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFileName)); err != nil {
		t.Fatalf("the database must be created inside the workspace folder: %v", err)
	}
	ws, err := Open(dir, config.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var mode string
	if ws.DB.QueryRow("PRAGMA journal_mode").Scan(&mode); mode != "wal" {
		t.Errorf("pragmas lost: journal mode %q", mode)
	}
}

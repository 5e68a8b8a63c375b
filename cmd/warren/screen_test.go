package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKBListShowsHostileNamesSafely: a file named with an escape sequence and a line break
// neither recolours the terminal nor breaks the table in `warren kb list`; --json keeps the
// exact name.
func TestKBListShowsHostileNamesSafely(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"}
	docs := t.TempDir()
	name := "evil\x1b[31m\nname.md"
	if err := os.WriteFile(filepath.Join(docs, name), []byte("# Red \x1b]52;c;aGVsbG8=\x07title\n\nPurge the pigtail with nitrogen.\n"), 0o644); err != nil {
		t.Skipf("the file system refuses the name: %v", err)
	}
	if r := warren(t, env, "ingest", docs, "--collection", "standards"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}

	r := warren(t, env, "kb", "list")
	if r.code != 0 {
		t.Fatalf("kb list: %+v", r)
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07") {
		t.Errorf("kb list prints escape sequences: %q", r.stdout)
	}
	var row string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "evil") {
			row = l
		}
	}
	if !strings.Contains(row, "evil⏎name.md") || !strings.Contains(row, "standards") {
		t.Errorf("the document's row is broken; want evil⏎name.md with its collection on one line:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\nname.md") {
		t.Errorf("the name's line break starts a row of its own:\n%s", r.stdout)
	}

	r = warren(t, env, "kb", "list", "--json")
	var list struct{ Documents []struct{ ID, Title string } }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Documents) != 1 {
		t.Fatalf("kb list --json: %v %+v", err, r)
	}
	if got := list.Documents[0].ID; got != filepath.Base(docs)+"/"+name {
		t.Errorf("--json changed the name: %q", got)
	}

	// The search output names the document and quotes its text: neither drives the terminal.
	r = warren(t, env, "search", "purge pigtail nitrogen")
	if r.code != 0 || strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, "evil⏎name.md") {
		t.Errorf("search: %+v", r)
	}
}

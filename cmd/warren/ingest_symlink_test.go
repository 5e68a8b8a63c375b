package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
)

// `warren ingest DIR` does not follow DIR/x.md → a file outside DIR: it is reported skipped,
// naming --follow-symlinks, which ingests it.
func TestIngestOfAnOutwardSymlink(t *testing.T) {
	cases := []struct {
		name   string
		flags  []string
		code   int
		status string // of docs/passwd.md
		reason string
	}{
		{"skipped without the flag", nil, cli.ExitPartial, "skipped", "--follow-symlinks"},
		{"ingested with --follow-symlinks", []string{"--follow-symlinks"}, 0, "ingested", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"WARREN_WORKSPACE=" + t.TempDir(), noOllama}
			if r := warren(t, env, "init"); r.code != 0 {
				t.Fatalf("init: %+v", r)
			}
			docs := filepath.Join(t.TempDir(), "docs")
			os.MkdirAll(docs, 0o755)
			os.WriteFile(filepath.Join(docs, "purge.md"), []byte("# Purge\n\nPurge the pigtail with nitrogen.\n"), 0o644)
			secret := filepath.Join(t.TempDir(), "passwd")
			os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
			if err := os.Symlink(secret, filepath.Join(docs, "passwd.md")); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			args := append([]string{"ingest", docs, "--embedder", "builtin", "--json"}, tc.flags...)
			r := warren(t, env, args...)
			var rep struct {
				Files []struct{ Doc, Status, Reason string }
			}
			if r.code != tc.code || json.Unmarshal([]byte(r.stdout), &rep) != nil {
				t.Fatalf("exit %d, want %d: %+v", r.code, tc.code, r)
			}
			found := false
			for _, f := range rep.Files {
				if f.Doc == "docs/passwd.md" {
					found = true
					if f.Status != tc.status || !strings.Contains(f.Reason, tc.reason) {
						t.Errorf("passwd.md: %s %q, want %s %q", f.Status, f.Reason, tc.status, tc.reason)
					}
				}
			}
			if !found {
				t.Errorf("passwd.md not reported: %s", r.stdout)
			}
		})
	}
	r := warren(t, []string{"WARREN_WORKSPACE=" + t.TempDir(), noOllama}, "ingest", "--registry", "r.json", "--follow-symlinks")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--follow-symlinks") {
		t.Errorf("--follow-symlinks with --registry is a usage error: %+v", r)
	}
}

package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutsideFollowsSymlinks(t *testing.T) {
	base := t.TempDir()
	folder, elsewhere := filepath.Join(base, "reg"), filepath.Join(base, "elsewhere")
	for _, f := range []string{filepath.Join(folder, "in", "doc.md"), filepath.Join(elsewhere, "secret.md")} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(folder, "link.md"):     filepath.Join(elsewhere, "secret.md"),
		filepath.Join(folder, "linkdir"):     elsewhere,
		filepath.Join(folder, "inlink.md"):   filepath.Join("in", "doc.md"),
		filepath.Join(base, "reg-link"):      folder, // the registry's folder reached through a link
		filepath.Join(folder, "in", "up.md"): filepath.Join("..", "..", "elsewhere", "secret.md"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	cases := []struct {
		dir, path string
		outside   bool
	}{
		{folder, "in/doc.md", false},
		{folder, "link.md", true},
		{folder, "linkdir/secret.md", true},
		{folder, "linkdir/missing.md", true}, // missing, but its folder leads out
		{folder, "in/up.md", true},
		{folder, "inlink.md", false},
		{folder, "missing.md", false}, // Check reports it missing
		{filepath.Join(base, "reg-link"), "in/doc.md", false},
		{filepath.Join(base, "reg-link"), "link.md", true},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := &Registry{Collections: map[string]*Collection{
				"a": {Documents: []Document{{Path: tc.path, Title: "T"}}},
			}}
			problems := r.Outside(tc.dir)
			if got := len(problems) > 0; got != tc.outside {
				t.Fatalf("%s from %s: outside %v, want %v (%v)", tc.path, tc.dir, got, tc.outside, problems)
			}
			if tc.outside && (problems[0].Kind != ProblemOutside || !strings.Contains(problems[0].Detail, "symbolic link")) {
				t.Errorf("problem %v should say it leads out through a link", problems[0])
			}
		})
	}
}

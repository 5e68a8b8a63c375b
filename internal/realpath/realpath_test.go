package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	cases := []struct {
		path, dir string
		want      bool
	}{
		{"/srv/ws/inbox/x.md", "/srv/ws/inbox", true},
		{"/srv/ws/inbox", "/srv/ws/inbox", true},
		{"/srv/ws/inbox/../serve/key", "/srv/ws/inbox", false},
		{"/srv/ws/inbox-old/x.md", "/srv/ws/inbox", false},
		{"/srv/ws/..hidden", "/srv/ws", true},
		{"/etc/passwd", "/srv/ws", false},
	}
	for _, tc := range cases {
		if got := Within(tc.path, tc.dir); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestResolveAndOfOpen(t *testing.T) {
	dir := t.TempDir()
	real, _ := filepath.EvalSymlinks(dir)
	os.MkdirAll(filepath.Join(dir, "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, "etc", "passwd"), []byte("x"), 0o644)
	for link, target := range map[string]string{"link": filepath.Join(dir, "etc"), "file.md": filepath.Join(dir, "etc", "passwd")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "link", "passwd"), filepath.Join(real, "etc", "passwd")},
		{filepath.Join(dir, "link", "missing", "x.md"), filepath.Join(real, "etc", "missing", "x.md")},
		{filepath.Join(dir, "file.md"), filepath.Join(real, "etc", "passwd")},
	}
	for _, tc := range cases {
		if got, err := Resolve(tc.path); err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q %v, want %q", tc.path, got, err, tc.want)
		}
	}
	f, err := os.Open(filepath.Join(dir, "file.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := OfOpen(f, f.Name()); err != nil || got != filepath.Join(real, "etc", "passwd") {
		t.Errorf("OfOpen = %q %v", got, err)
	}
}

package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/kb"
)

// A registry entry that is a link to a file outside the registry's folder is outside it; a
// document swapped for such a link after the check is skipped when it is read.
func TestIngestRegistryFollowsSymlinksOut(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	secret := filepath.Join(elsewhere, "secret.md")
	for path, text := range map[string]string{
		filepath.Join(dir, "a.md"): "# A\n\nalpha",
		secret:                     "# Secret\n\noutsidesecret",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.md")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	linked := write("linked.json", `{"collections": {"general": {"documents": [{"path": "link.md", "title": "L"}]}}}`)
	var refused *RegistryRefusal
	if _, _, err := IngestRegistry(linked, false); !errors.As(err, &refused) || !refused.Outside || !strings.Contains(refused.Problems[0].Detail, "symbolic link") {
		t.Fatalf("a link out of the folder: %v", err)
	}
	if _, items, err := IngestRegistry(linked, true); err != nil || len(items) != 1 || items[0].Within != "" {
		t.Fatalf("outside allowed: %+v %v", items, err)
	}

	sound := write("sound.json", `{"collections": {"general": {"documents": [{"path": "a.md", "title": "A"}]}}}`)
	reg, items, err := IngestRegistry(sound, false)
	if err != nil || len(items) != 1 || items[0].Within == "" {
		t.Fatalf("%+v %v", items, err)
	}
	os.Remove(filepath.Join(dir, "a.md"))
	if err := os.Symlink(secret, filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	s := openService(t)
	rep, err := s.Knowledge().Ingest(context.Background(), items, IngestOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingested != 0 || rep.Files[0].Status != kb.StatusSkipped || !strings.Contains(rep.Files[0].Reason, "leads out of the folder") {
		t.Errorf("a document swapped for a link out: %+v", rep.Files)
	}
}

// A registry named by a relative path (as `warren ingest --registry sample/registry.json` is)
// reads its documents: the folder they must lie in is resolved to an absolute path, as the
// opened files' real paths are.
func TestIngestRegistryByARelativePathReadsItsDocuments(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "reg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{
		filepath.Join(dir, "reg", "a.md"):          "# A\n\nalpha relativeword",
		filepath.Join(dir, "reg", "registry.json"): `{"collections": {"general": {"documents": [{"path": "a.md", "title": "A"}]}}}`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openService(t)
	t.Chdir(dir)
	reg, items, err := IngestRegistry(filepath.Join("reg", "registry.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Knowledge().Ingest(context.Background(), items, IngestOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingested != 1 {
		t.Fatalf("a registry named relatively ingested %d documents: %+v", rep.Ingested, rep.Files)
	}
}

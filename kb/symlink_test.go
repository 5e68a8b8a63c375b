package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"warren/kb/load"
)

// linkedTree is a folder docs/ with a note and links of every kind, beside an outside folder
// that stands for /etc: docs/passwd.md → outside/secret.md, docs/ext → outside/more/.
func linkedTree(t *testing.T) (docs, outside string) {
	t.Helper()
	dir := t.TempDir()
	docs, outside = filepath.Join(dir, "docs"), filepath.Join(dir, "outside")
	write(t, docs, "note.md", silaneSheet)
	write(t, outside, "secret.md", "# Secret\n\nroot:x:0:0:the server's own file\n")
	write(t, outside, "more/other.md", "# Other\n\nA document kept elsewhere.\n")
	for link, target := range map[string]string{
		"passwd.md":   filepath.Join(outside, "secret.md"),
		"ext":         filepath.Join(outside, "more"),
		"same.md":     "note.md",
		"loop":        ".",
		"dangling.md": filepath.Join(outside, "missing.md"),
	} {
		if err := os.Symlink(target, filepath.Join(docs, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	return docs, outside
}

func TestCollectItemsSymlinks(t *testing.T) {
	docs, _ := linkedTree(t)
	real, _ := filepath.EvalSymlinks(docs)
	cases := []struct {
		name string
		opts CollectOptions
		want map[string]string // ID → part of the skip reason ("" collected)
	}{
		{"links out are skipped by default", CollectOptions{}, map[string]string{
			"docs/note.md":     "",
			"docs/passwd.md":   "--follow-symlinks",
			"docs/ext":         "--follow-symlinks",
			"docs/same.md":     "within the folder",
			"docs/loop":        "within the folder",
			"docs/dangling.md": "leads nowhere",
		}},
		{"--follow-symlinks reads them, a linked folder walked", CollectOptions{FollowSymlinks: true}, map[string]string{
			"docs/note.md":      "",
			"docs/passwd.md":    "",
			"docs/ext/other.md": "",
			"docs/same.md":      "within the folder",
			"docs/loop":         "within the folder",
			"docs/dangling.md":  "leads nowhere",
		}},
		{"confined, following stops at the folders allowed", CollectOptions{FollowSymlinks: true, Confine: []string{real}}, map[string]string{
			"docs/note.md":     "",
			"docs/passwd.md":   "outside the folders this ingest may read",
			"docs/ext":         "outside the folders this ingest may read",
			"docs/same.md":     "within the folder",
			"docs/loop":        "within the folder",
			"docs/dangling.md": "leads nowhere",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, err := CollectItemsWith([]string{docs}, "general", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, it := range items {
				got[it.ID] = it.Skip
				want, ok := tc.want[it.ID]
				switch {
				case !ok:
					t.Errorf("unexpected item %s (skip %q)", it.ID, it.Skip)
				case want == "" && it.Skip != "", want != "" && !strings.Contains(it.Skip, want):
					t.Errorf("%s: skip %q, want %q", it.ID, it.Skip, want)
				}
				if wantWithin := !tc.opts.FollowSymlinks; (it.Within != "") != wantWithin {
					t.Errorf("%s: within %q; without following it should be the folder", it.ID, it.Within)
				}
			}
			for id := range tc.want {
				if _, ok := got[id]; !ok {
					t.Errorf("%s was not collected", id)
				}
			}
		})
	}
}

func TestCollectItemsConfinedRefusesAPathGivenOutside(t *testing.T) {
	docs, outside := linkedTree(t)
	real, _ := filepath.EvalSymlinks(docs)
	_, err := CollectItemsWith([]string{filepath.Join(docs, "passwd.md")}, "general", CollectOptions{Confine: []string{real}})
	if !errors.Is(err, load.ErrOutside) {
		t.Fatalf("a link given outside the folders allowed: %v", err)
	}
	if _, err := CollectItemsWith([]string{filepath.Join(outside, "secret.md")}, "general", CollectOptions{}); err != nil {
		t.Fatalf("unconfined, a path given is read wherever it is: %v", err)
	}
}

func TestIngestOfAnOutwardSymlink(t *testing.T) {
	cases := []struct {
		name   string
		follow bool
		want   []string // documents stored
	}{
		{"skipped, with the flag to use", false, []string{"docs/note.md"}},
		{"ingested with --follow-symlinks", true, []string{"docs/ext/other.md", "docs/note.md", "docs/passwd.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, store := openTestStore(t)
			docs, _ := linkedTree(t)
			items, err := CollectItemsWith([]string{docs}, "general", CollectOptions{FollowSymlinks: tc.follow})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := store.Ingest(context.Background(), items, IngestOptions{Embedder: Builtin{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Files {
				if f.Doc == "docs/passwd.md" && !tc.follow && (f.Status != StatusSkipped || !strings.Contains(f.Reason, "--follow-symlinks")) {
					t.Errorf("passwd.md: %s %q", f.Status, f.Reason)
				}
			}
			stored, _ := store.Documents(context.Background(), "")
			var ids []string
			for _, d := range stored {
				ids = append(ids, d.ID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("stored %v, want %v", ids, tc.want)
			}
		})
	}
}

// A file checked while collecting and swapped for a link out before it is read is refused:
// the check is made on the open file.
func TestLoadChecksTheOpenFile(t *testing.T) {
	docs, outside := linkedTree(t)
	real, _ := filepath.EvalSymlinks(docs)
	secret := filepath.Join(outside, "secret.md")
	swap := func(t *testing.T, path string) {
		t.Helper()
		os.Remove(path)
		if err := os.Symlink(secret, path); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("walked without following, swapped before the ingest", func(t *testing.T) {
		_, store := openTestStore(t)
		items, err := CollectItems([]string{docs}, "general")
		if err != nil {
			t.Fatal(err)
		}
		swap(t, filepath.Join(docs, "note.md"))
		rep, err := store.Ingest(context.Background(), items, IngestOptions{Embedder: Builtin{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Files {
			if f.Doc == "docs/note.md" && (f.Status != StatusSkipped || !strings.Contains(f.Reason, "leads out of the folder")) {
				t.Errorf("note.md swapped for a link out: %s %q", f.Status, f.Reason)
			}
		}
		if rep.Ingested != 0 {
			t.Errorf("nothing should be stored: %+v", rep.Files)
		}
	})
	cases := []struct {
		name string
		path func(t *testing.T) string
	}{
		{"a link out", func(t *testing.T) string { return filepath.Join(docs, "passwd.md") }},
		{"a folder document whose section leads out", func(t *testing.T) string {
			law := filepath.Join(docs, "law")
			write(t, law, "paragraphs/0001.md", "---\nnumber: \"§ 1\"\nheading: Scope\n---\n# § 1 Scope\n\nText.\n")
			if err := os.Symlink(secret, filepath.Join(law, "paragraphs", "0002.md")); err != nil {
				t.Fatal(err)
			}
			return law
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load.Load(tc.path(t), load.LoadOptions{Confine: []string{real}})
			if !errors.Is(err, load.ErrOutside) {
				t.Fatalf("got %v", err)
			}
		})
	}
	t.Run("a text file replaced between load and reading", func(t *testing.T) {
		path := write(t, docs, "log.txt", "first version\n")
		doc, err := load.Load(path, load.LoadOptions{Confine: []string{real}})
		if err != nil {
			t.Fatal(err)
		}
		next := write(t, docs, "next.txt", "another file\n")
		if err := os.Rename(next, path); err != nil {
			t.Fatal(err)
		}
		if err := doc.EachSection(func(load.Section) error { return nil }); err == nil || !strings.Contains(err.Error(), "replaced") {
			t.Fatalf("got %v", err)
		}
	})
}

// A folder named by a relative path (as `warren ingest sample/internal` names it) is read:
// the folder its files must stay in is absolute, as the real paths of the opened files are.
func TestAFolderNamedRelativelyIsRead(t *testing.T) {
	docs, _ := linkedTree(t)
	t.Chdir(filepath.Dir(docs))
	items, err := CollectItems([]string{"docs"}, "general")
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, it := range items {
		if it.Skip != "" {
			continue
		}
		if _, err := load.Load(it.Path, load.LoadOptions{Within: it.Within}); err != nil {
			t.Errorf("%s (within %q): %v", it.Path, it.Within, err)
			continue
		}
		read++
	}
	if read == 0 {
		t.Fatalf("nothing of docs/ was read: %+v", items)
	}
}

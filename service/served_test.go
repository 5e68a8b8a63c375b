package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/kb"
	"warren/retrieval"
)

// servedWorkspace is a workspace with a note in its inbox, a dummy host key in serve/, and
// links in the inbox to that key and to a file outside the workspace.
func servedWorkspace(t *testing.T) *Service {
	t.Helper()
	s := openService(t)
	ws := s.ws.Dir
	files := map[string]string{
		filepath.Join(ws, "inbox", "note.md"):         "# Note\n\nThe zirconium cabinet is purged weekly.\n",
		filepath.Join(ws, "inbox", "swap.md"):         "# Swap\n\nA harmless page about argon.\n",
		filepath.Join(ws, serveDir, "host_ed25519"):   "-----BEGIN OPENSSH PRIVATE KEY-----\nhostkeysecret\n",
		filepath.Join(t.TempDir(), "outside", "x.md"): "# Outside\n\noutsidesecret\n",
	}
	var outside string
	for path, text := range files {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, "x.md") {
			outside = path
		}
	}
	for link, target := range map[string]string{
		"hostkey.md":        filepath.Join("..", serveDir, "host_ed25519"),
		"out.md":            outside,
		"sub/deep-key.md":   filepath.Join(ws, serveDir, "host_ed25519"),
		"sub/same-note.md":  filepath.Join("..", "note.md"),
		"serve-folder-link": filepath.Join(ws, serveDir),
	} {
		path := filepath.Join(ws, "inbox", link)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.Symlink(target, path); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	return s
}

// searchable reports whether a word is found in the knowledge base.
func searchable(t *testing.T, s *Service, word string) bool {
	t.Helper()
	res, err := s.Knowledge().Search(context.Background(), retrieval.Request{Query: word, K: 5, Mode: retrieval.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.Contains(r.Text, word) {
			return true
		}
	}
	return false
}

func TestServedIngestRefusesPathsOutsideTheRoots(t *testing.T) {
	s := servedWorkspace(t)
	ws := s.ws.Dir
	alice, lead := s.As("alice", false).Served(), s.As("lead", true).Served()
	cases := []struct {
		name, path, why string
	}{
		{"an absolute path", "/etc/passwd", "an absolute path"},
		{"the host key by its server path", filepath.Join(ws, serveDir, "host_ed25519"), "an absolute path"},
		{"climbing out of the inbox", "inbox/../serve/host_ed25519", `climbs out with ".."`},
		{"climbing out from the start", "../serve/host_ed25519", `climbs out with ".."`},
		{"a folder that is no root", "serve/host_ed25519", "must begin with the name of one"},
		{"a link in the inbox to the host key", "inbox/hostkey.md", "a symbolic link leads out"},
		{"a link deeper in to the host key", "inbox/sub/deep-key.md", "a symbolic link leads out"},
		{"a link to the serve folder", "inbox/serve-folder-link/host_ed25519", "a symbolic link leads out"},
		{"a link to a file outside the workspace", "inbox/out.md", "a symbolic link leads out"},
		{"nothing", " ", "no path given"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := alice.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{tc.path}, Collection: "general"})
			if !errors.Is(err, ErrOutsideIngestRoots) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("got %v, want ErrOutsideIngestRoots saying %q", err, tc.why)
			}
			if msg := err.Error(); !strings.Contains(msg, "only inbox/ may be ingested from, e.g. inbox/report.pdf") || strings.Contains(msg, filepath.Join(ws, "inbox")) {
				t.Errorf("an analyst is told the folders by name, not server path: %s", msg)
			}
			_, err = lead.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{tc.path}, Collection: "general"})
			if !errors.Is(err, ErrOutsideIngestRoots) || !strings.Contains(err.Error(), "inbox/ ("+filepath.Join(ws, "inbox")+")") {
				t.Errorf("an admin is told the server path too: %v", err)
			}
		})
	}
	if searchable(t, s, "hostkeysecret") || searchable(t, s, "outsidesecret") {
		t.Error("a refused file was ingested")
	}
}

// A served analyst names what to ingest by path, which the ingest roots confine: items, which
// would name server files directly, are refused and nothing is read.
func TestServedIngestTakesPathsOnly(t *testing.T) {
	s := servedWorkspace(t)
	alice := s.As("alice", false).Served()
	items := []kb.Item{{Path: filepath.Join(s.ws.Dir, serveDir, "host_ed25519"), ID: "key", Collection: "general"}}
	if rep, err := alice.Knowledge().Ingest(context.Background(), items, IngestOptions{}); !errors.Is(err, ErrOutsideIngestRoots) || rep != nil {
		t.Fatalf("items on a served view: %+v %v", rep, err)
	}
	if searchable(t, s, "hostkeysecret") {
		t.Error("the host key was ingested")
	}
}

func TestServedIngestOfTheInbox(t *testing.T) {
	s := servedWorkspace(t)
	alice := s.As("alice", false).Served()
	ctx := context.Background()

	rep, err := alice.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/note.md"}, Collection: "general"})
	if err != nil || rep.Ingested != 1 || rep.Files[0].Path != "inbox/note.md" {
		t.Fatalf("a file in the inbox: %+v %v", rep, err)
	}
	if !searchable(t, s, "zirconium") {
		t.Error("the note should be searchable")
	}

	// The whole inbox: links out are skipped with their reason, named as the analyst does.
	rep, err = alice.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox"}, Collection: "general"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"inbox/note.md":           "",
		"inbox/swap.md":           "",
		"inbox/hostkey.md":        "outside the folders this ingest may read",
		"inbox/out.md":            "outside the folders this ingest may read",
		"inbox/sub/deep-key.md":   "outside the folders this ingest may read",
		"inbox/serve-folder-link": "outside the folders this ingest may read",
		"inbox/sub/same-note.md":  "within the folder",
	}
	for _, f := range rep.Files {
		reason, ok := want[f.Path]
		switch {
		case !ok:
			t.Errorf("unexpected %s (%s %q)", f.Path, f.Status, f.Reason)
		case reason == "" && f.Status != kb.StatusIngested && f.Status != kb.StatusUnchanged:
			t.Errorf("%s: %s %q", f.Path, f.Status, f.Reason)
		case reason != "" && (f.Status != kb.StatusSkipped || !strings.Contains(f.Reason, reason)):
			t.Errorf("%s: %s %q, want skipped for %q", f.Path, f.Status, f.Reason, reason)
		}
		if strings.Contains(f.Path+f.Reason, s.ws.Dir) {
			t.Errorf("a server path reached the analyst: %+v", f)
		}
	}
	if len(rep.Files) != len(want) {
		t.Errorf("files %+v", rep.Files)
	}
	if searchable(t, s, "hostkeysecret") || searchable(t, s, "outsidesecret") {
		t.Error("a link out of the inbox was followed")
	}
}

// A file swapped for a link to the host key after it was checked and before it is read is
// refused: the check is made again on the open file.
func TestServedIngestChecksTheOpenFile(t *testing.T) {
	s := servedWorkspace(t)
	alice := s.As("alice", false).Served()
	items, opts, err := alice.servedItems([]string{"inbox/swap.md"}, "general")
	if err != nil || len(items) != 1 {
		t.Fatalf("%+v %v", items, err)
	}
	swap := filepath.Join(s.ws.Dir, "inbox", "swap.md")
	os.Remove(swap)
	if err := os.Symlink(filepath.Join(s.ws.Dir, serveDir, "host_ed25519"), swap); err != nil {
		t.Fatal(err)
	}
	rep, err := alice.ingestJob(context.Background(), items, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingested != 0 || rep.Files[0].Status != kb.StatusSkipped || !strings.Contains(rep.Files[0].Reason, "outside the folders") ||
		rep.Files[0].Path != "inbox/swap.md" {
		t.Errorf("report %+v", rep.Files)
	}
	if searchable(t, s, "hostkeysecret") {
		t.Error("the host key was ingested")
	}
}

func TestServedIngestRootsMisconfigured(t *testing.T) {
	cases := []struct {
		name       string
		roots      func(ws string) []string
		analyst    string // what a non-admin is told
		admin      string // what an admin is told
		isOutside  bool
		notMissing bool
	}{
		{"no roots: ingest is off", func(string) []string { return nil },
			"ingest is off on this server", "ingest is off on this server", true, true},
		{"a missing folder", func(string) []string { return []string{"drop"} },
			"drop/: file does not exist; ask the administrator", "mkdir -m 0750", false, false},
		{"a folder that holds the workspace", func(ws string) []string { return []string{filepath.Dir(ws)} },
			"it holds the workspace", "it holds the workspace", false, true},
		{"the serve folder", func(string) []string { return []string{serveDir} },
			"lies in the workspace's serve/ folder", "lies in the workspace's serve/ folder", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := servedWorkspace(t)
			s.ws.Config.Serve.IngestRoots = tc.roots(s.ws.Dir)
			for _, v := range []struct {
				view *Service
				want string
			}{{s.As("alice", false).Served(), tc.analyst}, {s.As("lead", true).Served(), tc.admin}} {
				_, err := v.view.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{"inbox/note.md"}, Collection: "general"})
				if err == nil || !strings.Contains(err.Error(), v.want) || errors.Is(err, ErrOutsideIngestRoots) != tc.isOutside {
					t.Errorf("%s: got %v, want %q", v.view.Owner, err, v.want)
				}
			}
		})
	}
}

func TestServedViewNamesTheWorkspace(t *testing.T) {
	s := openService(t)
	cases := []struct {
		name  string
		view  *Service
		ws    string
		roots []string
	}{
		{"the local CLI", s, s.ws.Dir, nil},
		{"a view that is not served", s.As("alice", false), s.ws.Dir, nil},
		{"a served analyst", s.As("alice", false).Served(), "ws", []string{"inbox"}},
		{"a served admin", s.As("lead", true).Served(), s.ws.Dir, []string{"inbox"}},
		{"a view of a served view", s.As("alice", false).Served().As("bob", false), "ws", []string{"inbox"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.view.Workspace(); got != tc.ws {
				t.Errorf("Workspace() = %q, want %q", got, tc.ws)
			}
			if got := tc.view.Knowledge().IngestRoots(); strings.Join(got, ",") != strings.Join(tc.roots, ",") || (got == nil) != (tc.roots == nil) {
				t.Errorf("IngestRoots() = %q, want %q", got, tc.roots)
			}
		})
	}
}

// Exports go to the workspace's exports folder only, named without the server path for a
// served analyst.
func TestServedExportStaysInExports(t *testing.T) {
	s := openService(t)
	alice := s.As("alice", false).Served()
	cases := []struct {
		name, run, want string
		view            *Service
	}{
		{"served analyst", "r1", "exports/research-r1.md", alice},
		{"local", "r2", filepath.Join(s.ws.Dir, "exports", "research-r2.md"), s},
		{"a run name with a folder", "../../escape", "", alice},
		{"a run name with a folder, locally", "x/../../escape", "", s},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.view.Research().ExportReport(tc.run, "# Report\n")
			if tc.want == "" {
				if err == nil {
					t.Fatalf("%q should be refused, wrote %s", tc.run, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(s.ws.Dir, "exports", "research-"+tc.run+".md")); err != nil {
				t.Error(err)
			}
		})
	}
}

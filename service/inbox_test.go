package service

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/service/audit"
	"warren/service/grants"
)

// inboxRun is a workspace whose inbox is watched with short times while a test runs; heard
// collects what the account (which hears everything) was told.
type inboxRun struct {
	s     *Service
	inbox string
	log   *lockedBuffer
	stop  func()

	mu    sync.Mutex
	heard []Change
}

// quickInbox polls often and settles fast: the tests wait on what the watcher did, never on time.
var quickInbox = InboxOptions{Poll: 20 * time.Millisecond, Settle: 150 * time.Millisecond, Retry: time.Hour}

// startInbox opens a workspace, lets setup prepare it, and watches its inbox until the test ends.
func startInbox(t *testing.T, opts InboxOptions, setup func(s *Service)) *inboxRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	s, err := Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin"}},
		Options{Owner: "ana", Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r := &inboxRun{s: s, inbox: filepath.Join(dir, kb.InboxDir), log: log}
	if setup != nil {
		setup(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	feed := s.Team().Changes(ctx)
	go func() {
		for c := range feed {
			r.mu.Lock()
			r.heard = append(r.heard, c)
			r.mu.Unlock()
		}
	}()
	done := make(chan error, 1)
	go func() { done <- s.WatchInbox(ctx, opts) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("WatchInbox: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("WatchInbox did not return after its context ended")
			}
		})
	}
	t.Cleanup(r.stop)
	return r
}

// write writes a file under the inbox, creating its folders.
func (r *inboxRun) write(t *testing.T, rel, text string) string {
	t.Helper()
	path := filepath.Join(r.inbox, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

// told returns the inbox's changes heard so far that name path (the file as analysts name
// it, "inbox/sds/x.md"), with action when it is not "".
func (r *inboxRun) told(path, action string) []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Change
	for _, c := range r.heard {
		if c.Kind == ChangeInbox && c.Path == path && (action == "" || c.Action == action) {
			out = append(out, c)
		}
	}
	return out
}

// eventually fails the test unless cond holds within 30 seconds (a slow machine is slow, not
// wrong).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitTold waits until the inbox told of path with action, and returns those changes.
func (r *inboxRun) waitTold(t *testing.T, path, action string) []Change {
	t.Helper()
	eventually(t, "the inbox tells "+action+" "+path, func() bool { return len(r.told(path, action)) > 0 })
	return r.told(path, action)
}

// settled drops a fresh file into the inbox and waits until it is ingested: every file that
// had settled before it has been taken by then, and the watcher has gone round several times.
func (r *inboxRun) settled(t *testing.T) {
	t.Helper()
	name := "marker-" + time.Now().Format("150405.000000000") + ".md"
	r.write(t, name, "# Marker\n\nA marker page.\n")
	r.waitTold(t, "inbox/"+name, InboxIngested)
}

// inboxIngests returns the details of the ingests the inbox recorded in the audit trail.
func (r *inboxRun) inboxIngests(t *testing.T) []map[string]any {
	t.Helper()
	entries, err := r.s.Audit().List(context.Background(), audit.Filter{Analyst: InboxActor})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range entries {
		if e.Action != audit.ActionIngest {
			continue
		}
		d := map[string]any{"target": e.Target}
		if err := json.Unmarshal([]byte(e.Detail), &d); err != nil {
			t.Fatalf("audit detail %q: %v", e.Detail, err)
		}
		d["target"] = e.Target
		out = append(out, d)
	}
	return out
}

// loggedLines counts the lines of the log that hold text.
func loggedLines(log *lockedBuffer, text string) int {
	n := 0
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, text) {
			n++
		}
	}
	return n
}

// documentOf returns the stored document loaded from path, if any.
func (r *inboxRun) documentOf(t *testing.T, path string) (kb.DocInfo, bool) {
	t.Helper()
	ctx := context.Background()
	id, ok, err := r.s.store.DocumentBySource(ctx, path)
	if err != nil || !ok {
		return kb.DocInfo{}, false
	}
	d, ok, err := r.s.store.Document(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return d, ok
}

// A file copied in slowly, half first, is not ingested half: it is ingested once, whole, in the
// collection of its folder, and is then searchable there.
func TestInboxIngestsAFileCopiedInPartsOnce(t *testing.T) {
	opts := quickInbox
	opts.Settle = 2 * time.Second // far longer than the pause between the two halves
	r := startInbox(t, opts, nil)
	path := filepath.Join(r.inbox, "sds", "silane.md")
	os.MkdirAll(filepath.Dir(path), 0o750)
	first := "# Silane\n\nSilane cylinders are purged with nitrogen.\n"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(first); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the copy pauses, for far less than the settle time
	if _, err := f.WriteString("\n## Storage\n\nThe quokkaline cabinet holds them upright.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	c := r.waitTold(t, "inbox/sds/silane.md", InboxIngested)[0]
	if c.Collection != "sds" || c.By != InboxActor || !strings.Contains(c.String(), "inbox: ingested inbox/sds/silane.md into sds") {
		t.Errorf("the notice: %+v (%s)", c, c)
	}
	r.settled(t)
	ingested := 0.0
	for _, d := range r.inboxIngests(t) {
		if n, ok := d["ingested"].(float64); ok && d["target"] == "sds" {
			ingested += n
		}
	}
	if ingested != 1 || len(r.told("inbox/sds/silane.md", "")) != 1 {
		t.Errorf("ingested %v times, told %d times; want once", ingested, len(r.told("inbox/sds/silane.md", "")))
	}
	if d, ok := r.documentOf(t, path); !ok || d.Collection != "sds" {
		t.Errorf("the document: %+v %v", d, ok)
	}
	if !searchable(t, r.s, "quokkaline") {
		t.Error("the second half is not searchable: the half-copied file was ingested")
	}
}

// A file deleted from the inbox takes its document with it; a document the inbox did not
// ingest stays.
func TestInboxRemovesTheDocumentOfADeletedFile(t *testing.T) {
	var outside string
	r := startInbox(t, quickInbox, func(s *Service) {
		outside = filepath.Join(t.TempDir(), "kept.md")
		os.WriteFile(outside, []byte("# Kept\n\nThe kept page about xenon.\n"), 0o640)
		if _, err := s.Knowledge().Ingest(context.Background(), []kb.Item{{Path: outside, ID: "kept.md", Collection: "sds"}}, IngestOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	path := r.write(t, "sds/arsine.md", "# Arsine\n\nArsine is monitored with a wombatine detector.\n")
	r.waitTold(t, "inbox/sds/arsine.md", InboxIngested)
	if !searchable(t, r.s, "wombatine") {
		t.Fatal("not searchable after it was ingested")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	c := r.waitTold(t, "inbox/sds/arsine.md", InboxRemoved)[0]
	if c.Collection != "sds" {
		t.Errorf("the notice: %+v", c)
	}
	if _, ok := r.documentOf(t, path); ok || searchable(t, r.s, "wombatine") {
		t.Error("the deleted file's document is still there")
	}
	if _, ok := r.documentOf(t, outside); !ok {
		t.Error("a document ingested from elsewhere was removed")
	}
	entries, _ := r.s.Audit().List(context.Background(), audit.Filter{Analyst: InboxActor})
	if last := entries[len(entries)-1]; last.Action != audit.ActionRemove || last.Target != "sds" || last.Outcome != audit.OK {
		t.Errorf("the removal's audit entry: %+v", last)
	}
}

// A change to one file ingests that file again and hands the others to no ingest.
func TestInboxReingestsOnlyTheChangedFile(t *testing.T) {
	r := startInbox(t, quickInbox, nil)
	paths := map[string]string{
		"sds/a.md":     "# A\n\nFirst page about helium.\n",
		"sds/b.md":     "# B\n\nSecond page about neon.\n",
		"reports/c.md": "# C\n\nThird page about krypton.\n",
		"d.md":         "# D\n\nA page directly in the inbox.\n",
	}
	for rel, text := range paths {
		r.write(t, rel, text)
	}
	for rel := range paths {
		r.waitTold(t, "inbox/"+rel, InboxIngested)
	}
	if d, ok := r.documentOf(t, filepath.Join(r.inbox, "d.md")); !ok || d.Collection != InboxDefaultCollection {
		t.Errorf("a file directly in the inbox: %+v %v", d, ok)
	}
	before, _ := r.documentOf(t, filepath.Join(r.inbox, "sds", "a.md"))
	runs := len(r.inboxIngests(t))

	r.write(t, "sds/b.md", "# B\n\nSecond page about neon and the platypoid valve.\n")
	c := r.waitTold(t, "inbox/sds/b.md", InboxUpdated)[0]
	if !strings.Contains(c.What, "updated inbox/sds/b.md in sds") {
		t.Errorf("the notice: %+v", c)
	}
	ingests := r.inboxIngests(t)[runs:]
	if len(ingests) != 1 || ingests[0]["target"] != "sds" || ingests[0]["items"] != 1.0 ||
		ingests[0]["ingested"] != 1.0 || ingests[0]["unchanged"] != 0.0 {
		t.Errorf("the ingests after the change: %v; want one of b.md alone", ingests)
	}
	if after, _ := r.documentOf(t, filepath.Join(r.inbox, "sds", "a.md")); !(after.IngestedAt == before.IngestedAt) {
		t.Errorf("a.md was stored again: %v, then %v", before.IngestedAt, after.IngestedAt)
	}
	if !searchable(t, r.s, "platypoid") {
		t.Error("the new version is not searchable")
	}
}

// A file that cannot be read is told once however often the watcher looks, and again only
// once it has changed.
func TestInboxTellsAFailingFileOnceUntilItChanges(t *testing.T) {
	r := startInbox(t, quickInbox, nil)
	path := r.write(t, "sds/broken.docx", "this is no zip package")
	c := r.waitTold(t, "inbox/sds/broken.docx", "")[0]
	if c.Action != InboxSkipped && c.Action != InboxFailed || !strings.Contains(c.What, "broken.docx") || strings.Contains(c.What, r.inbox) {
		t.Errorf("the notice: %+v (it names the file as analysts do, not by its server path)", c)
	}
	r.settled(t)
	r.settled(t)
	if n := len(r.told("inbox/sds/broken.docx", "")); n != 1 {
		t.Errorf("told %d times across many rounds; want once", n)
	}
	if n := loggedLines(r.log, "broken.docx"); n != 1 {
		t.Errorf("logged %d times; want once:\n%s", n, r.log)
	}

	if err := os.WriteFile(path, []byte("still no zip package, and longer"), 0o640); err != nil {
		t.Fatal(err)
	}
	eventually(t, "told again after the change", func() bool { return len(r.told("inbox/sds/broken.docx", "")) == 2 })
	r.settled(t)
	if n := len(r.told("inbox/sds/broken.docx", "")); n != 2 {
		t.Errorf("told %d times after one change; want twice", n)
	}
}

// An analyst hears of the inbox's files only in the collections they may read; admins and
// the account hear of all, and of what concerns no collection.
func TestInboxNoticesReachOnlyReadersOfTheCollection(t *testing.T) {
	listeners := map[string]*[]Change{}
	var mu sync.Mutex
	r := startInbox(t, quickInbox, func(s *Service) {
		grant(t, s, "bob", "sds", grants.Read)
		grant(t, s, "eve", "sds", grants.None)
		for name, view := range map[string]*Service{
			"bob": s.Served().As("bob", false), "eve": s.Served().As("eve", false), "lead": s.Served().As("lead", true),
		} {
			heard := &[]Change{}
			listeners[name] = heard
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			feed := view.Team().Changes(ctx)
			go func() {
				for c := range feed {
					mu.Lock()
					*heard = append(*heard, c)
					mu.Unlock()
				}
			}()
		}
	})
	heardOf := func(who, path string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range *listeners[who] {
			if c.Kind == ChangeInbox && c.Path == path {
				return true
			}
		}
		return false
	}
	r.write(t, "sds/secret.md", "# Secret\n\nThe sds page.\n")
	r.write(t, "general/open.md", "# Open\n\nThe general page.\n")
	r.write(t, "Bad Name/x.md", "# X\n\nIn a folder that is no collection name.\n")
	eventually(t, "bob hears of the sds file, eve of the general one", func() bool {
		return heardOf("bob", "inbox/sds/secret.md") && heardOf("eve", "inbox/general/open.md")
	})
	// Each change goes to every listener at once: had eve been sent the sds one, she has it now.
	if heardOf("eve", "inbox/sds/secret.md") {
		t.Error("eve, who may not read sds, heard of its file")
	}
	eventually(t, "the admin hears of both", func() bool {
		return heardOf("lead", "inbox/sds/secret.md") && heardOf("lead", "inbox/general/open.md")
	})
	eventually(t, "the account is told of the folder whose name is no collection", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, c := range r.heard {
			if c.Kind == ChangeInbox && c.Action == InboxRefused && strings.Contains(c.What, "inbox/Bad Name/ is not a collection name") {
				return true
			}
		}
		return false
	})
	r.settled(t)
	mu.Lock()
	for _, who := range []string{"bob", "eve"} {
		for _, c := range *listeners[who] {
			if strings.Contains(c.What, "Bad Name") {
				t.Errorf("%s, no admin, heard of the misnamed folder: %s", who, c)
			}
		}
	}
	mu.Unlock()
	if n := loggedLines(r.log, "Bad Name"); n != 1 {
		t.Errorf("the misnamed folder was logged %d times; want once", n)
	}
}

// Editors' temporary, lock and backup files, hidden files and half-finished downloads are
// never ingested, nor told of; a link out of the inbox is not followed.
func TestInboxLeavesTemporaryFilesAndLinksOut(t *testing.T) {
	r := startInbox(t, quickInbox, nil)
	text := "# Temp\n\nThe dingoflux draft.\n"
	temporary := []string{"sds/~$report.md", "sds/.~lock.report.docx#", "sds/report.md~", "sds/report.tmp", "sds/movie.part",
		"sds/setup.crdownload", "sds/.#notes.md", "sds/.notes.md.swp", "sds/.hidden.md", "sds/.cache/x.md"}
	for _, rel := range temporary {
		r.write(t, rel, text)
	}
	secret := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(secret, []byte("# Secret\n\nThe echidnite secret outside the inbox.\n"), 0o640)
	if err := os.Symlink(secret, filepath.Join(r.inbox, "sds", "link.md")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r.settled(t)
	r.settled(t)
	for _, rel := range temporary {
		if n := len(r.told("inbox/"+rel, "")); n > 0 {
			t.Errorf("%s: told %d times", rel, n)
		}
		if _, ok := r.documentOf(t, filepath.Join(r.inbox, filepath.FromSlash(rel))); ok {
			t.Errorf("%s was ingested", rel)
		}
	}
	if searchable(t, r.s, "dingoflux") || searchable(t, r.s, "echidnite") {
		t.Error("a temporary file or the link's target is searchable")
	}
	if told := r.told("inbox/sds/link.md", InboxRefused); len(told) != 1 || !strings.Contains(told[0].What, "leads outside the ingest folders") {
		t.Errorf("the link out: %+v", told)
	}
	for _, name := range []string{"~$x.docx", ".~lock.x.odt#", "x.docx~", "x.TMP", "x.part", "x.crdownload", ".#x", ".x.swp"} {
		if !temporaryName(name) {
			t.Errorf("%s is not taken for a temporary name", name)
		}
	}
	for _, name := range []string{"report.pdf", "tmp.md", "part-2.docx", "notes~draft.md"} {
		if temporaryName(name) {
			t.Errorf("%s is taken for a temporary name", name)
		}
	}
}

// panickyIndex panics when the inbox looks a file up, until it is mended.
type panickyIndex struct {
	kb.Backend
	broken atomic.Bool
}

func (p *panickyIndex) DocumentBySource(ctx context.Context, source string) (string, bool, error) {
	if p.broken.Load() {
		panic("the index is corrupt")
	}
	return p.Backend.DocumentBySource(ctx, source)
}

// A panic in the watcher is logged and the watcher goes on; cancelling it ends it promptly.
func TestInboxSurvivesAPanicAndStops(t *testing.T) {
	idx := &panickyIndex{}
	opts := quickInbox
	opts.Retry = 50 * time.Millisecond
	r := startInbox(t, opts, func(s *Service) {
		idx.Backend = s.store
		idx.broken.Store(true)
		s.store = idx
	})
	r.write(t, "sds/first.md", "# First\n\nThe first page.\n")
	eventually(t, "the panic is logged", func() bool { return strings.Contains(r.log.String(), "the inbox watcher panicked") })
	idx.broken.Store(false)
	r.waitTold(t, "inbox/sds/first.md", InboxIngested)
	r.stop()
	if !strings.Contains(r.log.String(), "stopped watching the inbox") {
		t.Errorf("the log: %s", r.log)
	}
}

// Off by configuration, or already watched, the watcher does not start.
func TestInboxWatchOffAndOnlyOnce(t *testing.T) {
	r := startInbox(t, quickInbox, nil)
	eventually(t, "the watcher runs", func() bool { return strings.Contains(r.log.String(), "watching the inbox") })
	if err := r.s.WatchInbox(context.Background(), quickInbox); err != ErrInboxWatched {
		t.Errorf("a second watcher: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, config.Sources{Flags: map[string]string{"kb.embedder": "builtin", "serve.inbox_watch": "off"}}, Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WatchInbox(ctx, quickInbox); err != nil || ctx.Err() != nil {
		t.Errorf("with serve.inbox_watch off: %v, returned at once: %v", err, ctx.Err() == nil)
	}
}

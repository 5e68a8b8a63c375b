package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"warren/internal/realpath"
	"warren/kb"
	"warren/kb/load"
	"warren/service/audit"
	"warren/service/jobs"
)

// The inbox: while `warren serve` runs, the folders of serve.ingest_roots ingest themselves.
// A file is ingested into the collection named by its first sub-folder (inbox/sds/x.pdf →
// sds) once its size and modification time have stayed the same for serve.inbox_settle, and
// its document is removed once the file has been gone as long. Each outcome is told once to
// the analysts who may read the collection (a Change of kind ChangeInbox) and to the log.

// InboxActor is the name the inbox acts under: its jobs, audit entries and notices.
const InboxActor = "inbox"

// InboxDefaultCollection takes the files that lie directly in an ingest folder: it is the
// collection the workbench's and the CLI's ingest use, so an analyst who ingests such a file
// by hand finds it where the inbox put it.
const InboxDefaultCollection = "general"

// Actions of the inbox's changes (Change.Action).
const (
	InboxIngested = "ingested"
	InboxUpdated  = "updated" // ingested again after its file changed
	InboxRemoved  = "removed" // its file was deleted
	InboxSkipped  = "skipped" // read, and nothing to store (no text, an empty file, a format warren doesn't read)
	InboxFailed   = "failed"
	InboxRefused  = "refused" // not read: a link out of the folders, a folder that is no collection name
)

// ErrInboxWatched refuses a second watcher of one workspace in one process: two would ingest
// the same files at once.
var ErrInboxWatched = errors.New("the inbox of this workspace is watched already")

// InboxOptions shape WatchInbox; zero values take serve.inbox_poll and serve.inbox_settle.
type InboxOptions struct {
	Poll   time.Duration
	Settle time.Duration
	// Retry is how long files wait before they are tried again after an ingest that failed
	// as a whole (the embedding model unreachable, a panic); zero is a minute.
	Retry time.Duration
}

// inboxWatched holds the workspaces watched in this process.
var inboxWatched sync.Map

// WatchInbox watches the folders of serve.ingest_roots until ctx ends, then returns nil once
// the ingest in flight has stopped (after its current document). It ingests as the
// workspace's own (unserved, admin) view under the name InboxActor, one ingest at a time,
// through Knowledge.Ingest: unchanged files are skipped by their stamp, every ingest is in
// the audit trail, and files are read only inside the folders (a symbolic link out of them
// is reported, never followed). A file that fails is reported once and not tried again until
// it changes. A panic in a round is logged and the watcher goes on. With serve.inbox_watch
// off or no ingest folder configured it returns nil at once.
func (s *Service) WatchInbox(ctx context.Context, opts InboxOptions) error {
	cfg := s.ws.Config.Serve
	if !cfg.InboxWatch || len(cfg.IngestRoots) == 0 {
		s.log.Info("the inbox is not watched", "inbox_watch", cfg.InboxWatch, "ingest_roots", cfg.IngestRoots)
		return nil
	}
	if opts.Poll <= 0 {
		opts.Poll = cfg.InboxPoll
	}
	if opts.Settle <= 0 {
		opts.Settle = cfg.InboxSettle
	}
	if opts.Retry <= 0 {
		opts.Retry = time.Minute
	}
	if _, busy := inboxWatched.LoadOrStore(s.ws, true); busy {
		return ErrInboxWatched
	}
	defer inboxWatched.Delete(s.ws)
	v := s.As(InboxActor, true)
	v.served = false // the workspace's own view: the folders are checked here, not as an analyst's paths
	w := &inboxWatcher{s: v, opts: opts, files: map[string]*inboxFile{}, told: map[string]bool{}}
	s.log.Info("watching the inbox", "ingest_roots", cfg.IngestRoots, "poll", opts.Poll, "settle", opts.Settle)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			s.log.Info("stopped watching the inbox")
			return nil
		case <-timer.C:
		}
		wait := opts.Poll
		if err := jobs.Guard(s.log, "the inbox watcher panicked; it goes on", func() { w.round(ctx) }); err != nil {
			wait = max(wait, opts.Retry) // a bug that panics each round must not fill the log at poll rate
		}
		timer.Reset(wait)
	}
}

// stamp is what tells a file changed without reading it.
type stamp struct {
	size, mtime int64
	files       int // a folder document's files
}

// inboxFile is one file (or folder document) of an ingest folder as the watcher knows it.
type inboxFile struct {
	path       string // absolute, under the root's real path
	name       string // as analysts name it: inbox/sds/x.pdf
	collection string
	within     string // the root's real path: the file is read only if it still lies there
	seen       stamp
	since      time.Time // when seen was first found
	done       stamp     // the stamp last handed to an ingest and settled (ingested or told)
	handled    bool      // done is set
	owned      bool      // its document is one the inbox ingested (or found unchanged)
	retryAt    time.Time // after an ingest that failed as a whole
	failed     string    // that failure, told once
	goneSince  time.Time
}

// inboxWatcher is the state of one WatchInbox between its rounds.
type inboxWatcher struct {
	s     *Service
	opts  InboxOptions
	files map[string]*inboxFile
	// told keeps what was reported about something that stays as it is (a folder whose name is
	// no collection, a link out of the folders, a folder that is missing): said once while it
	// lasts, and again if it comes back after it was gone.
	told, toldNow map[string]bool
	hide          func(string) string
	reals         []string // the roots' real paths
}

// round looks at every folder once: it ingests what settled, removes what has been gone for
// the settle time and reports what cannot be taken.
func (w *inboxWatcher) round(ctx context.Context) {
	now := time.Now()
	w.toldNow = map[string]bool{}
	roots, ok := w.roots()
	if !ok {
		return // nothing can be told apart from a deleted file this round
	}
	present := map[string]bool{}
	var unseen []string // folders not read this round: their files are not taken as deleted
	for _, r := range roots {
		if r.real != "" {
			unseen = append(unseen, w.scan(r, now, present)...)
		}
	}
	for key := range w.told {
		if !w.toldNow[key] {
			delete(w.told, key)
		}
	}
	var gone []*inboxFile
	for path, f := range w.files {
		if present[path] || realpath.WithinAny(path, unseen) || underUnresolved(f, roots) {
			f.goneSince = time.Time{}
			continue
		}
		if f.goneSince.IsZero() {
			f.goneSince = now
		}
		// A save through a temporary file may leave the name empty for a moment.
		if now.Sub(f.goneSince) >= w.opts.Settle {
			delete(w.files, path)
			if f.owned {
				gone = append(gone, f)
			}
		}
	}
	w.remove(ctx, gone)
	ready := map[string][]*inboxFile{}
	var collections []string
	for _, f := range w.files {
		if f.handled && f.done == f.seen || now.Sub(f.since) < w.opts.Settle || now.Before(f.retryAt) {
			continue
		}
		if _, ok := ready[f.collection]; !ok {
			collections = append(collections, f.collection)
		}
		ready[f.collection] = append(ready[f.collection], f)
	}
	slices.Sort(collections)
	for _, c := range collections {
		if ctx.Err() != nil {
			return
		}
		w.ingest(ctx, c, ready[c])
	}
}

// underUnresolved says whether f lies in a root that could not be resolved this round.
func underUnresolved(f *inboxFile, roots []ingestRoot) bool {
	for _, r := range roots {
		if r.real == "" && strings.HasPrefix(f.name, r.name+"/") {
			return true
		}
	}
	return false
}

// roots resolves the ingest folders one by one, so that one missing folder (told once) does
// not stop the others; an unresolved one has no real path. ok is false when the workspace
// itself could not be resolved.
func (w *inboxWatcher) roots() (roots []ingestRoot, ok bool) {
	ws, err := filepath.EvalSymlinks(w.s.ws.Dir)
	if err != nil {
		w.tellOnce("workspace", "", "", fmt.Sprintf("couldn't resolve the workspace: %v", err))
		return nil, false
	}
	var resolved []ingestRoot
	w.reals = nil
	for _, entry := range w.s.ws.Config.Serve.IngestRoots {
		r, err := w.s.ingestRoot(ws, entry)
		if err != nil {
			w.tellOnce("root:"+entry, "", "", err.Error())
			r.real = ""
		} else {
			resolved = append(resolved, r)
			w.reals = append(w.reals, r.real)
		}
		roots = append(roots, r)
	}
	hv := w.s.As(InboxActor, false)
	hv.served = true // names server paths as an analyst sees them
	w.hide = hv.pathHider(resolved)
	return roots, true
}

// scan walks one root, noting each file it finds, and returns the folders it could not read.
func (w *inboxWatcher) scan(r ingestRoot, now time.Time, present map[string]bool) (unreadable []string) {
	err := filepath.WalkDir(r.real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == r.real {
				return err
			}
			unreadable = append(unreadable, path)
			w.tellOnce("unreadable:"+path, inboxCollection(r, path), "", fmt.Sprintf("couldn't read %s: %v", w.name(r, path), err))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == r.real {
			return nil
		}
		base := d.Name()
		if strings.HasPrefix(base, ".") { // hidden, and most editors' lock and swap files
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(r.real, path)
		top := !strings.ContainsRune(rel, filepath.Separator)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			w.link(r, path)
			return nil
		case d.IsDir() && top:
			if !kb.CollectionName.MatchString(base) {
				w.tellOnce("folder:"+path, "", "", fmt.Sprintf("the folder %s/ is not a collection name (use 1 to 64 lower-case letters, digits, '-' and '_'): "+
					"its files are not ingested until it is renamed", w.name(r, path)))
				return filepath.SkipDir
			}
			return nil
		case d.IsDir() && load.IsFolderDocument(path):
			if st, ok := folderStamp(path); ok {
				w.saw(r, path, st, now, present)
			} else {
				unreadable = append(unreadable, path)
			}
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case !d.Type().IsRegular() || temporaryName(base):
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since the folder was read
		}
		w.saw(r, path, stamp{size: info.Size(), mtime: info.ModTime().UnixNano(), files: 1}, now, present)
		return nil
	})
	if err != nil {
		unreadable = append(unreadable, r.real)
		w.tellOnce("unreadable:"+r.real, "", "", fmt.Sprintf("couldn't read the ingest folder %s: %v", w.hide(r.real), err))
	}
	return unreadable
}

// temporaryName says whether a file name is one that editors, office suites, browsers and
// copy tools write while they work (a lock, a backup, a download in progress): the inbox
// never ingests them. Names beginning with a dot are left out as well, as hidden.
func temporaryName(base string) bool {
	lower := strings.ToLower(base)
	switch {
	case strings.HasPrefix(base, "."), strings.HasPrefix(base, "~$"), strings.HasSuffix(base, "~"):
		return true
	}
	for _, ext := range []string{".tmp", ".temp", ".part", ".partial", ".crdownload", ".download", ".swp", ".swx"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// folderStamp sums a folder document's files: any of them written changes it.
func folderStamp(dir string) (stamp, bool) {
	var st stamp
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			st.size += info.Size()
			st.mtime = max(st.mtime, info.ModTime().UnixNano())
			st.files++
		}
		return nil
	})
	return st, err == nil
}

// inboxCollection is the collection of a path under r: its first sub-folder, or
// InboxDefaultCollection for a file directly in r; "" when that folder's name is no
// collection name.
func inboxCollection(r ingestRoot, path string) string {
	rel, err := filepath.Rel(r.real, path)
	if err != nil {
		return ""
	}
	first, _, nested := strings.Cut(filepath.ToSlash(rel), "/")
	switch {
	case !nested:
		return InboxDefaultCollection
	case !kb.CollectionName.MatchString(first):
		return ""
	}
	return first
}

// name is a path under r as analysts name it (inbox/sds/x.pdf).
func (w *inboxWatcher) name(r ingestRoot, path string) string {
	rel, err := filepath.Rel(r.real, path)
	if err != nil {
		return w.hide(path)
	}
	return r.name + "/" + filepath.ToSlash(rel)
}

// saw notes a file found with st in this round.
func (w *inboxWatcher) saw(r ingestRoot, path string, st stamp, now time.Time, present map[string]bool) {
	present[path] = true
	f := w.files[path]
	if f == nil {
		f = &inboxFile{path: path, name: w.name(r, path), collection: inboxCollection(r, path), within: r.real, seen: st, since: now}
		w.files[path] = f
		return
	}
	if f.seen != st {
		f.seen, f.since = st, now
		f.retryAt = time.Time{} // changed: tried again once it settles
	}
}

// link reports a symbolic link that leads out of the ingest folders; one that stays inside
// is left alone (what it leads to is ingested under its own name). Neither is followed.
func (w *inboxWatcher) link(r ingestRoot, path string) {
	why := "a symbolic link that leads outside the ingest folders"
	target, err := filepath.EvalSymlinks(path)
	switch {
	case err != nil:
		why = "a symbolic link that leads nowhere"
	case realpath.WithinAny(target, w.reals):
		return
	}
	w.tellOnce("link:"+path, inboxCollection(r, path), w.name(r, path), fmt.Sprintf("didn't read %s: %s", w.name(r, path), why))
}

// tellOnce reports a lasting condition once while it lasts: to the log, and to the analysts
// who may read collection (to admins only when it is "").
func (w *inboxWatcher) tellOnce(key, collection, name, what string) {
	w.toldNow[key] = true
	if w.told[key] {
		return
	}
	w.told[key] = true
	w.s.log.Warn("inbox: "+what, "collection", collection)
	w.publish(Change{Collection: collection, Path: name, Action: InboxRefused, What: what})
}

// publish tells the analysts who may read c's collection (see Service.hears).
func (w *inboxWatcher) publish(c Change) {
	c.Kind, c.By, c.At, c.origin = ChangeInbox, InboxActor, time.Now(), w.s
	if w.hide != nil {
		c.What = w.hide(c.What)
	}
	w.s.changes.publish(c)
}

// ingest hands one collection's settled files to the ingest and tells each outcome once.
func (w *inboxWatcher) ingest(ctx context.Context, collection string, files []*inboxFile) {
	store := w.s.store
	var items []kb.Item
	byName := map[string]*inboxFile{}
	stored := map[*inboxFile]bool{}
	for _, f := range files {
		id, found, err := store.DocumentBySource(ctx, f.path)
		if err != nil {
			w.s.log.Warn("inbox: couldn't look a file up", "file", f.path, "error", err)
			f.retryAt = time.Now().Add(w.opts.Retry)
			continue
		}
		if found {
			doc, ok, err := store.Document(ctx, id)
			if err == nil && ok && doc.Collection != collection {
				// Put elsewhere by hand: the inbox neither moves it nor removes it.
				f.done, f.handled, f.owned = f.seen, true, false
				w.tell(f, InboxRefused, fmt.Sprintf("didn't ingest %s into %s: it is in collection %s already; "+
					"remove it there (warren kb rm %s) for the inbox to take it", f.name, collection, doc.Collection, id), true)
				continue
			}
			stored[f] = ok
		}
		items = append(items, kb.Item{Path: f.path, ID: f.name, Collection: collection, Within: f.within})
		byName[w.hide(f.path)] = f
	}
	if len(items) == 0 {
		return
	}
	handed := map[*inboxFile]stamp{}
	for _, f := range byName {
		handed[f] = f.seen
	}
	rep, err := w.s.Knowledge().Ingest(ctx, items, IngestOptions{Collection: collection, confine: w.reals, shown: w.hide})
	if ctx.Err() != nil && (err != nil || rep == nil || rep.Canceled) {
		return // stopped: the next start takes these files up again
	}
	if err == nil && rep == nil {
		err = errors.New("the ingest gave no report")
	}
	if err != nil {
		w.s.log.Warn("inbox: couldn't ingest", "collection", collection, "files", len(items), "error", err)
		for _, f := range byName {
			f.retryAt = time.Now().Add(w.opts.Retry)
			if f.failed != err.Error() {
				f.failed = err.Error()
				w.tell(f, InboxFailed, fmt.Sprintf("couldn't ingest %s into %s (tried again in %s): %v", f.name, collection, w.opts.Retry, err), true)
			}
		}
		return
	}
	for _, res := range rep.Files {
		f := byName[res.Path]
		if f == nil || res.AttachedTo != "" {
			continue // an attachment comes and goes with its message
		}
		f.done, f.handled, f.retryAt, f.failed = handed[f], true, time.Time{}, ""
		switch res.Status {
		case kb.StatusIngested:
			f.owned = true
			verb, what := InboxIngested, fmt.Sprintf("ingested %s into %s", f.name, collection)
			if stored[f] {
				verb, what = InboxUpdated, fmt.Sprintf("updated %s in %s", f.name, collection)
			}
			if res.Reason != "" {
				what += " (" + res.Reason + ")"
			}
			w.s.log.Info("inbox: "+verb, "file", f.path, "doc", res.Doc, "collection", collection, "chunks", res.Chunks)
			w.tell(f, verb, what, false)
		case kb.StatusUnchanged:
			f.owned = true
		case kb.StatusSkipped:
			w.tell(f, InboxSkipped, fmt.Sprintf("skipped %s (%s): %s", f.name, collection, res.Reason), true)
		default:
			w.tell(f, InboxFailed, fmt.Sprintf("couldn't ingest %s into %s: %s", f.name, collection, res.Reason), true)
		}
	}
}

// tell reports what happened to one file: to the log when it is a problem (an ingest is
// logged by its caller), and to the analysts who may read its collection.
func (w *inboxWatcher) tell(f *inboxFile, action, what string, problem bool) {
	if problem {
		w.s.log.Warn("inbox: "+what, "file", f.path, "collection", f.collection)
	}
	w.publish(Change{Collection: f.collection, Path: f.name, Action: action, What: what})
}

// remove removes the documents of files that have been gone for the settle time: only those
// the inbox ingested, found by their source file, and only from the collection it put them in.
func (w *inboxWatcher) remove(ctx context.Context, gone []*inboxFile) {
	for _, f := range gone {
		if ctx.Err() != nil {
			return
		}
		id, found, err := w.s.store.DocumentBySource(ctx, f.path)
		if err != nil || !found {
			continue
		}
		doc, ok, err := w.s.store.Document(ctx, id)
		if err != nil || !ok || doc.Collection != f.collection {
			continue
		}
		removed, err := w.s.Knowledge().RemoveDocuments(ctx, []string{id})
		w.s.record(ctx, audit.ActionRemove, f.collection, map[string]any{"file": f.name, "removed": removed}, err)
		if err != nil {
			w.tell(f, InboxFailed, fmt.Sprintf("couldn't remove %s from %s: %v", f.name, f.collection, err), true)
			continue
		}
		w.s.log.Info("inbox: removed", "file", f.path, "doc", id, "collection", f.collection)
		w.tell(f, InboxRemoved, fmt.Sprintf("removed %s from %s: its file was deleted", f.name, f.collection), false)
	}
}

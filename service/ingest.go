package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"warren/agent"
	"warren/config"
	"warren/kb"
	"warren/kb/load"
	"warren/registry"
	"warren/service/audit"
	"warren/service/grants"
	"warren/service/jobs"
)

// IngestOptions shape an ingest.
type IngestOptions struct {
	// Paths are files and folders to ingest into Collection, besides the items given; this is
	// how the workbench names what to ingest. A served view (see Served) takes only paths, each
	// beginning with the name of one of the folders of serve.ingest_roots.
	Paths      []string
	Collection string
	// FollowSymlinks reads what symbolic links in a folder of Paths lead to even outside it;
	// a served view never follows them.
	FollowSymlinks bool
	// Embedder is auto, builtin or ollama; "" is the configured choice.
	Embedder string
	// Force re-ingests unchanged documents too, and moves a collection off an embedder that is
	// no longer configured.
	Force bool
	// Move lets a document already in another collection move to the one given; without it
	// such an ingest is refused (a *MoveRefusal), before anything is stored.
	Move bool
	// Registry, when the items came from one, gives the titles and synonyms copied into the
	// workspace registry.
	Registry *registry.Registry
	// Progress receives the ingest's progress over all collections; Note says what it chose
	// (the built-in embedder when Ollama's is missing, say).
	Progress func(kb.Progress)
	Note     func(string)

	confine []string            // served: the only folders read (load.LoadOptions.Confine)
	shown   func(string) string // served: names server paths as the analyst does
}

// Ingest is the one ingest use case, whichever front end asks: it adds items (the CLI collects
// them from its arguments or from a registry) and opts.Paths (the workbench names files and
// folders) to the knowledge base with the chosen embedder, and records the stored documents in
// the workspace registry. It runs as a job (kind ingest, progress in files), so that it is
// recorded and can be watched from another screen; cancelling ctx cancels it after the current
// document, with both stores consistent, and the report says what it did.
//
// A served view (see Served) reads only inside the folders of serve.ingest_roots and takes
// paths only: each begins with a folder's name ("inbox/sds/x.pdf", "inbox" for all of it), and
// one that is absolute, climbs out with "..", or leads out through a symbolic link is refused
// with an error that wraps ErrOutsideIngestRoots and names the folders allowed; links out of
// them met while walking, or swapped in before a file is read, are reported as skipped; items
// are refused. Elsewhere a path is read wherever it leads, as the account may, but links out of
// a walked folder are not followed (see kb.CollectItems).
func (k *Knowledge) Ingest(ctx context.Context, items []kb.Item, opts IngestOptions) (rep *kb.IngestReport, err error) {
	defer func() {
		d := map[string]any{"paths": opts.Paths, "items": len(items)}
		if rep != nil {
			d["ingested"], d["unchanged"], d["skipped"], d["failed"], d["chunks"], d["canceled"] =
				rep.Ingested, rep.Unchanged, rep.Skipped, rep.Failed, rep.Chunks, rep.Canceled
		}
		// A registry's items name their own collections: the entry names them all.
		target := opts.Collection
		if len(items) > 0 {
			target = strings.Join(itemCollections(items, ""), ",")
		}
		k.s.record(ctx, audit.ActionIngest, target, d, err)
	}()
	return k.ingest(ctx, items, opts)
}

// ingest is Ingest without its audit entry.
func (k *Knowledge) ingest(ctx context.Context, items []kb.Item, opts IngestOptions) (*kb.IngestReport, error) {
	// Refused before any file is read: an analyst without write learns nothing of the files.
	if err := k.s.require(ctx, grants.Write, itemCollections(items, opts.Collection)...); err != nil {
		return nil, err
	}
	if k.s.served {
		if len(items) > 0 {
			return nil, fmt.Errorf("couldn't ingest: %w: a served analyst names files by their path in one of them", ErrOutsideIngestRoots)
		}
		served, o, err := k.s.servedItems(opts.Paths, opts.Collection)
		if err != nil {
			return nil, err
		}
		opts.confine, opts.shown = o.confine, o.shown
		return k.s.ingestJob(ctx, served, opts)
	}
	if len(opts.Paths) > 0 {
		more, err := kb.CollectItemsWith(opts.Paths, opts.Collection, kb.CollectOptions{FollowSymlinks: opts.FollowSymlinks})
		if err != nil {
			return nil, err
		}
		items = append(items[:len(items):len(items)], more...)
	}
	return k.s.ingestJob(ctx, items, opts)
}

// itemCollections names the collections an ingest writes: the one asked for and the items' own.
func itemCollections(items []kb.Item, collection string) []string {
	var names []string
	if collection != "" {
		names = append(names, collection)
	}
	for _, it := range items {
		if it.Collection != "" && !slices.Contains(names, it.Collection) {
			names = append(names, it.Collection)
		}
	}
	return names
}

// ingestJob runs ingest as a job (see Ingest) over items already collected and checked.
func (s *Service) ingestJob(ctx context.Context, items []kb.Item, opts IngestOptions) (*kb.IngestReport, error) {
	var (
		rep *kb.IngestReport
		err error
	)
	shown := opts.shown
	if shown == nil {
		shown = func(p string) string { return p }
	}
	if err := s.refuseMoves(ctx, items, shown, opts.Move); err != nil {
		return nil, err
	}
	title := fmt.Sprintf("ingest of %d file(s)", len(items))
	if len(items) == 1 {
		title = "ingest of " + shown(items[0].Path)
	}
	work := func(jctx context.Context, em *jobs.Emitter) (string, error) {
		progress := opts.Progress
		o := opts
		o.Progress = func(p kb.Progress) {
			p.Current = shown(p.Current)
			em.Progress(jobs.Progress{Done: p.FilesDone, Total: p.Files, Current: p.Current, Rate: p.Rate, Remaining: p.Remaining})
			if progress != nil {
				progress(p)
			}
		}
		rep, err = s.ingest(jctx, items, o)
		hideReport(rep, opts.shown)
		switch {
		case err != nil:
			return "", err
		case rep.Canceled:
			return jobs.JobCanceled, nil
		}
		return jobs.JobDone, nil
	}
	if jerr := s.runJob(ctx, agent.NewRunID("ingest-"), jobs.KindIngest, title, work, nil); jerr != nil {
		return nil, jerr
	}
	return rep, err
}

// MoveRefusal refuses an ingest that would move documents out of the collection they are in:
// moving one is asked for (IngestOptions.Move, `--move`), never a side effect.
type MoveRefusal struct {
	Moves []DocumentMove
}

// DocumentMove is one document an ingest would move.
type DocumentMove struct {
	Doc  string `json:"doc"`
	Path string `json:"path"`
	From string `json:"from"` // the collection it is in
	To   string `json:"to"`
}

func (r *MoveRefusal) Error() string {
	m := r.Moves[0]
	what := fmt.Sprintf("%s is in collection %q", m.Path, m.From)
	if n := len(r.Moves); n > 1 {
		what += fmt.Sprintf(" (and %d more document(s) in other collections: %s)", n-1, movesFrom(r.Moves[1:]))
	}
	return fmt.Sprintf("couldn't ingest into %q: %s; nothing was ingested. Give --move to move them to %q, or ingest into %q",
		m.To, what, m.To, m.From)
}

// movesFrom names the documents of moves with their collections, the first few.
func movesFrom(moves []DocumentMove) string {
	var parts []string
	for i, m := range moves {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s in %q", m.Path, m.From))
	}
	return strings.Join(parts, ", ")
}

// refuseMoves refuses items whose documents are stored in another collection than theirs,
// found by their source file as kb.Ingest finds them (an ID another file holds is refused
// there, as taken), unless move allows it; a move out of a collection the analyst may not
// write is refused either way, with an *AccessError.
func (s *Service) refuseMoves(ctx context.Context, items []kb.Item, shown func(string) string, move bool) error {
	var moves []DocumentMove
	for _, it := range items {
		if it.Skip != "" {
			continue
		}
		abs, err := filepath.Abs(it.Path)
		if err != nil {
			continue
		}
		id, found, err := s.store.DocumentBySource(ctx, abs)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		old, ok, err := s.store.Document(ctx, id)
		if err != nil {
			return err
		}
		if ok && old.Collection != it.Collection {
			moves = append(moves, DocumentMove{Doc: id, Path: shown(it.Path), From: old.Collection, To: it.Collection})
		}
	}
	for _, m := range moves {
		if err := s.require(ctx, grants.Write, m.From); err != nil {
			return err
		}
	}
	if len(moves) > 0 && !move {
		return &MoveRefusal{Moves: moves}
	}
	return nil
}

// ingest stores items collection by collection, each with its own embedder, then records the
// stored documents in the workspace registry. A cancelled ingest stops after the current
// document with both stores consistent, and reports what it did.
func (s *Service) ingest(ctx context.Context, items []kb.Item, opts IngestOptions) (*kb.IngestReport, error) {
	note := opts.Note
	if note == nil {
		note = func(string) {}
	}
	byCollection := map[string][]kb.Item{}
	var names []string
	for _, it := range items {
		if _, ok := byCollection[it.Collection]; !ok {
			names = append(names, it.Collection)
		}
		byCollection[it.Collection] = append(byCollection[it.Collection], it)
	}
	total := &kb.IngestReport{}
	done := 0
	cfg := s.ws.Config.KB
	for _, name := range names {
		if ctx.Err() != nil {
			total.Canceled = true
			break
		}
		emb, err := s.EmbedderFor(ctx, name, opts.Embedder, note)
		if opts.Force && errors.Is(err, kb.ErrEmbedderChanged) {
			// The collection's embedder is no longer configured: a rebuild moves it to the one a
			// new collection would get.
			emb, err = s.EmbedderFor(ctx, "", opts.Embedder, note)
		}
		if err != nil {
			return nil, err
		}
		if opts.Force {
			// A rebuild with another embedder starts the collection afresh: old and new vectors
			// are not comparable.
			if err := s.store.ResetCollection(ctx, name, emb.ID()); err != nil {
				return nil, err
			}
		}
		offset, before := done, total.Chunks
		later := len(items) - done - len(byCollection[name]) // in the collections after this one
		rep, err := kb.Ingest(ctx, s.store, byCollection[name], kb.IngestOptions{
			Embedder: emb, Force: opts.Force, EmbedGroup: s.embedGroup(emb),
			Chunk: load.ChunkOptions{Size: cfg.ChunkSize, Overlap: cfg.ChunkOverlap},
			Load: load.LoadOptions{MaxFileBytes: int64(cfg.MaxFileMB) << 20, Confine: opts.confine,
				OCR: load.OCROptions{Mode: cfg.OCR, Languages: cfg.OCRLanguages}, ConvertTimeout: cfg.ConvertTimeout},
			Progress: func(p kb.Progress) {
				if opts.Progress != nil {
					p.Files, p.FilesDone = len(items), p.FilesDone+offset
					p.Chunks += before
					if p.Rate > 0 && later > 0 {
						// kb's estimate covers this collection's files; those of the later ones go at its rate.
						p.Remaining += time.Duration(float64(later) / p.Rate * float64(time.Second))
					}
					opts.Progress(p)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		done += len(byCollection[name])
		merge(total, rep)
	}
	if secs := total.Duration.Seconds(); secs > 0 {
		total.ChunksPerSec = float64(total.Chunks) / secs
	}
	if err := s.updateRegistry(context.WithoutCancel(ctx), opts.Registry, items, total); err != nil {
		return total, err
	}
	return total, nil
}

func merge(total, rep *kb.IngestReport) {
	total.Files = append(total.Files, rep.Files...)
	total.Ingested += rep.Ingested
	total.Unchanged += rep.Unchanged
	total.Skipped += rep.Skipped
	total.Failed += rep.Failed
	total.Chunks += rep.Chunks
	total.Embedded += rep.Embedded
	total.Duration += rep.Duration
	total.Canceled = total.Canceled || rep.Canceled
}

// RegistryItems lists the documents a registry names, with paths relative to dir made
// absolute.
func RegistryItems(reg *registry.Registry, dir string) []kb.Item {
	var items []kb.Item
	for _, name := range reg.Names() {
		for _, d := range reg.Collections[name].Documents {
			path := filepath.FromSlash(d.Path)
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			items = append(items, kb.Item{Path: path, ID: d.Path, Collection: name, Title: d.Title})
		}
	}
	return items
}

// updateRegistry records every stored document in the workspace registry: entries of an
// ingested registry are copied with their synonyms; other documents get their title only
// (synonyms are the analyst's to approve with `warren registry suggest`). Entries the analyst
// already has are kept.
func (s *Service) updateRegistry(ctx context.Context, from *registry.Registry, items []kb.Item, rep *kb.IngestReport) error {
	ws, err := s.Registry()
	if err != nil {
		return err
	}
	byPath := map[string]kb.Item{}
	for _, it := range items {
		byPath[it.Path] = it
	}
	changed := false
	for _, f := range rep.Files {
		if f.Status != kb.StatusIngested && f.Status != kb.StatusUnchanged || f.AttachedTo != "" {
			continue // an attachment has no file of its own to register: it comes with its message
		}
		it := byPath[f.Path]
		abs, _ := filepath.Abs(it.Path)
		entry := registry.Document{Path: f.Doc, Source: abs} // f.Doc: the ID the document is stored under
		if from != nil {
			for _, d := range from.Collections[it.Collection].Documents {
				if d.Path == it.ID {
					entry.Title, entry.Synonyms = d.Title, d.Synonyms
				}
			}
		} else if info, ok, err := s.store.Document(ctx, f.Doc); err == nil && ok {
			entry.Title = info.Title
		}
		if upsert(ws, it.Collection, entry) {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return ws.Save(filepath.Join(s.ws.Dir, registry.FileName))
}

// upsert adds a document to a collection of the registry unless it is there; an existing
// entry only gains a missing source.
func upsert(r *registry.Registry, collection string, d registry.Document) bool {
	c := collectionOf(r, collection)
	if i := documentIndex(c, d.Path); i >= 0 {
		if c.Documents[i].Source == "" && d.Source != "" {
			c.Documents[i].Source = d.Source
			return true
		}
		return false
	}
	c.Documents = append(c.Documents, d)
	sort.Slice(c.Documents, func(i, j int) bool { return c.Documents[i].Path < c.Documents[j].Path })
	return true
}

// embedGroup is how many texts an ingest hands the embedder at once: for a model, a batch for
// every request the embed role's hosts take at once, so none of them waits; the built-in
// embedder takes kb's default.
func (s *Service) embedGroup(emb kb.Embedder) int {
	if _, ok := emb.(kb.Builtin); ok || s.gateway == nil {
		return 0
	}
	return max(s.gateway.EmbedBatchSize(), 1) * max(s.gateway.Capacity(config.RoleEmbed), 1)
}

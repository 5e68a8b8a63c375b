package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"warren/kb"
	"warren/registry"
)

func (a *app) ingestCommand() *cobra.Command {
	var collection, registryFile, embedder string
	var force, allowOutside bool
	cmd := checked(&cobra.Command{
		Use:   "ingest [PATH...]",
		Short: "Add documents to the knowledge base (Markdown, text, PDF, HTML, folder documents)",
		Long: `ingest loads files and folders, cuts them into sections and chunks, embeds the chunks and
stores them with a lexical index. A folder of section files whose front matter gives section
numbers (such as one Markdown file per §) is one document; any other folder is walked.

Unchanged files (same content hash) are skipped without embedding calls; changed files replace
their chunks. Files warren cannot read are reported one by one while the rest is ingested; the
exit status is 3 when some were skipped or failed, and 5 when nothing was stored (every file
was skipped or failed, or there was none). Ctrl-C stops after the current document, leaving
both stores consistent.

--registry FILE ingests every document a registry lists into its collection and adds the
documents, titles and synonyms to the workspace registry, so references can name them. The
registry is checked first: a path registered twice or a synonym that names two documents is
refused with the problems listed (` + "`warren registry check FILE`" + ` shows the same), and so is a
document outside the registry's folder unless --allow-outside is given.`,
		Example: `  warren ingest sample/standards --collection standards
  warren ingest --registry ../shared/data/corpus/registry.json
  warren ingest --registry sample/registry.json --embedder builtin
  warren ingest notes.md --collection internal --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var reg *registry.Registry
			var items []kb.Item
			var err error
			if registryFile != "" {
				if reg, err = a.checkedRegistry(cmd, registryFile, allowOutside); err != nil {
					return err
				}
				items = registryItems(reg, filepath.Dir(registryFile))
			} else if items, err = kb.CollectItems(args, collection); err != nil {
				return err
			}
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			rep, err := a.ingest(ctx, e, items, embedder, force)
			if err != nil {
				return err
			}
			if err := updateWorkspaceRegistry(ctx, e, reg, items, rep); err != nil {
				return err
			}
			if !a.jsonOut {
				printIngestReport(a, rep)
			}
			if err := ingestOutcome(rep); err != nil {
				return a.fail(cmd, rep, err)
			}
			if a.jsonOut {
				return a.printJSON(rep)
			}
			return nil
		},
	},
		collectionName("collection", &collection),
		oneOf("embedder", &embedder, "auto", "builtin", "ollama"),
		when("registry", func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && registryFile == "":
				return fmt.Errorf("nothing to ingest: allowed is PATH... or --registry FILE (one of the two)")
			case len(args) > 0 && registryFile != "":
				return fmt.Errorf("--registry %q with PATH %q: allowed is PATH... or --registry FILE, not both", registryFile, args[0])
			case allowOutside && registryFile == "":
				return fmt.Errorf("--allow-outside without --registry: it allows a registry's documents outside its folder")
			case given(cmd, "collection") && registryFile != "":
				return fmt.Errorf("--collection %q with --registry: the registry names each document's collection", collection)
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVarP(&collection, "collection", "c", "general", "collection for the documents")
	f.StringVar(&registryFile, "registry", "", "ingest every document this registry file lists")
	f.BoolVar(&allowOutside, "allow-outside", false, "with --registry: ingest documents outside the registry's folder too")
	f.StringVar(&embedder, "embedder", "", "auto, builtin or ollama (default kb.embedder, auto)")
	f.BoolVar(&force, "rebuild", false, "re-ingest unchanged documents too (after changing the embedder or chunking)")
	return cmd
}

// checkedRegistry loads a registry to ingest and refuses one that would lose documents or
// names: paths registered twice, synonyms naming two documents, documents outside its folder
// (unless allowOutside), collection names warren cannot use.
func (a *app) checkedRegistry(cmd *cobra.Command, path string, allowOutside bool) (*registry.Registry, error) {
	reg, err := registry.Load(path)
	if err != nil {
		return nil, err
	}
	for _, name := range reg.Names() {
		if !kb.CollectionName.MatchString(name) {
			return nil, fmt.Errorf("%s: collection name %q: use lower-case letters, digits, '-' and '_'", path, name)
		}
	}
	dir := filepath.Dir(path)
	refuse := func(problems []registry.Problem, what, hint string) error {
		if !a.jsonOut {
			for _, p := range problems {
				fmt.Fprintln(a.stdout, p.String())
			}
		}
		return a.fail(cmd, map[string]any{"registry": path, "problems": problems},
			withHint(fmt.Errorf("couldn't ingest %s: %d %s (listed above); nothing was ingested", path, len(problems), what), hint))
	}
	if conflicts := registry.Conflicts(reg.Check(dir)); len(conflicts) > 0 {
		return nil, refuse(conflicts, plural(len(conflicts), "conflicting entry", "conflicting entries"),
			"make each path and synonym name one document (`warren registry check "+path+"` shows every problem), then ingest again")
	}
	if outside := reg.Outside(dir); len(outside) > 0 && !allowOutside {
		return nil, refuse(outside, plural(len(outside), "document outside the registry's folder", "documents outside the registry's folder"),
			"move them under "+dir+", or give --allow-outside to ingest them from where they are")
	}
	return reg, nil
}

// ingestOutcome is the exit class of a finished ingest: interrupted (1), nothing stored (5),
// some files skipped or failed (3), or nil.
func ingestOutcome(rep *kb.IngestReport) error {
	bad := rep.Skipped + rep.Failed
	switch {
	case rep.Canceled:
		return withHint(fmt.Errorf("interrupted: %d document(s) stored, the rest left as they were", rep.Ingested),
			"run the same ingest again to go on: stored files are unchanged and skipped")
	case len(rep.Files) == 0:
		return &cliError{err: errors.New("nothing stored: no files to ingest"), code: exitNothingStored,
			hint: "give files or folders with documents warren reads (Markdown, text, PDF, HTML)"}
	case rep.Ingested+rep.Unchanged == 0: // an unchanged file is stored
		return &cliError{err: fmt.Errorf("nothing stored: all %d %s skipped or failed (each is listed with its reason)", bad, plural(bad, "file was", "files were")),
			code: exitNothingStored, hint: "fix or remove the files listed, then ingest again"}
	case rep.Partial():
		return partialError("fix or remove the files listed, then ingest again (stored files are unchanged and skipped)",
			"%d of %d files skipped or failed (each is listed with its reason); the others are stored", bad, len(rep.Files))
	}
	return nil
}

// ingest runs the items collection by collection, each with its own embedder.
func (a *app) ingest(ctx context.Context, e *env, items []kb.Item, choice string, force bool) (*kb.IngestReport, error) {
	byCollection := map[string][]kb.Item{}
	var names []string
	for _, it := range items {
		if _, ok := byCollection[it.Collection]; !ok {
			names = append(names, it.Collection)
		}
		byCollection[it.Collection] = append(byCollection[it.Collection], it)
	}
	total := &kb.IngestReport{}
	bar := newProgressLine(a.stderr)
	done := 0
	for _, name := range names {
		if ctx.Err() != nil {
			total.Canceled = true
			break
		}
		note := func(msg string) {
			bar.done()
			fmt.Fprintln(a.stderr, "note:", msg)
		}
		emb, err := e.EmbedderFor(ctx, name, choice, note)
		if force && errors.Is(err, kb.ErrEmbedderChanged) {
			// The collection's embedder is no longer configured: a rebuild moves it to the one a
			// new collection would get.
			emb, err = e.EmbedderFor(ctx, "", choice, note)
		}
		if err != nil {
			bar.done()
			return nil, err
		}
		if force {
			// A rebuild with another embedder starts the collection afresh: old and new vectors
			// are not comparable.
			if err := e.Store.ResetCollection(ctx, name, emb.ID()); err != nil {
				return nil, err
			}
		}
		offset := done
		rep, err := e.Store.Ingest(ctx, byCollection[name], kb.IngestOptions{
			Embedder: emb, Force: force,
			Chunk: kb.ChunkOptions{Size: e.WS.Config.KB.ChunkSize, Overlap: e.WS.Config.KB.ChunkOverlap},
			Load:  kb.LoadOptions{MaxFileBytes: int64(e.WS.Config.KB.MaxFileMB) << 20},
			Progress: func(p kb.Progress) {
				p.Files, p.FilesDone = len(items), p.FilesDone+offset
				p.Chunks += total.Chunks
				bar.ingest(p)
			},
		})
		if err != nil {
			bar.done()
			return nil, err
		}
		done += len(byCollection[name])
		merge(total, rep)
	}
	bar.done()
	if secs := total.Duration.Seconds(); secs > 0 {
		total.ChunksPerSec = float64(total.Chunks) / secs
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

func registryItems(reg *registry.Registry, dir string) []kb.Item {
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

// updateWorkspaceRegistry records every stored document in the workspace registry: entries of
// an ingested registry are copied with their synonyms; other documents get synonyms suggested
// from their metadata. Entries the analyst already has are kept.
func updateWorkspaceRegistry(ctx context.Context, e *env, from *registry.Registry, items []kb.Item, rep *kb.IngestReport) error {
	ws, err := e.Registry()
	if err != nil {
		return err
	}
	byPath := map[string]kb.Item{}
	for _, it := range items {
		byPath[it.Path] = it
	}
	changed := false
	for _, f := range rep.Files {
		if f.Status != kb.StatusIngested && f.Status != kb.StatusUnchanged {
			continue
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
		} else if info, ok, err := e.Store.Document(ctx, f.Doc); err == nil && ok {
			// Title and path only: synonyms are the analyst's to approve (`warren registry suggest`).
			entry.Title = info.Title
		}
		if upsert(ws, it.Collection, entry) {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return ws.Save(filepath.Join(e.WS.Dir, registry.FileName))
}

// upsert adds a document to a collection of the registry unless it is there; an existing
// entry only gains a missing source.
func upsert(r *registry.Registry, collection string, d registry.Document) bool {
	c := r.Collections[collection]
	if c == nil {
		c = &registry.Collection{}
		r.Collections[collection] = c
	}
	for i, old := range c.Documents {
		if old.Path == d.Path {
			if old.Source == "" && d.Source != "" {
				c.Documents[i].Source = d.Source
				return true
			}
			return false
		}
	}
	c.Documents = append(c.Documents, d)
	sort.Slice(c.Documents, func(i, j int) bool { return c.Documents[i].Path < c.Documents[j].Path })
	return true
}

func printIngestReport(a *app, rep *kb.IngestReport) {
	for _, f := range rep.Files {
		switch f.Status {
		case kb.StatusSkipped, kb.StatusFailed:
			fmt.Fprintf(a.stdout, "%-7s %s: %s\n", strings.ToUpper(f.Status[:4]), f.Path, f.Reason)
		}
	}
	fmt.Fprintf(a.stdout, "Ingested %d, unchanged %d, skipped %d, failed %d: %d chunks in %.1fs (%.0f chunks/s).\n",
		rep.Ingested, rep.Unchanged, rep.Skipped, rep.Failed, rep.Chunks, rep.Duration.Seconds(), rep.ChunksPerSec)
}

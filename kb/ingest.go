package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"warren/internal/realpath"
	"warren/kb/chunk"
	"warren/kb/load"
)

// Item is one thing to ingest: a file or folder document, with its identity in the knowledge
// base.
type Item struct {
	Path       string // file or folder on disk
	ID         string // registry path
	Collection string
	Title      string // overrides the loader's title when set (from a registry)
	Skip       string // why this item cannot be read (found while collecting); reported, not loaded
	// Within, when set, is the folder (absolute, resolved) the item was found in while walking
	// without following links out of it: Load reads it only if it still lies there.
	Within string
}

// File outcomes of an ingest.
const (
	StatusIngested  = "ingested"
	StatusUnchanged = "unchanged"
	StatusSkipped   = "skipped"
	StatusFailed    = "failed"
)

// FileResult is what happened to one item, or to one attachment of an e-mail item.
type FileResult struct {
	Path   string `json:"path"` // an attachment's: "mail.eml › sds.pdf"
	Doc    string `json:"doc,omitempty"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Chunks int    `json:"chunks,omitempty"`
	// AttachedTo is, for an attachment, the ID of the document it came attached to.
	AttachedTo string `json:"attached_to,omitempty"`
}

// Progress is reported as items are stored and during embedding.
type Progress struct {
	Files, FilesDone int
	Chunks           int // chunks stored so far
	Embedded         int // texts embedded so far
	Current          string
	Elapsed          time.Duration
	// Rate is files done per second over the last few seconds, and Remaining the time the
	// files left would take at it; both 0 until a first measure.
	Rate      float64
	Remaining time.Duration
	// Saving: every file is through and what was stored is being saved (at a large
	// collection, its vector index built), which the rate does not cover.
	Saving bool
}

// IngestOptions configure an ingest.
type IngestOptions struct {
	Embedder Embedder
	Chunk    load.ChunkOptions
	Load     load.LoadOptions
	Force    bool // re-ingest unchanged files too
	Progress func(Progress)
	// EmbedGroup is how many texts one embedding call takes at most (0: 256): for a model
	// server, its batch size times the requests the embed role's hosts take at once, so that
	// every host has work.
	EmbedGroup int
}

// IngestReport sums up an ingest.
type IngestReport struct {
	Files        []FileResult  `json:"files"`
	Ingested     int           `json:"ingested"`
	Unchanged    int           `json:"unchanged"`
	Skipped      int           `json:"skipped"`
	Failed       int           `json:"failed"`
	Chunks       int           `json:"chunks"`
	Embedded     int           `json:"embedded"`
	Duration     time.Duration `json:"duration_ns"`
	ChunksPerSec float64       `json:"chunks_per_second"`
	Canceled     bool          `json:"canceled,omitempty"`
}

// Partial reports whether some item was skipped or failed.
func (r *IngestReport) Partial() bool { return r.Skipped+r.Failed > 0 }

// Ingest loads, chunks, embeds and stores every item in the embedded knowledge base (see
// Ingest).
func (s *Store) Ingest(ctx context.Context, items []Item, opts IngestOptions) (*IngestReport, error) {
	return Ingest(ctx, s, items, opts)
}

// storeDocument stores a loaded document unless it is stored unchanged, filling in res.
func storeDocument(ctx context.Context, s Backend, doc *load.Document, res fileOutcome, opts IngestOptions, embedded func(int)) fileOutcome {
	old, found, err := s.Document(ctx, doc.ID)
	if err == nil && found && old.Source != doc.Source {
		// Two files with the same name from different folders: never let one replace the other.
		err := fmt.Errorf("the ID %s is taken by %s: ingest this file through its folder, or remove the other with `warren kb rm %s`",
			doc.ID, old.Source, doc.ID)
		res.Status, res.Reason, res.err = StatusFailed, err.Error(), err
		return res
	}
	if !opts.Force && found && old.Hash == doc.Hash && old.Collection == doc.Collection && sameMessage(old.Meta, doc.Meta) {
		if info, ok, _ := s.Collection(ctx, doc.Collection); ok && SameEmbedder(info.Embedder, opts.Embedder.ID()) {
			res.Status, res.Chunks = StatusUnchanged, old.Chunks
			return res
		}
	}
	if info, ok, err := s.Collection(ctx, doc.Collection); err == nil && ok {
		if err := info.CheckEmbedder(opts.Embedder.ID(), 0); err != nil {
			res.Status, res.Reason, res.err = StatusFailed, err.Error(), err
			return res
		}
	}
	if found && load.CarriesAttachments(old.Format) {
		// Attachments the new version no longer has go before it replaces the old one: an
		// ingest that dies in between still finds the old version changed and does it again.
		if err := removeDroppedAttachments(ctx, s, doc); err != nil {
			res.Status, res.Reason, res.err = StatusFailed, err.Error(), err
			return res
		}
	}
	n, err := addDocument(ctx, s, doc, opts.Embedder, opts.Chunk, embedded, opts.Force)
	switch {
	case errors.Is(err, errNoText):
		res.Status, res.Reason = StatusSkipped, "no text to index"
	case err != nil:
		res.Status, res.Reason, res.err = StatusFailed, err.Error(), err
	default:
		res.Status, res.Chunks = StatusIngested, n
		if unread := doc.Meta["pages_not_read"]; unread != "" {
			// Stored, but not whole: the analyst must hear which pages are missing and why.
			res.Reason = "stored without " + unread
		}
	}
	return res
}

var errNoText = errors.New("no text to index")

// AddDocument chunks, embeds and stores a loaded document (replacing an earlier version) and
// returns its number of chunks. embedded, when given, reports embedding progress.
func (s *Store) AddDocument(ctx context.Context, doc *load.Document, emb Embedder, opts load.ChunkOptions, embedded func(int)) (int, error) {
	return addDocument(ctx, s, doc, emb, opts, embedded, false)
}

// AddDocument chunks, embeds and stores a loaded document in a backend, as Store.AddDocument
// does in the embedded one.
func AddDocument(ctx context.Context, b Backend, doc *load.Document, emb Embedder, opts load.ChunkOptions, embedded func(int)) (int, error) {
	return addDocument(ctx, b, doc, emb, opts, embedded, false)
}

// addDocument is AddDocument; in a rebuild, a collection whose model now gives vectors of
// another length is emptied first, as a rebuild with another model empties it (ResetCollection):
// the old vectors cannot be searched with the new ones.
func addDocument(ctx context.Context, s Backend, doc *load.Document, emb Embedder, opts load.ChunkOptions, embedded func(int), rebuild bool) (int, error) {
	if opts.Size == 0 {
		opts = load.DefaultChunkOptions
	}
	chunker := &load.Chunker{Doc: doc.ID, Collection: doc.Collection, Options: opts}
	var chunks []chunk.Chunk
	if err := doc.EachSection(func(sec load.Section) error {
		chunks = append(chunks, chunker.Section(sec)...)
		return ctx.Err()
	}); err != nil {
		return 0, fmt.Errorf("couldn't read: %w", err)
	}
	if len(chunks) == 0 {
		return 0, errNoText
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = chunk.IndexText(c)
	}
	vectors, err := emb.Embed(ctx, texts, embedded)
	if err != nil {
		return 0, fmt.Errorf("couldn't embed: %w", err)
	}
	err = s.ReplaceDocument(ctx, doc, chunks, vectors, emb.ID())
	var mismatch *EmbedderMismatchError
	if rebuild && errors.As(err, &mismatch) && SameEmbedder(mismatch.Built, mismatch.Asked) {
		if err = s.EmptyCollection(ctx, doc.Collection, emb.ID()); err == nil {
			err = s.ReplaceDocument(ctx, doc, chunks, vectors, emb.ID())
		}
	}
	if err != nil {
		return 0, err
	}
	return len(chunks), nil
}

// fileOutcome is a FileResult with the error behind a failure, for the caller's decisions.
type fileOutcome struct {
	FileResult
	err error
}

// CollectOptions shape how CollectItemsWith walks folders.
type CollectOptions struct {
	// FollowSymlinks collects what a symbolic link inside a walked folder leads to even when
	// it lies outside that folder (a linked folder is walked, once); without it such a link is
	// reported as a skipped item that says so.
	FollowSymlinks bool
	// Confine, when set, lists the only folders (absolute, symbolic links resolved) a path
	// given or a link may lead into, FollowSymlinks or not. Load the items with the same
	// folders in LoadOptions.Confine, so that the check holds for each file as it is read.
	Confine []string
}

// CollectItems is CollectItemsWith without options: symbolic links out of a walked folder are
// not followed.
func CollectItems(paths []string, collection string) ([]Item, error) {
	return CollectItemsWith(paths, collection, CollectOptions{})
}

// CollectItemsWith turns paths into ingest items for one collection. A path given is read
// wherever it leads, as the caller named it (with opts.Confine, one that leads outside is an
// *OutsideError); a folder document is one item; another folder is walked for files (hidden
// ones left out). A symbolic link met while walking is a skipped item, with its reason, when
// it leads out of the folder (unless opts.FollowSymlinks), out of opts.Confine, nowhere, or to
// what the walk collects anyway. IDs are paths relative to each argument's parent folder, so
// `ingest sample/suppliers` names its files "suppliers/<file>".
func CollectItemsWith(paths []string, collection string, opts CollectOptions) ([]Item, error) {
	c := &collector{opts: opts, collection: collection}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("couldn't read %s: %w", p, err)
		}
		// Absolute, as the real paths of the files opened later are.
		real, err := realpath.Resolve(p)
		if err != nil {
			return nil, err
		}
		if len(opts.Confine) > 0 && !realpath.WithinAny(real, opts.Confine) {
			return nil, &load.OutsideError{Path: p, Reason: "it leads outside the folders this ingest may read"}
		}
		c.base = filepath.Dir(filepath.Clean(p))
		if !info.IsDir() || load.IsFolderDocument(p) {
			c.items = append(c.items, Item{Path: p, ID: relID(c.base, p), Collection: collection})
			continue
		}
		c.walked = nil
		if !opts.FollowSymlinks {
			c.within = real
		}
		if err := c.walk(p, real); err != nil {
			return nil, fmt.Errorf("couldn't walk %s: %w", p, err)
		}
	}
	sort.SliceStable(c.items, func(i, j int) bool { return c.items[i].ID < c.items[j].ID })
	return c.items, nil
}

// collector gathers the items of one CollectItemsWith call.
type collector struct {
	opts       CollectOptions
	collection string
	items      []Item
	base       string   // the current argument's parent folder, which IDs are relative to
	within     string   // Item.Within of what is walked: the argument's real path, unless links are followed
	walked     []string // real paths of the folders walked for the current argument
}

func (c *collector) add(path, skip string) {
	c.items = append(c.items, Item{Path: path, ID: relID(c.base, path), Collection: c.collection, Skip: skip, Within: c.within})
}

// walk collects the files under root, whose real path is real.
func (c *collector) walk(root, real string) error {
	c.walked = append(c.walked, real)
	start := root
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		start = root + string(filepath.Separator) // WalkDir descends into a linked folder only so
	}
	return filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == start {
				return err
			}
			// An unreadable file or folder is reported; the rest of the walk goes on.
			c.add(path, "unreadable: "+err.Error())
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == start {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return c.link(path)
		}
		if d.IsDir() {
			if load.IsFolderDocument(path) {
				c.add(path, "")
				return filepath.SkipDir
			}
			return nil
		}
		c.add(path, "")
		return nil
	})
}

// link decides on a symbolic link met while walking: skipped with its reason, collected, or
// (a linked folder) walked.
func (c *collector) link(path string) error {
	target, err := filepath.EvalSymlinks(path)
	if err == nil {
		target, err = filepath.Abs(target) // compared with absolute folders below
	}
	if err != nil {
		c.add(path, "a symbolic link that leads nowhere (its target is missing)")
		return nil
	}
	info, err := os.Stat(target)
	if err != nil {
		c.add(path, "unreadable: "+err.Error())
		return nil
	}
	switch {
	case len(c.opts.Confine) > 0 && !realpath.WithinAny(target, c.opts.Confine):
		c.add(path, "a symbolic link that leads outside the folders this ingest may read")
	case realpath.WithinAny(target, c.walked):
		c.add(path, "a symbolic link within the folder: what it leads to is read under its own name")
	case !c.opts.FollowSymlinks:
		c.add(path, "a symbolic link out of the folder (to "+target+"); ingest with --follow-symlinks to read it")
	case info.IsDir() && load.IsFolderDocument(target):
		c.add(path, "")
	case info.IsDir():
		if err := c.walk(path, target); err != nil {
			c.add(path, "unreadable: "+err.Error())
		}
	default:
		c.add(path, "")
	}
	return nil
}

func relID(base, path string) string {
	rel, err := filepath.Rel(base, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

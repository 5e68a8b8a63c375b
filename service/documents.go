package service

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/registry"
	"warren/retrieval"
	"warren/service/audit"
	"warren/service/grants"
)

// Knowledge is the knowledge desk: ingesting files, the collections and documents, search,
// references and the registry. It owns the served view's rule that an analyst ingests only
// from serve.ingest_roots (ErrOutsideIngestRoots), so the CLI and the workbench are refused
// alike.
type Knowledge struct{ s *Service }

// Knowledge is the knowledge desk of this view.
func (s *Service) Knowledge() *Knowledge { return &Knowledge{s: s} }

// UnknownCollectionError names a collection the knowledge base does not have, with the ones
// it has (none when nothing was ingested yet).
type UnknownCollectionError struct {
	Name string
	Have []string
}

func (e *UnknownCollectionError) Error() string {
	if len(e.Have) == 0 {
		return fmt.Sprintf("no collection %q: the knowledge base has no collections yet", e.Name)
	}
	return fmt.Sprintf("no collection %q in the knowledge base; there are %s", e.Name, strings.Join(e.Have, ", "))
}

// CheckCollections refuses names the knowledge base has no collection for with an
// *UnknownCollectionError, which lists only the collections the analyst may read.
func (k *Knowledge) CheckCollections(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	cols, err := k.Collections(ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	var all []string
	for _, c := range cols {
		have[c.Name] = true
		all = append(all, c.Name)
	}
	for _, n := range names {
		if !have[n] {
			return &UnknownCollectionError{Name: n, Have: all}
		}
	}
	return nil
}

// Listing is the knowledge base's collections and documents.
type Listing struct {
	Collections []kb.CollectionInfo `json:"collections"`
	Documents   []kb.DocInfo        `json:"documents"`
}

// List lists the collections and their documents; a collection given narrows both to it
// (one the knowledge base lacks is an *UnknownCollectionError).
func (k *Knowledge) List(ctx context.Context, collection string) (Listing, error) {
	if collection != "" {
		if err := k.s.require(ctx, grants.Read, collection); err != nil {
			return Listing{}, err
		}
		if err := k.CheckCollections(ctx, []string{collection}); err != nil {
			return Listing{}, err
		}
	}
	cols, err := k.Collections(ctx)
	if err != nil {
		return Listing{}, err
	}
	docs, err := k.Documents(ctx, collection)
	if err != nil {
		return Listing{}, err
	}
	if collection != "" {
		var only []kb.CollectionInfo
		for _, c := range cols {
			if c.Name == collection {
				only = append(only, c)
			}
		}
		cols = only
	}
	return Listing{Collections: cols, Documents: docs}, nil
}

// RemoveDocuments removes documents named as FindDocument understands them, with their
// chunks and vectors and the documents that came attached to them (an e-mail's attachments),
// and returns their IDs; their registry entries stay, so a later ingest can bring them back.
// It stops at the first name that finds no single document; the vectors of the documents
// removed before it are saved all the same.
func (k *Knowledge) RemoveDocuments(ctx context.Context, names []string) ([]string, error) {
	var removed []string
	var err error
	for _, name := range names {
		var id string
		if id, err = k.FindDocument(ctx, name); err != nil {
			break
		}
		// Removing is writing: the analyst must be allowed to ingest into its collection.
		if err = k.requireDoc(ctx, id, grants.Write); err != nil {
			break
		}
		collection := ""
		if d, ok, derr := k.s.store.Document(ctx, id); derr == nil && ok {
			collection = d.Collection
		}
		var gone []string
		gone, err = kb.RemoveDocumentAndAttachments(ctx, k.s.store, id)
		removed = append(removed, gone...)
		k.s.record(ctx, audit.ActionRemove, collection, map[string]any{"document": id, "removed": gone}, err)
		if err != nil {
			break
		}
	}
	if serr := k.s.store.Flush(ctx); err == nil {
		err = serr
	}
	return removed, err
}

// FindDocument turns what an analyst typed into a stored document ID: the ID itself, or else
// a registry name (synonym, title) or the file or folder name, with or without a known
// extension. When these point at different documents the name is ambiguous and says so.
func (k *Knowledge) FindDocument(ctx context.Context, name string) (string, error) {
	docs, err := k.s.store.Documents(ctx, "")
	if err != nil {
		return "", err
	}
	candidates := map[string]bool{}
	for _, d := range docs {
		if d.ID == name {
			return d.ID, nil
		}
		base := filepath.Base(d.ID)
		if strings.EqualFold(base, name) || strings.EqualFold(trimKnownExt(base), name) {
			candidates[d.ID] = true
		}
	}
	reg, err := k.s.Registry()
	if err != nil {
		return "", err
	}
	if m, ok := registry.NewResolver(reg).Resolve(name, ""); ok && m.Method == registry.MethodExact {
		for _, d := range docs {
			if d.ID == m.Doc.Path {
				candidates[d.ID] = true
			}
		}
	}
	ids := make([]string, 0, len(candidates))
	for id := range candidates {
		ids = append(ids, id)
	}
	// A name that means a document the analyst may not read is refused naming its collection;
	// one that also means readable documents means those only, so no list of candidates
	// names what they may not read.
	var refused error
	ids = slices.DeleteFunc(ids, func(id string) bool {
		if err := k.requireDoc(ctx, id, grants.Read); err != nil {
			refused = err
			return true
		}
		return false
	})
	switch len(ids) {
	case 0:
		if refused != nil {
			return "", refused
		}
		return "", fmt.Errorf("no document %q in the knowledge base: `warren kb list` shows what is there", name)
	case 1:
		return ids[0], nil
	}
	sort.Strings(ids)
	return "", fmt.Errorf("%q could mean %s: give the full document path", name, strings.Join(ids, " or "))
}

// trimKnownExt drops a file extension warren reads, so "rfc6902" names rfc6902.txt but "12"
// does not name the folder 12.BImSchV.
func trimKnownExt(name string) string {
	if ext := filepath.Ext(name); load.Reads(ext) {
		return strings.TrimSuffix(name, ext)
	}
	return name
}

// Search ranks passages for a query within req.Scope, for the CLI and the workbench alike. The
// scope's collections must exist: one that does not is an *UnknownCollectionError. The scope's
// document (req.Scope.Doc, when not empty) may be given by any name FindDocument understands
// ("rfc6902", a registry synonym), not only by its stored ID; a name that matches none, or
// more than one, is refused in words. A served analyst searches only the collections they may
// read (see Service.Searcher); a scope that names one they may not, by its name or by a
// document in it, is refused with an *AccessError.
func (k *Knowledge) Search(ctx context.Context, req retrieval.Request) (res []retrieval.Result, err error) {
	defer func() {
		k.s.record(ctx, audit.ActionSearch, strings.Join(req.Scope.Collections, ","), map[string]any{
			"query": k.s.auditQuery(req.Query), "doc": req.Scope.Doc, "results": len(res)}, err)
	}()
	if err := k.s.require(ctx, grants.Read, req.Scope.Collections...); err != nil {
		return nil, err
	}
	if err := k.CheckCollections(ctx, req.Scope.Collections); err != nil {
		return nil, err
	}
	if req.Scope.Doc != "" {
		id, err := k.FindDocument(ctx, req.Scope.Doc)
		if err != nil {
			return nil, err
		}
		if err := k.requireDoc(ctx, id, grants.Read); err != nil {
			return nil, err
		}
		req.Scope.Doc = id
	}
	return k.s.Searcher().Search(ctx, req)
}

// Collections lists the knowledge base's collections that the analyst may read.
func (k *Knowledge) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	cols, err := k.s.store.Collections(ctx)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, k.s, cols, func(c kb.CollectionInfo) string { return c.Name })
}

// Documents lists a collection's documents ("" for all), of the collections the analyst may read.
func (k *Knowledge) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	docs, err := k.s.store.Documents(ctx, collection)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, k.s, docs, func(d kb.DocInfo) string { return d.Collection })
}

// DocumentChunks is a document's chunks in order; a document in a collection the analyst may
// not read is refused with an *AccessError.
// Each opening, and each refusal, is in the audit trail.
func (k *Knowledge) DocumentChunks(ctx context.Context, doc string) (cs []chunk.Chunk, err error) {
	defer func() { k.s.record(ctx, audit.ActionOpen, doc, map[string]any{"passages": len(cs)}, err) }()
	if err := k.requireDoc(ctx, doc, grants.Read); err != nil {
		return nil, err
	}
	return k.s.store.DocumentChunks(ctx, doc)
}

// Chunks loads chunks by ID, leaving out those of collections the analyst may not read (as
// if they did not exist: the IDs came from elsewhere, a citation or a saved run).
func (k *Knowledge) Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error) {
	cs, err := k.s.store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, k.s, cs, func(c chunk.Chunk) string { return c.Collection })
}

// requireDoc refuses a stored document whose collection the analyst lacks want on; an unknown
// document passes, for the store to report.
func (k *Knowledge) requireDoc(ctx context.Context, doc string, want grants.Level) error {
	if k.s.isAdmin() {
		return nil
	}
	d, ok, err := k.s.store.Document(ctx, doc)
	if err != nil || !ok {
		return err
	}
	return k.s.require(ctx, want, d.Collection)
}

// keepReadable keeps the items whose collection the analyst may read.
func keepReadable[T any](ctx context.Context, s *Service, items []T, collection func(T) string) ([]T, error) {
	if s.isAdmin() {
		return items, nil
	}
	level, err := s.levels(ctx)
	if err != nil {
		return nil, err
	}
	kept := items[:0:0]
	for _, it := range items {
		if level(collection(it)).Allows(grants.Read) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

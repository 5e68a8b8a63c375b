package service

import (
	"context"

	"warren/kb"
	"warren/kb/chunk"
	"warren/service/grants"
)

// confinedStore is the knowledge base as one analyst may read it: what research runs,
// reference resolution and gas fills reach without a search (a document found by its name,
// its sections, passages by ID) passes through here. A document of a collection the
// analyst may not read is refused with an *AccessError (kb.ErrNotAccessible), never read;
// listings and chunks by ID leave such collections out, as if they did not exist. Writes go
// to the store unchanged: ingest and removal check write access themselves.
type confinedStore struct {
	kb.Backend
	s *Service
}

// reader is the knowledge base this view's analyst may read: the store itself for an admin.
func (s *Service) reader() kb.Backend {
	if s.isAdmin() {
		return s.store
	}
	return &confinedStore{Backend: s.store, s: s}
}

func (c *confinedStore) level(ctx context.Context) (func(string) grants.Level, error) {
	return c.s.levels(ctx)
}

// requireDoc refuses a stored document of a collection the analyst may not read; an unknown
// document passes, for the store to report as it does.
func (c *confinedStore) requireDoc(ctx context.Context, doc string) (kb.DocInfo, bool, error) {
	d, ok, err := c.Backend.Document(ctx, doc)
	if err != nil || !ok {
		return d, ok, err
	}
	if err := c.s.require(ctx, grants.Read, d.Collection); err != nil {
		return kb.DocInfo{}, false, err
	}
	return d, true, nil
}

func (c *confinedStore) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	cols, err := c.Backend.Collections(ctx)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, c.s, cols, func(ci kb.CollectionInfo) string { return ci.Name })
}

func (c *confinedStore) Collection(ctx context.Context, name string) (kb.CollectionInfo, bool, error) {
	if err := c.s.require(ctx, grants.Read, name); err != nil {
		return kb.CollectionInfo{}, false, err
	}
	return c.Backend.Collection(ctx, name)
}

func (c *confinedStore) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	if collection != "" {
		if err := c.s.require(ctx, grants.Read, collection); err != nil {
			return nil, err
		}
	}
	docs, err := c.Backend.Documents(ctx, collection)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, c.s, docs, func(d kb.DocInfo) string { return d.Collection })
}

func (c *confinedStore) Document(ctx context.Context, id string) (kb.DocInfo, bool, error) {
	return c.requireDoc(ctx, id)
}

func (c *confinedStore) DocumentBySource(ctx context.Context, source string) (string, bool, error) {
	id, ok, err := c.Backend.DocumentBySource(ctx, source)
	if err != nil || !ok {
		return id, ok, err
	}
	if _, _, err := c.requireDoc(ctx, id); err != nil {
		return "", false, err
	}
	return id, true, nil
}

func (c *confinedStore) Chunks(ctx context.Context, ids []string) ([]chunk.Chunk, error) {
	cs, err := c.Backend.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	return keepReadable(ctx, c.s, cs, func(ch chunk.Chunk) string { return ch.Collection })
}

func (c *confinedStore) DocumentChunks(ctx context.Context, doc string) ([]chunk.Chunk, error) {
	if _, _, err := c.requireDoc(ctx, doc); err != nil {
		return nil, err
	}
	return c.Backend.DocumentChunks(ctx, doc)
}

func (c *confinedStore) SectionChunks(ctx context.Context, doc, section string) ([]chunk.Chunk, error) {
	if _, _, err := c.requireDoc(ctx, doc); err != nil {
		return nil, err
	}
	return c.Backend.SectionChunks(ctx, doc, section)
}

func (c *confinedStore) DocumentVectors(ctx context.Context, doc string) ([][]float32, error) {
	if _, _, err := c.requireDoc(ctx, doc); err != nil {
		return nil, err
	}
	return c.Backend.DocumentVectors(ctx, doc)
}

// Lexical and Dense rank only readable collections: a scope naming none names them all.
func (c *confinedStore) Lexical(ctx context.Context, query, lang string, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	scope, ok, err := c.confine(ctx, scope)
	if err != nil || !ok {
		return nil, err
	}
	return c.Backend.Lexical(ctx, query, lang, scope, k)
}

func (c *confinedStore) Dense(ctx context.Context, vector []float32, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	scope, ok, err := c.confine(ctx, scope)
	if err != nil || !ok {
		return nil, err
	}
	return c.Backend.Dense(ctx, vector, scope, k)
}

func (c *confinedStore) confine(ctx context.Context, scope chunk.Scope) (chunk.Scope, bool, error) {
	names := scope.Collections
	if len(names) == 0 {
		cols, err := c.Backend.Collections(ctx)
		if err != nil {
			return scope, false, err
		}
		for _, ci := range cols {
			names = append(names, ci.Name)
		}
	}
	if scope.Doc != "" {
		d, ok, err := c.requireDoc(ctx, scope.Doc)
		if err != nil || !ok {
			return scope, false, nil
		}
		names = []string{d.Collection}
	}
	readable, err := c.s.readable(ctx, names)
	if err != nil || len(readable) == 0 {
		return scope, false, err
	}
	scope.Collections = readable
	return scope, true, nil
}

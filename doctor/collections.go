package doctor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"warren/internal/schema"
	"warren/kb"
	"warren/llm"
	"warren/llm/llmkb"
)

// checkCollections compares the embedder and dimension each collection was built with against
// what a search would embed its queries with now: the built-in scheme for a built-in
// collection, the configured embed model for the others. dim is that model's dimension, 0
// when it is not available (then only the model's name is compared). A collection that does
// not match fails with the rebuild that fixes it; the others share one line.
func (r *Report) checkCollections(ctx context.Context, dir string, g *llm.Gateway, dim int) {
	db, err := kb.OpenDB(filepath.Join(dir, kb.DBFileName), schema.All())
	if err != nil {
		r.add(Check{Name: "collections", Status: Skip, Detail: "the database does not open"})
		return
	}
	defer db.Close()
	r.checkCollectionsOf(ctx, kb.NewStore(&kb.Workspace{Dir: dir, DB: db}), g, dim)
}

// checkCollectionsOf is checkCollections over a backend's collections.
func (r *Report) checkCollectionsOf(ctx context.Context, b kb.Backend, g *llm.Gateway, dim int) {
	cols, err := b.Collections(ctx)
	if err != nil {
		r.add(Check{Name: "collections", Status: Fail, Detail: err.Error()})
		return
	}
	var ready []string
	failed := 0
	unchecked := false
	for _, c := range cols {
		if c.Chunks == 0 {
			continue // nothing to search, nothing to compare
		}
		err := collectionReady(c, g, dim)
		var mismatch *kb.EmbedderMismatchError
		switch {
		case errors.As(err, &mismatch):
			r.add(Check{Name: "collection " + c.Name, Status: Fail, Detail: mismatch.Problem(), Fix: mismatch.Fix()})
			failed++
			continue
		case err != nil:
			r.add(Check{Name: "collection " + c.Name, Status: Fail, Detail: err.Error()})
			failed++
			continue
		}
		ready = append(ready, fmt.Sprintf("%s (%s, %d dims)", c.Name, kb.EmbedderName(c.Embedder), c.Dim))
		unchecked = unchecked || dim == 0 && c.Embedder != (kb.Builtin{}).ID()
	}
	if len(ready) == 0 {
		if failed > 0 {
			return // every collection has its line above
		}
		r.add(Check{Name: "collections", Status: OK, Detail: "no documents ingested yet"})
		return
	}
	detail := "embedded as warren embeds queries: " + strings.Join(ready, ", ")
	if unchecked {
		detail += "; dimensions not checked (the embed model is not available)"
	}
	r.add(Check{Name: "collections", Status: OK, Detail: detail})
}

// collectionReady reports whether a search could embed queries for the collection as its
// vectors were embedded: nil, an *kb.EmbedderMismatchError, or why no embedder is available.
func collectionReady(c kb.CollectionInfo, g *llm.Gateway, dim int) error {
	dimOf := func(id string) int {
		if id == (kb.Builtin{}).ID() {
			return kb.BuiltinDim
		}
		return dim
	}
	emb, err := c.QueryEmbedder(llmkb.Embedder(g))
	var mismatch *kb.EmbedderMismatchError
	if errors.As(err, &mismatch) {
		mismatch.AskedDim = dimOf(mismatch.Asked)
		return mismatch
	}
	if err != nil {
		return err
	}
	return c.CheckEmbedder(emb.ID(), dimOf(emb.ID()))
}

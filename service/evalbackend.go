package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"

	"warren/kb"
	"warren/kb/weaviatekb"
)

// evalBackend returns the knowledge base an evaluation indexes into: the evaluation's own
// throwaway embedded store, or, with kb.backend = weaviate, classes of its own on the
// configured server under a random prefix, dropped by the returned function, so an evaluation
// never touches a knowledge base on the same server. headingWeight > 0 replaces the heading
// weight of the lexical ranking.
func evalBackend(ctx context.Context, ws *kb.Workspace, headingWeight float64) (kb.Backend, func(), error) {
	if ws.Config.KB.Backend != kb.BackendWeaviate {
		store := kb.NewStore(ws)
		if headingWeight > 0 {
			store.HeadingWeight = headingWeight
		}
		return store, func() {}, nil
	}
	opts := weaviatekb.OptionsFrom(ws.Config, os.Getenv)
	var suffix [6]byte
	rand.Read(suffix[:])
	opts.ClassPrefix = "WarrenEval" + hex.EncodeToString(suffix[:])
	if headingWeight > 0 {
		opts.Lexical.HeadingWeight = headingWeight
	}
	wv, err := weaviatekb.Open(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	return wv, func() {
		wv.DropAll(context.WithoutCancel(ctx))
		wv.Close()
	}, nil
}

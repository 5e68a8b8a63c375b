package service

import (
	"context"
	"os"
	"time"

	"warren/kb"
	"warren/kb/weaviatekb"
)

// OpenBackend returns the workspace's knowledge base as kb.backend says: the embedded store
// (warren.db and the workspace's vector files), or the Weaviate server at kb.weaviate.url,
// with its API key from WARREN_WEAVIATE_API_KEY. warren starts no server itself.
func OpenBackend(ctx context.Context, ws *kb.Workspace) (kb.Backend, error) {
	return openBackend(ctx, ws, ws.Config.KB.Backend)
}

// openBackend opens a backend of that kind over the workspace and its configuration: the
// Weaviate server for kb.BackendWeaviate, else the embedded store.
func openBackend(ctx context.Context, ws *kb.Workspace, kind string) (kb.Backend, error) {
	if kind != kb.BackendWeaviate {
		return kb.NewStore(ws), nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return weaviatekb.Open(ctx, weaviatekb.OptionsFrom(ws.Config, os.Getenv))
}

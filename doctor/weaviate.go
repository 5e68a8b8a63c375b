package doctor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"warren/config"
	"warren/kb/weaviatekb"
)

// checkWeaviate checks the knowledge base's server when kb.backend is weaviate: that it
// answers and which version it runs, then that warren's classes are as warren creates them
// and each collection's vectors have the length it recorded. The embedding dimension against
// the embed model is checked with the collections (checkCollectionsOf). It returns the
// backend's reachability: false when it does not answer.
func (r *Report) checkWeaviate(ctx context.Context, cfg *config.Config, wv *weaviatekb.Backend) bool {
	opts := weaviatekb.OptionsFrom(cfg, os.Getenv)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	version, err := wv.Version(ctx)
	if err != nil {
		r.add(Check{Name: "weaviate", Status: Fail, Detail: err.Error()})
		return false
	}
	transport := "REST"
	if opts.GRPC != "" {
		transport = "REST, gRPC " + opts.GRPC
	}
	r.add(Check{Name: "weaviate", Status: OK, Detail: fmt.Sprintf("Weaviate %s at %s (%s)", version, opts.URL, transport)})
	problems, err := wv.CheckSchema(ctx)
	switch {
	case err != nil:
		r.add(Check{Name: "weaviate schema", Status: Fail, Detail: err.Error()})
	case len(problems) > 0:
		r.add(Check{Name: "weaviate schema", Status: Fail, Detail: strings.Join(problems, "; "),
			Fix: "delete the class named (warren creates it again) and ingest its collection again"})
	default:
		r.add(Check{Name: "weaviate schema", Status: OK, Detail: "warren's classes as warren creates them, vectors of the recorded lengths"})
	}
	return true
}

// openWeaviate connects to the configured server for the checks; a failure is the check's
// result, and nil is returned.
func (r *Report) openWeaviate(ctx context.Context, cfg *config.Config) *weaviatekb.Backend {
	opts := weaviatekb.OptionsFrom(cfg, os.Getenv)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	wv, err := weaviatekb.Open(ctx, opts)
	if err != nil {
		r.add(Check{Name: "weaviate", Status: Fail, Detail: err.Error(),
			Fix: fmt.Sprintf("start the Weaviate server at %s, or correct kb.weaviate.url (the API key comes from %s)", opts.URL, weaviatekb.APIKeyEnv)})
		return nil
	}
	return wv
}

package service

import (
	"context"
	"errors"
	"fmt"

	"warren/kb"
	"warren/kb/kbcopy"
)

// MigrateOptions steer Knowledge.Migrate.
type MigrateOptions struct {
	// To is the backend that receives the knowledge base: kb.BackendWeaviate (the server of
	// kb.weaviate.url) or kb.BackendEmbedded (this workspace's warren.db and vector files);
	// the other one is the source.
	To string
	// Prune removes documents from the destination that the source does not hold.
	Prune bool
	// Progress is told after each document (may be nil).
	Progress func(kbcopy.Progress)
}

// MigrateReport is the outcome of Knowledge.Migrate.
type MigrateReport struct {
	From string `json:"from"`
	To   string `json:"to"`
	URL  string `json:"url"` // the Weaviate server on either side
	*kbcopy.Report
}

// Backend names the backend that searches use (kb.backend: embedded or weaviate); Migrate
// leaves it as it is.
func (k *Knowledge) Backend() string { return k.s.ws.Config.KB.Backend }

// Migrate copies the knowledge base between the embedded backend and the Weaviate server
// of the configuration, with the vectors as stored (nothing is embedded again). A run that
// was killed or cancelled goes on where it stopped (see kbcopy.Copy); the copy is verified
// by counts and checksum. kb.backend is left as it is: the analyst switches when the copy is
// verified.
func (k *Knowledge) Migrate(ctx context.Context, opts MigrateOptions) (*MigrateReport, error) {
	url := k.s.ws.Config.KB.Weaviate.URL
	rep := &MigrateReport{To: opts.To, URL: url}
	if opts.To != kb.BackendWeaviate && opts.To != kb.BackendEmbedded { // before any server is asked
		return rep, fmt.Errorf("couldn't migrate the knowledge base to %q: allowed is %s or %s", opts.To, kb.BackendWeaviate, kb.BackendEmbedded)
	}
	if url == "" {
		return rep, errors.New("couldn't migrate the knowledge base: kb.weaviate.url is not set (the Weaviate server to copy to or from)")
	}
	embedded, err := k.s.backendOf(ctx, kb.BackendEmbedded)
	if err != nil {
		return rep, err
	}
	server, err := k.s.backendOf(ctx, kb.BackendWeaviate)
	if err != nil {
		return rep, err
	}
	if server != k.s.store {
		defer closeBackend(server) // opened for the copy: its gRPC connection ends with it
	}
	var src, dst kb.Backend
	var target string
	switch opts.To {
	case kb.BackendWeaviate:
		src, dst, target = embedded, server, "weaviate "+url
		rep.From = kb.BackendEmbedded
	default:
		src, dst, target = server, embedded, "embedded from weaviate "+url
		rep.From = kb.BackendWeaviate
	}
	rep.Report, err = kbcopy.Copy(ctx, k.s.ws.DB, src, dst, kbcopy.Options{Target: target, Prune: opts.Prune, Progress: opts.Progress})
	return rep, err
}

// backendOf is the open backend of that kind: the service's own when it is that kind, else
// a new one over the same workspace and configuration.
func (s *Service) backendOf(ctx context.Context, kind string) (kb.Backend, error) {
	if s.store != nil && s.store.Kind() == kind {
		return s.store, nil
	}
	return openBackend(ctx, s.ws, kind)
}

// Package service is warren's application layer: it opens a workspace and offers every use
// case, and its jobs (package service/jobs) own the long ones, which outlive any one screen.
// The CLI (cmd/warren) and the workbench (tui) are front ends over it.
package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"warren/agent"
	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/registry"
	"warren/service/jobs"
)

// Options open a workspace.
type Options struct {
	// Logger receives diagnostics (retries, repairs); nil discards them.
	Logger *slog.Logger
	// Owner names the analyst on whose behalf jobs are started (the account, or the SSH user).
	Owner string
	// Reindexing hears how far the re-index has come that opening a workspace indexed by an
	// older warren runs first (kb.IndexVersion): passages done of all. nil: it is logged only.
	Reindexing func(done, total int)
}

// Service is an open workspace with everything its use cases need. Its workspace, stores,
// model gateway, jobs and log are its own: front ends and other packages reach them only
// through its methods, one per use case whichever front end calls it.
type Service struct {
	ws      *kb.Workspace
	store   kb.Backend
	gateway *llm.Gateway
	jobs    *jobs.Manager
	log     *slog.Logger
	// Owner names the analyst this view of the service acts for: jobs it starts are theirs and
	// every decision it records names them.
	Owner string
	// Admin may answer, approve and cancel any analyst's jobs, not only its own.
	Admin bool
	// served marks a view of `warren serve` (see Served): ingest only from serve.ingest_roots.
	served bool

	changes *changeFeed // every view's gas decisions and toxicology saves (see Changes)

	sources config.Sources // the configuration layers above the workspace file, for the doctor

	embedChecked bool
	embedErr     error // why the Ollama embed role is unavailable, once checked
	noted        bool
}

// Open opens the workspace in dir with its configuration layered over src.
func Open(dir string, src config.Sources, opts Options) (*Service, error) {
	ws, err := kb.Open(dir, src, schema.All())
	if err != nil {
		return nil, err
	}
	s, err := OpenWorkspace(ws, opts)
	if err != nil {
		ws.Close()
		return nil, err
	}
	s.sources = src
	return s, nil
}

// OpenWorkspace serves a workspace that is already open; closing the service closes it.
func OpenWorkspace(ws *kb.Workspace, opts Options) (*Service, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g, err := llm.New(ws.Config, llm.WithLogger(log))
	if err != nil {
		return nil, err
	}
	store, err := OpenBackend(context.Background(), ws)
	if err != nil {
		return nil, err
	}
	if err := reindex(store, log, opts.Reindexing); err != nil {
		closeBackend(store)
		return nil, err
	}
	j, err := jobs.New(context.Background(), ws.DB)
	if err != nil {
		closeBackend(store)
		return nil, err
	}
	j.SetLogger(log) // a job's panic, with its stack, goes to the log, never to a screen
	return &Service{ws: ws, store: store, gateway: g, jobs: j, log: log, Owner: opts.Owner, changes: newChangeFeed()}, nil
}

// As is a view of the same open workspace that acts for another analyst: it shares the
// stores, the model gateway, the jobs and the change feed, and must not be closed itself (the
// service it came from owns the workspace). A view of a served view is served too.
func (s *Service) As(analyst string, admin bool) *Service {
	return &Service{ws: s.ws, store: s.store, gateway: s.gateway, jobs: s.jobs, log: s.log,
		Owner: analyst, Admin: admin, served: s.served, sources: s.sources, changes: s.changes}
}

// MayDecide reports whether this analyst may answer, approve or cancel a job owned by owner: its
// owner or an admin may; a job recorded without an owner is anyone's.
func (s *Service) MayDecide(owner string) bool {
	return s.Admin || owner == "" || owner == s.Owner
}

// Close cancels the jobs still running (each stops at a consistent point and stays
// resumable) and closes the knowledge base and the workspace.
func (s *Service) Close() {
	s.jobs.Close()
	closeBackend(s.store)
	s.ws.Close()
}

// closeBackend ends a backend's own connections, when it holds any (the Weaviate one does).
func closeBackend(b kb.Backend) {
	if c, ok := b.(io.Closer); ok {
		c.Close()
	}
}

// Registry loads the workspace's registry.
func (s *Service) Registry() (*registry.Registry, error) { return s.ws.Registry() }

// RunStore is the checkpoint and ledger store of the workspace's runs.
func (s *Service) RunStore() *agent.Store { return &agent.Store{DB: s.ws.DB} }

// EmbedderFor picks the embedder for a collection: the one that built it, when it exists and
// the choice is auto; else the configured choice; auto falls back to the built-in embedder
// when Ollama or its embed model is not available, and says so through note.
func (s *Service) EmbedderFor(ctx context.Context, collection, choice string, note func(string)) (kb.Embedder, error) {
	if choice == "" {
		choice = s.ws.Config.KB.Embedder
	}
	switch choice {
	case "builtin":
		return kb.Builtin{}, nil
	case "ollama":
		if err := s.CheckEmbedModel(ctx); err != nil {
			return nil, err
		}
		return llmkb.Embedder(s.gateway), nil
	case "auto":
		if info, ok, err := s.store.Collection(ctx, collection); err != nil {
			return nil, err
		} else if ok {
			return info.QueryEmbedder(llmkb.Embedder(s.gateway))
		}
		if err := s.CheckEmbedModel(ctx); err != nil {
			if !s.noted {
				s.noted = true
				note(fmt.Sprintf("using the built-in embedder for new collections: %v", err))
			}
			return kb.Builtin{}, nil
		}
		return llmkb.Embedder(s.gateway), nil
	}
	return nil, fmt.Errorf("embedder %q: use auto, builtin or ollama", choice)
}

// CheckEmbedModel asks once whether the embed role's model is available.
func (s *Service) CheckEmbedModel(ctx context.Context) error {
	if !s.embedChecked {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s.embedErr = s.gateway.CheckModel(ctx, config.RoleEmbed)
		s.embedChecked = true
	}
	return s.embedErr
}

// KeepLedger stores exchanges made outside a checkpointed run (a gas fill, a table query) in
// the workspace ledger under one run name, so that every model call warren made is on record.
// A failed write is logged, not returned: the work it describes is done and saved.
func (s *Service) KeepLedger(ctx context.Context, run string, entries ...llm.LedgerEntry) {
	store := s.RunStore()
	for _, le := range entries {
		le.Run = run
		if err := store.RecordLedger(context.WithoutCancel(ctx), le); err != nil {
			s.log.Warn("couldn't keep a ledger entry", "run", run, "error", err)
		}
	}
}

// QueryLedgerRun names the ledger run of one plain-language table question.
func QueryLedgerRun() string { return agent.NewRunID("query-") }

// reindexer is a backend whose lexical index may be older than this build (kb.IndexVersion).
type reindexer interface {
	Reindex(ctx context.Context, progress func(done, total int)) (int, error)
}

// reindex brings an index written by an older warren up to date before anything searches it:
// never a search on a stale index. A failure changes nothing, and the next open tries again.
func reindex(store kb.Backend, log *slog.Logger, progress func(done, total int)) error {
	r, ok := store.(reindexer)
	if !ok {
		return nil
	}
	n, err := r.Reindex(context.Background(), progress)
	if err != nil {
		return fmt.Errorf("couldn't re-index the knowledge base for this version of warren: %w; nothing was changed, and the next start tries again", err)
	}
	if n > 0 {
		log.Info("re-indexed the knowledge base for this version of warren", "passages", n, "index_version", kb.IndexVersion)
	}
	return nil
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"warren/agent"
	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/llm"
	"warren/registry"
)

// env is an open workspace with the services commands use.
type env struct {
	ws      *kb.Workspace
	store   *kb.Store
	gateway *llm.Gateway
	log     *slog.Logger

	embedChecked bool
	embedErr     error // why the Ollama embed role is unavailable, once checked
	noted        bool
}

func (e *env) Close() { e.ws.Close() }

// open opens the workspace named by the global flags.
func (a *app) open() (*env, error) {
	ws, err := kb.Open(a.workspaceDir(), a.sources(), schema.All())
	if err != nil {
		return nil, err
	}
	g, err := newGateway(ws.Config, a)
	if err != nil {
		ws.Close()
		return nil, err
	}
	return &env{ws: ws, store: kb.NewStore(ws), gateway: g, log: a.logger}, nil
}

func newGateway(cfg *config.Config, a *app) (*llm.Gateway, error) {
	return llm.New(cfg, llm.WithLogger(a.logger))
}

// interruptible returns a context cancelled by Ctrl-C or SIGTERM.
func interruptible(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
}

// workspaceRegistry loads the workspace's registry.
func (e *env) registry() (*registry.Registry, error) { return e.ws.Registry() }

// embedderFor picks the embedder for a collection: the one that built it, when it exists and
// the choice is auto; else the configured choice; auto falls back to the built-in embedder
// when Ollama or its embed model is not available, and says so.
func (e *env) embedderFor(ctx context.Context, collection, choice string, note func(string)) (kb.Embedder, error) {
	if choice == "" {
		choice = e.ws.Config.KB.Embedder
	}
	switch choice {
	case "builtin":
		return kb.Builtin{}, nil
	case "ollama":
		if err := e.checkEmbedModel(ctx); err != nil {
			return nil, err
		}
		return kb.Ollama{Gateway: e.gateway}, nil
	case "auto":
		if info, ok, err := e.store.Collection(ctx, collection); err != nil {
			return nil, err
		} else if ok {
			return info.QueryEmbedder(e.gateway)
		}
		if err := e.checkEmbedModel(ctx); err != nil {
			if !e.noted {
				e.noted = true
				note(fmt.Sprintf("using the built-in embedder for new collections: %v", err))
			}
			return kb.Builtin{}, nil
		}
		return kb.Ollama{Gateway: e.gateway}, nil
	}
	return nil, usageError{fmt.Errorf("--embedder %q: use auto, builtin or ollama", choice)}
}

func (e *env) checkEmbedModel(ctx context.Context) error {
	if !e.embedChecked {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		e.embedErr = e.gateway.CheckModel(ctx, config.RoleEmbed)
		e.embedChecked = true
	}
	return e.embedErr
}

// keepLedger stores exchanges made outside a checkpointed run (a gas fill, a table query) in
// the workspace ledger under one run name, so that every model call warren made is on record.
// A failed write is logged, not returned: the work it describes is done and saved.
func keepLedger(ctx context.Context, e *env, run string, entries ...llm.LedgerEntry) {
	store := &agent.Store{DB: e.ws.DB}
	for _, le := range entries {
		le.Run = run
		if err := store.RecordLedger(context.WithoutCancel(ctx), le); err != nil && e.log != nil {
			e.log.Warn("couldn't keep a ledger entry", "run", run, "error", err)
		}
	}
}

// queryLedgerRun names the ledger run of one plain-language table question.
func queryLedgerRun() string { return agent.NewRunID("query-") }

package service

import (
	"context"
	"path/filepath"

	"warren/agent/toxedit"
	"warren/config"
	"warren/doctor"
	"warren/kb"
	"warren/kb/weaviatekb"
	"warren/tox"
)

// The use cases below are the workbench's (tui.Backend); the CLI calls the same ones.

// Workspace is the workspace folder; a served view for an analyst who is not an admin names
// it by its name only, not by its path on the server.
func (s *Service) Workspace() string {
	if s.hidesPaths() {
		return filepath.Base(s.ws.Dir)
	}
	return s.ws.Dir
}

// WorkspaceDir is the workspace folder's path on this machine, for the process that opened it
// (a server's log, a test that opens it again); what an analyst is shown is Workspace.
func (s *Service) WorkspaceDir() string { return s.ws.Dir }

// ServeConfig is the workspace's configuration of `warren serve` (listen address, limits).
func (s *Service) ServeConfig() config.Serve { return s.ws.Config.Serve }

// Budgets are the configured run budgets.
func (s *Service) Budgets() config.Budgets { return s.ws.Config.Budgets }

// Doctor checks the workspace and the models.
//
// The workbench asks every minute, in every connection to warren serve: its checks are not
// logged (a failure is on the analyst's screen); `warren doctor` logs them.
func (s *Service) Doctor(ctx context.Context) doctor.Report {
	in := doctor.Input{Workspace: s.ws.Dir, Sources: s.sources}
	in.Weaviate, _ = s.store.(*weaviatekb.Backend) // checked through the open connection
	rep := doctor.Run(ctx, in)
	if s.hidesPaths() {
		hide := s.pathHider(nil)
		rep.Workspace = hide(rep.Workspace)
		for i := range rep.Checks {
			rep.Checks[i].Detail, rep.Checks[i].Fix = hide(rep.Checks[i].Detail), hide(rep.Checks[i].Fix)
		}
	}
	return rep
}

// Collections lists the knowledge base's collections.
func (s *Service) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	return s.store.Collections(ctx)
}

// Documents lists a collection's documents ("" for all).
func (s *Service) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	return s.store.Documents(ctx, collection)
}

// DocumentChunks is a document's chunks in order.
func (s *Service) DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error) {
	return s.store.DocumentChunks(ctx, doc)
}

// Chunks loads chunks by ID.
func (s *Service) Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error) {
	return s.store.Chunks(ctx, ids)
}

// IngestPaths is Ingest of paths into collection, by the name the workbench (tui.Backend) calls.
func (s *Service) IngestPaths(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error) {
	return s.Ingest(ctx, nil, IngestOptions{Paths: paths, Collection: collection, Progress: progress})
}

// ToxStore is the workspace's toxicology profiles, saved in this view's analyst's name; what it
// saves is published on the change feed.
func (s *Service) ToxStore() *tox.Store {
	return &tox.Store{DB: s.ws.DB, Analyst: s.Owner, Saved: s.toxSaved}
}

// ToxEditor is the edit engine over the workspace: every edit is a checkpointed run whose
// model calls are in the ledger.
func (s *Service) ToxEditor() *toxedit.Editor {
	return &toxedit.Editor{Gateway: s.gateway, Profiles: s.ToxStore(), Runs: s.RunStore()}
}

// ToxProfiles lists the profiles at their latest versions.
func (s *Service) ToxProfiles(ctx context.Context) ([]tox.ProfileInfo, error) {
	return s.ToxStore().List(ctx)
}

// ToxPropose turns an instruction, a JSON payload or a JSON Patch into a proposal.
func (s *Service) ToxPropose(ctx context.Context, inci, input string) (*toxedit.Proposal, error) {
	return s.ToxEditor().Propose(ctx, inci, input)
}

// ToxApprove saves a proposal as the profile's next version.
func (s *Service) ToxApprove(ctx context.Context, p *toxedit.Proposal, summary string) (int, error) {
	return s.ToxEditor().Approve(ctx, p, summary)
}

// ToxReject closes a proposal without saving it.
func (s *Service) ToxReject(ctx context.Context, p *toxedit.Proposal, reason string) error {
	return s.ToxEditor().Reject(ctx, p, reason)
}

// ToxRollback saves a new version equal to version to; seen is the latest version the analyst
// saw: when another was saved since, the rollback is refused with an error that wraps
// tox.ErrStale and nothing is saved.
func (s *Service) ToxRollback(ctx context.Context, inci string, to, seen int, summary string) (int, error) {
	return s.ToxStore().Rollback(ctx, inci, to, seen, summary)
}

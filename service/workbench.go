package service

import (
	"context"
	"path/filepath"

	"warren/agent/toxedit"
	"warren/config"
	"warren/doctor"
	"warren/kb"
	"warren/kb/weaviatekb"
	"warren/retrieval"
	"warren/tox"
)

// The use cases below are the workbench's (tui.Backend); the CLI calls the same ones.

// Workspace is the workspace folder; a served view for an analyst who is not an admin names
// it by its name only, not by its path on the server.
func (s *Service) Workspace() string {
	if s.hidesPaths() {
		return filepath.Base(s.WS.Dir)
	}
	return s.WS.Dir
}

// Budgets are the configured run budgets.
func (s *Service) Budgets() config.Budgets { return s.WS.Config.Budgets }

// Doctor checks the workspace and the models.
//
// The workbench asks every minute, in every connection to warren serve: its checks are not
// logged (a failure is on the analyst's screen); `warren doctor` logs them.
func (s *Service) Doctor(ctx context.Context) doctor.Report {
	in := doctor.Input{Workspace: s.WS.Dir, Sources: s.sources}
	in.Weaviate, _ = s.Store.(*weaviatekb.Backend) // checked through the open connection
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
	return s.Store.Collections(ctx)
}

// Documents lists a collection's documents ("" for all).
func (s *Service) Documents(ctx context.Context, collection string) ([]kb.DocInfo, error) {
	return s.Store.Documents(ctx, collection)
}

// DocumentChunks is a document's chunks in order.
func (s *Service) DocumentChunks(ctx context.Context, doc string) ([]kb.Chunk, error) {
	return s.Store.DocumentChunks(ctx, doc)
}

// Chunks loads chunks by ID.
func (s *Service) Chunks(ctx context.Context, ids []string) ([]kb.Chunk, error) {
	return s.Store.Chunks(ctx, ids)
}

// Search ranks passages for a query.
func (s *Service) Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error) {
	return s.Searcher().Search(ctx, req)
}

// IngestPaths adds files and folders to one collection with the configured embedder and
// records them in the workspace registry. A served view (see Served) reads only inside the
// folders of serve.ingest_roots: each path begins with a folder's name ("inbox/sds/x.pdf",
// "inbox" for all of it), and one that is absolute, climbs out with "..", or leads out
// through a symbolic link is refused with an error that wraps ErrOutsideIngestRoots and names
// the folders allowed; links out of them met while walking, or swapped in before a file is
// read, are reported as skipped. Elsewhere a path is read wherever it leads, as the account
// may, but links out of a walked folder are not followed (see kb.CollectItems).
func (s *Service) IngestPaths(ctx context.Context, paths []string, collection string, progress func(kb.Progress)) (*kb.IngestReport, error) {
	if s.served {
		items, opts, err := s.servedItems(paths, collection)
		if err != nil {
			return nil, err
		}
		opts.Progress = progress
		return s.IngestJob(ctx, items, opts)
	}
	items, err := kb.CollectItems(paths, collection)
	if err != nil {
		return nil, err
	}
	return s.IngestJob(ctx, items, IngestOptions{Progress: progress})
}

// ToxStore is the workspace's toxicology profiles, saved in this view's analyst's name; what it
// saves is published on the change feed.
func (s *Service) ToxStore() *tox.Store {
	return &tox.Store{DB: s.WS.DB, Analyst: s.Owner, Saved: s.toxSaved}
}

// ToxEditor is the edit engine over the workspace: every edit is a checkpointed run whose
// model calls are in the ledger.
func (s *Service) ToxEditor() *toxedit.Editor {
	return &toxedit.Editor{Gateway: s.Gateway, Profiles: s.ToxStore(), Runs: s.RunStore()}
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

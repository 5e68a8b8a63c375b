package service

import (
	"context"
	"path/filepath"

	"warren/config"
	"warren/doctor"
	"warren/kb/weaviatekb"
)

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

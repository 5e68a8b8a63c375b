package service

import (
	"context"

	"warren/agent/toxedit"
)

// ToxWaiting lists the toxicology proposals that wait for approval, oldest first: those that
// `warren tox edit` without --yes or `warren tox batch` left, and those of a workbench that
// closed before its decision.
func (s *Service) ToxWaiting(ctx context.Context) ([]toxedit.Waiting, error) {
	return s.ToxEditor().Waiting(ctx)
}

// ToxWaitingProposal loads a waiting proposal by its run, with its operations and diff, to
// approve (ToxApprove) or reject (ToxReject) it; a run decided meanwhile gives an error that
// wraps toxedit.ErrNotWaiting.
func (s *Service) ToxWaitingProposal(ctx context.Context, run string) (*toxedit.Proposal, error) {
	return s.ToxEditor().LoadWaiting(ctx, run)
}

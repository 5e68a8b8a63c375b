package service

import (
	"context"
	"errors"
	"fmt"

	"warren/agent/toxedit"
	"warren/service/audit"
	"warren/tox"
)

// Tox is the toxicology desk: profiles, their versions, the edits proposed to them (an
// instruction, a JSON payload or a JSON Patch) and the decisions on them. A save against a
// version that is no longer the latest is refused (tox.ErrStale), and an invalid patch saves
// nothing, whichever front end asks.
type Tox struct{ s *Service }

// Tox is the toxicology desk of this view: what it saves is saved in its analyst's name.
func (s *Service) Tox() *Tox { return &Tox{s: s} }

// Waiting lists the toxicology proposals that wait for approval, oldest first: those that
// `warren tox edit` without --yes or `warren tox batch` left, and those of a workbench that
// closed before its decision.
func (x *Tox) Waiting(ctx context.Context) ([]toxedit.Waiting, error) {
	return x.s.toxEditor().Waiting(ctx)
}

// WaitingProposal loads a waiting proposal by its run, with its operations and diff, to
// approve (Approve) or reject (Reject) it; a run decided meanwhile gives an error that
// wraps toxedit.ErrNotWaiting.
func (x *Tox) WaitingProposal(ctx context.Context, run string) (*toxedit.Proposal, error) {
	return x.s.toxEditor().LoadWaiting(ctx, run)
}

// toxStore is the workspace's toxicology profiles, saved in this view's analyst's name; what it
// saves is published on the change feed.
func (s *Service) toxStore() *tox.Store {
	return &tox.Store{DB: s.ws.DB, Analyst: s.Owner, Saved: s.toxSaved}
}

// toxEditor is the edit engine over the workspace: every edit is a checkpointed run whose
// model calls are in the ledger.
func (s *Service) toxEditor() *toxedit.Editor {
	return &toxedit.Editor{Gateway: s.gateway, Profiles: s.toxStore(), Runs: s.RunStore()}
}

// Profiles lists the profiles at their latest versions.
func (x *Tox) Profiles(ctx context.Context) ([]tox.ProfileInfo, error) {
	return x.s.toxStore().List(ctx)
}

// Propose turns an instruction, a JSON payload or a JSON Patch into a proposal.
func (x *Tox) Propose(ctx context.Context, inci, input string) (*toxedit.Proposal, error) {
	return x.s.toxEditor().Propose(ctx, inci, input)
}

// Approve saves a proposal as the profile's next version.
func (x *Tox) Approve(ctx context.Context, p *toxedit.Proposal, summary string) (v int, err error) {
	v, err = x.s.toxEditor().Approve(ctx, p, summary)
	x.s.record(ctx, audit.ActionTox, p.INCI, map[string]any{"decision": "approve", "version": v, "summary": summary}, err)
	return v, err
}

// Reject closes a proposal without saving it.
func (x *Tox) Reject(ctx context.Context, p *toxedit.Proposal, reason string) error {
	err := x.s.toxEditor().Reject(ctx, p, reason)
	x.s.record(ctx, audit.ActionTox, p.INCI, map[string]any{"decision": "reject", "reason": reason}, err)
	return err
}

// Rollback saves a new version equal to version to; seen is the latest version the analyst
// saw (PlanRollback shows what the rollback changes). Rolling back to the latest version is
// refused, and when another version was saved since seen the rollback is refused with an
// error that wraps tox.ErrStale, saying who saved it; nothing is saved.
func (x *Tox) Rollback(ctx context.Context, inci string, to, seen int, summary string) (v int, err error) {
	defer func() {
		x.s.record(ctx, audit.ActionTox, inci, map[string]any{"decision": "rollback", "to": to, "version": v, "summary": summary}, err)
	}()
	if to == seen {
		return 0, fmt.Errorf("version %d is already the latest version of %s: nothing to roll back (`warren tox history %s` lists the versions)", to, inci, ShellQuote(inci))
	}
	v, err = x.s.toxStore().Rollback(ctx, inci, to, seen, summary)
	if stale := (*tox.StaleError)(nil); errors.As(err, &stale) {
		return 0, &staleRollback{stale: stale, why: fmt.Sprintf("%s changed while you were deciding (now at version %d, saved by %s): nothing was saved; look at the new diff and roll back again",
			inci, stale.Latest, tox.AnalystName(stale.By))}
	}
	return v, err
}

// staleRollback is a rollback refused because another version was saved meanwhile, in the
// desk's words; it unwraps to the *tox.StaleError, so a front end can name who saved it.
type staleRollback struct {
	stale *tox.StaleError
	why   string
}

func (e *staleRollback) Error() string { return e.why }
func (e *staleRollback) Unwrap() error { return e.stale }

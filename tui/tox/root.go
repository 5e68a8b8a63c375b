package tox

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tox"
	"warren/tui/component"
	"warren/tui/styles"
)

// Service is what the tab needs of warren: the toxicology desk (service.Tox).
type Service interface {
	// Profiles lists the toxicology profiles at their latest versions, by INCI name.
	Profiles(ctx context.Context) ([]tox.ProfileInfo, error)
	// Profile loads one version of a profile; version 0 is the latest.
	Profile(ctx context.Context, inci string, version int) (tox.ProfileVersion, error)
	// History lists a profile's versions, newest first.
	History(ctx context.Context, inci string) ([]tox.VersionInfo, error)
	// Propose turns an instruction, a JSON payload or a JSON Patch into a proposal against
	// the profile's latest version; nothing is saved.
	Propose(ctx context.Context, inci, input string) (*service.ToxProposal, error)
	// Approve saves a proposal as the next version with summary and returns its number; a
	// proposal whose base is no longer the latest version is refused with an error that wraps
	// tox.ErrStale.
	Approve(ctx context.Context, p *service.ToxProposal, summary string) (int, error)
	// Reject closes a proposal's edit run as rejected; nothing is saved.
	Reject(ctx context.Context, p *service.ToxProposal, reason string) error
	// Rollback saves a new version equal to version to and returns its number; seen is the
	// latest version the analyst saw: when another was saved since, nothing is saved and the
	// error wraps tox.ErrStale.
	Rollback(ctx context.Context, inci string, to, seen int, summary string) (int, error)
	// Waiting lists the proposals that wait for approval (made on the CLI, by a batch, or
	// in a workbench closed before the decision), oldest first.
	Waiting(ctx context.Context) ([]service.ToxWaitingEdit, error)
	// WaitingProposal loads a waiting proposal by its run, to approve or reject it like one
	// made in the tab; a run decided meanwhile gives an error that wraps service.ErrNotWaiting.
	WaitingProposal(ctx context.Context, run string) (*service.ToxProposal, error)
}

// What the root model asks of the desk, besides the component.Panel contract.

// SetStyles draws the desk with st from now on.
func (x *Model) SetStyles(st *styles.Styles) { x.st = st }

// Open selects the profile named inci ("" for the first) when the list arrives.
func (x *Model) Open(inci string) { x.want = inci }

// StopPropose cancels a proposal the model is making.
func (x *Model) StopPropose() {
	if x.running() {
		x.cancelPropose()
	}
}

// Drafts is what the analyst typed as instructions, by profile key (tox.Key), including the
// instruction open in the editor.
func (x *Model) Drafts() map[string]string {
	d := make(map[string]string, len(x.drafts)+1)
	for k, v := range x.drafts {
		d[k] = v
	}
	if x.input == toxInstruction && x.profile != nil && strings.TrimSpace(x.text.Value()) != "" {
		d[tox.Key(x.profile.INCI)] = x.text.Value()
	}
	return d
}

// RestoreDrafts gives back the instructions an earlier connection typed.
func (x *Model) RestoreDrafts(d map[string]string) {
	for k, v := range d {
		x.drafts[k] = v
	}
}

// The focus, quit and status contract (see component.Panel).

// Field reports a field with the keyboard while one is open.
func (x *Model) Field() component.FieldState {
	if x.input != toxNoInput {
		return component.FieldActive
	}
	return component.NoField
}

// FocusField does nothing: a field has the keyboard whenever it is open.
func (x *Model) FocusField() tea.Cmd { return nil }

// Screen names the view and the open field.
func (x *Model) Screen() string { return fmt.Sprintf("tox/%d/%d", x.view, x.input) }

// Pending names a proposal being made or waiting, a save in flight and unsent text.
func (x *Model) Pending() []string {
	var out []string
	if x.running() {
		out = append(out, "an edit is being proposed by the model")
	}
	if x.proposal != nil && x.view == toxProposal {
		out = append(out, fmt.Sprintf("the proposed edit of %s waits for approve or reject (nothing is saved until then)", x.proposal.INCI))
	}
	if x.saving {
		out = append(out, "a version is being saved")
	}
	switch x.input {
	case toxInstruction, toxOps:
		if x.text.Value() != "" {
			out = append(out, "the edit field holds text not yet sent")
		}
	case toxComment:
		if x.line.Value() != "" {
			out = append(out, "the version summary is typed but not saved")
		}
	}
	return out
}

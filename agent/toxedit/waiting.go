package toxedit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"warren/agent"
)

// Waiting is an edit run whose proposal waits for the analyst's decision: made by
// `warren tox edit` without --yes, by `warren tox batch`, or in a workbench that closed before
// the decision.
type Waiting struct {
	Run         string    `json:"run"`
	INCI        string    `json:"inci"`
	BaseVersion int       `json:"base_version"`
	EditType    EditType  `json:"edit_type"`
	Method      string    `json:"method"`
	Summary     string    `json:"summary"`
	BatchID     string    `json:"batch_id,omitempty"`
	Since       time.Time `json:"since"` // when the run was started
}

// ErrNotWaiting means the edit run is not waiting for a decision (it was approved, rejected or
// failed meanwhile).
var ErrNotWaiting = errors.New("not waiting for approval")

// Waiting lists the proposals that wait for approval, oldest first. A run that can't be read
// as an edit is skipped: it is no proposal the analyst could decide.
func (e *Editor) Waiting(ctx context.Context) ([]Waiting, error) {
	if e.Runs == nil {
		return nil, nil
	}
	runs, err := e.Runs.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the waiting proposals: %w", err)
	}
	var out []Waiting
	for _, r := range runs {
		if r.Graph != GraphName || r.Status != agent.StatusInterrupted {
			continue
		}
		p, waiting, err := e.Load(ctx, r.ID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("couldn't list the waiting proposals: %w", ctx.Err())
			}
			continue
		}
		if !waiting {
			continue
		}
		out = append(out, Waiting{Run: r.ID, INCI: p.INCI, BaseVersion: p.BaseVersion, EditType: p.EditType,
			Method: p.Method, Summary: p.Summary, BatchID: p.BatchID, Since: r.CreatedAt})
	}
	slices.SortStableFunc(out, func(a, b Waiting) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return cmp.Compare(a.Run, b.Run)
	})
	return out, nil
}

// LoadWaiting loads the proposal of an edit run that waits for approval, with everything
// needed to show and decide it (its operations, the profile before and after, the diff). A run
// that was decided meanwhile gives an error that wraps ErrNotWaiting.
func (e *Editor) LoadWaiting(ctx context.Context, run string) (*Proposal, error) {
	p, waiting, err := e.Load(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("couldn't load proposal %s: %w", run, err)
	}
	if !waiting {
		return nil, fmt.Errorf("couldn't load proposal %s: it is %w (decided already)", run, ErrNotWaiting)
	}
	return p, nil
}

// Package toxedit turns every kind of toxicology edit — a structured payload, a pasted
// correction form, an instruction in words — into the same thing: a proposed RFC 6902 patch
// against a profile's latest version, with a readable diff, saved as a new version only when
// the analyst approves it.
package toxedit

import (
	"encoding/json"

	"warren/tox/jsonpatch"
)

// EditType is how an input was classified.
type EditType string

// The edit types.
const (
	FormStructured EditType = "FORM_EDIT_STRUCTURED" // a JSON payload: no model call
	FormRaw        EditType = "FORM_EDIT_RAW"        // pasted form text, extracted by the model
	NLIEdit        EditType = "NLI_EDIT"             // an instruction in words
	NoEdit         EditType = "NO_EDIT"              // nothing actionable
)

// Proposal is an edit waiting for the analyst: the operations against BaseVersion, the
// profile before and after, and the diff between them.
type Proposal struct {
	ID          string          `json:"id"` // the edit run, to approve or reject it later
	INCI        string          `json:"inci"`
	BaseVersion int             `json:"base_version"`
	Input       string          `json:"input"` // the instruction, payload or form text as given
	EditType    EditType        `json:"edit_type"`
	Method      string          `json:"method"` // how the patch was made: structured, parsed, model patch, model rewrite
	Patch       jsonpatch.Patch `json:"patch"`
	Before      json.RawMessage `json:"before"`
	After       json.RawMessage `json:"after"`
	Diff        string          `json:"diff"`    // unified diff of Before and After
	Summary     string          `json:"summary"` // one line for the history
	ModelCalls  int             `json:"model_calls"`
	Note        string          `json:"note,omitempty"` // why nothing is proposed (NO_EDIT), or a caveat
	BatchID     string          `json:"batch_id,omitempty"`
}

// Empty reports a proposal that changes nothing (NO_EDIT, or a patch with no effect).
func (p *Proposal) Empty() bool { return len(p.Patch) == 0 }

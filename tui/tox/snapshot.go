package tox

import (
	"time"

	"warren/service"
	"warren/tox"
)

// Snapshot is what the desk holds, as values, for the root's tests: they check what a key did
// without reaching into the desk's fields.
type Snapshot struct {
	View     string // browse, proposal, history, versions or confirm
	Input    string // the open field: "", filter, instruction, ops or comment
	Text     string // the instruction or operations editor
	InputErr string // why the editor's text was refused
	Comment  string // the summary of the version to save
	Selected string // the profile under the cursor
	Running  bool   // the model is making a proposal
	Profile  *tox.ProfileVersion
	Proposal *service.ToxProposal
	History  []tox.VersionInfo
	Waiting  []service.ToxWaitingEdit
}

var (
	viewNames  = map[toxView]string{toxBrowse: "browse", toxProposal: "proposal", toxHistory: "history", toxVersions: "versions", toxConfirm: "confirm"}
	inputNames = map[toxInput]string{toxNoInput: "", toxFilter: "filter", toxInstruction: "instruction", toxOps: "ops", toxComment: "comment"}
)

// Snapshot returns what the desk holds now.
func (x *Model) Snapshot() Snapshot {
	return Snapshot{View: viewNames[x.view], Input: inputNames[x.input], Text: x.text.Value(), InputErr: x.inputErr,
		Comment: x.comment, Selected: x.selected(), Running: x.running(), Profile: x.profile, Proposal: x.proposal,
		History: x.history, Waiting: x.waiting.items}
}

// SetLocation shows times in loc (time.Local unless set).
func (x *Model) SetLocation(loc *time.Location) { x.loc = loc }

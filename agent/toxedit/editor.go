package toxedit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"warren/agent"
	"warren/llm"
	"warren/tox"
	"warren/tox/jsonpatch"
)

// Methods: how a proposal's patch was made.
const (
	MethodStructured = "structured"    // a payload or JSON Patch, no model
	MethodParsed     = "parsed"        // an instruction of the simple grammar, no model
	MethodModelPatch = "model patch"   // operations written by the model
	MethodRewrite    = "model rewrite" // the model's whole profile, diffed and checked
	MethodFormModel  = "form (model)"  // a form read by the model into a payload
	MethodEdited     = "edited"        // operations changed by the analyst before approval
	MethodNone       = "none"
)

// InterruptApproval is the interrupt an edit run waits at; its payload is the Proposal.
const InterruptApproval = "approval"

// GraphName names edit runs in the run store.
const GraphName = "toxedit"

// Editor proposes, approves and rejects profile edits. Runs is optional: with it every edit
// is a checkpointed run of the edit graph that waits at an approval interrupt, so a proposal
// survives a restart (Load) and its model calls are in the ledger; without it the same steps
// run in memory.
type Editor struct {
	Gateway  *llm.Gateway
	Profiles *tox.Store
	Runs     *agent.Store
}

// State is the edit graph's state, checkpointed after every node.
type State struct {
	INCI     string    `json:"inci"`
	Input    string    `json:"input"`
	BatchID  string    `json:"batch_id,omitempty"`
	Proposal *Proposal `json:"proposal,omitempty"`
	Decision string    `json:"decision,omitempty"` // approved or rejected
	Summary  string    `json:"summary,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Version  int       `json:"version,omitempty"` // saved as
}

// answer is what Approve and Reject hand to the waiting run.
type answer struct {
	Approve bool            `json:"approve"`
	Summary string          `json:"summary,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Patch   jsonpatch.Patch `json:"patch,omitempty"` // set when the analyst edited the operations
}

// graph is load → classify → patch → review (interrupt) → save.
func (e *Editor) graph() *agent.Graph[State] {
	return agent.NewGraph[State](GraphName).
		Node("load", e.load).Edge("load", "classify").
		Node("classify", e.classify).Edge("classify", "patch").
		Node("patch", e.patch).Route("patch", func(s *State) string {
		if s.Proposal.Empty() {
			return agent.End
		}
		return "review"
	}).
		Node("review", review).Route("review", func(s *State) string {
		if s.Decision == "approved" {
			return "save"
		}
		return agent.End
	}).
		Node("save", e.save).Edge("save", agent.End)
}

// runner runs the edit graph with its model calls made as call.
func (e *Editor) runner(call llm.Call) *agent.Runner[State] {
	return &agent.Runner[State]{Graph: e.graph(), Store: e.Runs, Answer: e.applyAnswer, Call: call}
}

// NewRunID makes an edit run ID that sorts by time.
func NewRunID() string { return agent.NewRunID("tox-") }

// Propose turns an input into a proposal against the latest version of profile inci. The
// proposal waits for Approve or Reject; a NO_EDIT input, or one that changes nothing, gives a
// proposal with a Note and no patch. Model calls are counted from the run's own ledger.
func (e *Editor) Propose(ctx context.Context, inci, input string) (*Proposal, error) {
	return e.propose(ctx, inci, input, "")
}

func (e *Editor) propose(ctx context.Context, inci, input, batchID string) (*Proposal, error) {
	id := NewRunID()
	meter := llm.NewRun(id, llm.Budget{}, func(le llm.LedgerEntry) {
		if e.Runs != nil {
			e.Runs.RecordLedger(context.WithoutCancel(ctx), le)
		}
	})
	call := llm.Call{Run: meter}
	s := &State{INCI: inci, Input: input, BatchID: batchID, Proposal: &Proposal{ID: id}}
	if e.Runs == nil {
		for _, step := range []agent.Node[State]{e.load, e.classify, e.patch} {
			if _, err := step(ctx, call, s); err != nil {
				return nil, err
			}
		}
		return s.Proposal, nil
	}
	title := fmt.Sprintf("%s: %s", inci, firstLine(input, 60))
	if _, err := e.runner(call).Start(ctx, id, title, s); err != nil {
		return nil, err
	}
	return s.Proposal, nil
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (e *Editor) load(ctx context.Context, _ llm.Call, s *State) (*agent.Interrupt, error) {
	v, err := e.Profiles.Latest(ctx, s.INCI)
	if err != nil {
		return nil, err
	}
	p := s.Proposal
	p.INCI, p.BaseVersion, p.Before, p.Input, p.BatchID = v.INCI, v.Version, v.Data, s.Input, s.BatchID
	s.INCI = v.INCI
	return nil, nil
}

func (e *Editor) classify(ctx context.Context, _ llm.Call, s *State) (*agent.Interrupt, error) {
	s.Proposal.EditType = Classify(s.Input)
	return nil, nil
}

// patch makes and checks the operations for the classified input and fills in the proposal.
func (e *Editor) patch(ctx context.Context, call llm.Call, s *State) (*agent.Interrupt, error) {
	p := s.Proposal
	defer func() {
		if call.Run != nil {
			p.ModelCalls = call.Run.Usage().Calls
		}
	}()
	prof, err := tox.Parse(p.Before)
	if err != nil {
		return nil, fmt.Errorf("couldn't read profile %s version %d: %w", p.INCI, p.BaseVersion, err)
	}
	var ops jsonpatch.Patch
	switch p.EditType {
	case NoEdit:
		p.Method, p.After, p.Patch = MethodNone, p.Before, jsonpatch.Patch{}
		p.Note = "nothing to change: give an instruction (\"Set NOAEL to 200 mg/kg bw/day\"), a JSON payload or a correction form"
		return nil, nil
	case FormStructured:
		p.Method = MethodStructured
		var added int
		if ops, added, err = structuredOps(prof, p.Input); err != nil {
			return nil, fmt.Errorf("couldn't use the payload for %s: %w", p.INCI, err)
		}
		if err := e.finishAs(p, ops, added); err != nil {
			return nil, fmt.Errorf("couldn't edit %s: %w", p.INCI, err)
		}
		return nil, nil
	case FormRaw:
		p.Method = MethodFormModel
		f, err := e.extractForm(ctx, call, p.Input)
		if err != nil {
			return nil, err
		}
		dropped := f.ground(p.Input)
		copyProf, _ := tox.Parse(p.Before)
		if ops, err = f.payload(copyProf).Ops(prof); err != nil {
			return nil, fmt.Errorf("couldn't use the form for %s: %w", p.INCI, err)
		}
		if err := e.finish(p, ops); err != nil {
			return nil, fmt.Errorf("the form as the model read it doesn't make a valid profile: %w", err)
		}
		if len(dropped) > 0 {
			note := "left out, as the form does not state them: " + strings.Join(dropped, "; ")
			if p.Note != "" {
				note = p.Note + "; " + note
			}
			p.Note = note
		}
		return nil, nil
	}
	// NLI_EDIT: the simple grammar first, then the model.
	parsed, ok, err := parseInstruction(prof, p.Input)
	if err != nil {
		return nil, fmt.Errorf("couldn't edit %s: %w", p.INCI, err)
	}
	if ok {
		p.Method = MethodParsed
		if err := e.finish(p, parsed); err != nil {
			return nil, fmt.Errorf("couldn't edit %s: %w", p.INCI, err)
		}
		return nil, nil
	}
	p.Method = MethodModelPatch
	ops, err = e.modelPatchFor(ctx, call, p.Before, p.INCI, p.Input)
	if err != nil {
		return nil, err
	}
	why := ""
	if !hasGuard(ops, p.INCI) {
		why = fmt.Sprintf(`the operations don't start with the guard {"op":"test","path":"/inci","value":%q}`, p.INCI)
	} else if err := e.finish(p, ops); err != nil {
		why = err.Error()
	} else {
		return nil, nil
	}
	// One full rewrite, accepted only when it touches what the instruction names.
	p.Method = MethodRewrite
	rewrite, err := e.rewriteFor(ctx, call, p.Before, p.Input, why)
	if err != nil {
		return nil, fmt.Errorf("the model's patch failed (%s) and %w", why, err)
	}
	rp, err := tox.Parse(rewrite)
	if err != nil {
		return nil, fmt.Errorf("couldn't edit %s: the model's patch failed (%s) and its rewrite is not a valid profile: %w", p.INCI, why, err)
	}
	if tox.Key(rp.INCI) != tox.Key(p.INCI) {
		return nil, fmt.Errorf("couldn't edit %s: the model's patch failed (%s) and its rewrite is the profile of %q", p.INCI, why, rp.INCI)
	}
	canon, err := rp.Canonical()
	if err != nil {
		return nil, err
	}
	diff, err := jsonpatch.Diff(p.Before, canon)
	if err != nil {
		return nil, err
	}
	named := NamedPaths(p.Input)
	if out := outside(diff, named); len(out) > 0 {
		names := "nothing in particular"
		if len(named) > 0 {
			names = strings.Join(named, ", ")
		}
		return nil, fmt.Errorf("couldn't edit %s: the model's patch failed (%s), and its rewrite changes %s, which the instruction doesn't name (it names %s): nothing proposed; rephrase the instruction or send a JSON payload",
			p.INCI, why, strings.Join(out, ", "), names)
	}
	if err := e.finish(p, append(jsonpatch.Patch{guard(p.INCI)}, diff...)); err != nil {
		return nil, fmt.Errorf("couldn't edit %s: %w", p.INCI, err)
	}
	p.Note = "the model's operations failed (" + why + "); this is its rewrite of the profile, limited to " + strings.Join(named, ", ")
	return nil, nil
}

// structuredOps reads a payload object or a JSON Patch array; added is the number of
// operations put before the ones a JSON Patch array has (the guard, when it lacks one).
func structuredOps(prof *tox.Profile, input string) (p jsonpatch.Patch, added int, err error) {
	data := []byte(strings.TrimSpace(input))
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, 0, fmt.Errorf("the input starts like JSON but isn't: %w", err)
	}
	if data[0] == '[' {
		p, err := jsonpatch.ParsePatch(data)
		if err != nil {
			return nil, 0, err
		}
		p, added = guarded(p, prof.INCI)
		return p, added, nil
	}
	pl, err := ParsePayload(data)
	if err != nil {
		return nil, 0, err
	}
	p, err = pl.Ops(prof)
	return p, 0, err
}

// guarded puts the guard before the operations when they lack it, and says how many
// operations it put there.
func guarded(p jsonpatch.Patch, inci string) (jsonpatch.Patch, int) {
	if hasGuard(p, inci) {
		return p, 0
	}
	return append(jsonpatch.Patch{guard(inci)}, p...), 1
}

// finish checks the operations, applies them to a copy of Before, validates the result and
// fills in After, Diff and Summary. A patch that changes nothing leaves an empty proposal with
// a note.
func (e *Editor) finish(p *Proposal, ops jsonpatch.Patch) error { return e.finishAs(p, ops, 0) }

// finishAs is finish for operations of which the first added were not written by the author
// (an inserted guard): error messages number the author's operations, from 0.
func (e *Editor) finishAs(p *Proposal, ops jsonpatch.Patch, added int) error {
	if err := checkOps(ops, added); err != nil {
		return err
	}
	after, err := jsonpatch.Apply(p.Before, ops)
	if err != nil {
		return jsonpatch.Renumber(err, added)
	}
	canon, err := tox.Canonical(after)
	if err != nil {
		return err
	}
	if tox.Key(gjsonINCI(canon)) != tox.Key(p.INCI) {
		return fmt.Errorf("the edit changes the INCI name, which an edit can't")
	}
	if bytes.Equal(canon, p.Before) {
		p.Patch, p.After, p.Diff = jsonpatch.Patch{}, p.Before, ""
		p.Note = "the edit changes nothing: the profile already says this"
		return nil
	}
	diff, err := jsonpatch.Render(p.Before, canon, 0)
	if err != nil {
		return err
	}
	p.Patch, p.After, p.Diff = ops, canon, diff
	p.Summary = summarize(p.Before, ops)
	return nil
}

func gjsonINCI(data []byte) string {
	var v struct {
		INCI string `json:"inci"`
	}
	json.Unmarshal(data, &v)
	return v.INCI
}

// summarize describes the operations in one line for the history.
func summarize(before []byte, ops jsonpatch.Patch) string {
	var parts []string
	for _, op := range ops {
		if op.Op == jsonpatch.OpTest {
			continue
		}
		parts = append(parts, jsonpatch.Describe(before, op))
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return strings.Join(parts, "; ")
}

func review(ctx context.Context, _ llm.Call, s *State) (*agent.Interrupt, error) {
	if s.Decision != "" {
		return nil, nil
	}
	return agent.NewInterrupt(InterruptApproval, s.Proposal)
}

func (e *Editor) save(ctx context.Context, _ llm.Call, s *State) (*agent.Interrupt, error) {
	v, err := e.saveProposal(ctx, s.Proposal, s.Summary)
	if err != nil {
		return nil, err
	}
	s.Version = v
	return nil, nil
}

func (e *Editor) saveProposal(ctx context.Context, p *Proposal, summary string) (int, error) {
	if summary == "" {
		summary = p.Summary
	}
	patch, err := json.Marshal(p.Patch)
	if err != nil {
		return 0, err
	}
	v, err := e.Profiles.Save(ctx, p.INCI, p.BaseVersion, p.After, patch, summary, string(p.EditType), p.BatchID)
	if err != nil {
		if errors.Is(err, tox.ErrStale) {
			return 0, fmt.Errorf("couldn't approve the edit: %w; nothing was lost", err)
		}
		return 0, err
	}
	return v, nil
}

// applyAnswer records the analyst's decision; edited operations are checked and applied again.
func (e *Editor) applyAnswer(s *State, in agent.Interrupt, raw json.RawMessage) error {
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("couldn't read the decision: %w", err)
	}
	if !a.Approve {
		s.Decision, s.Reason = "rejected", a.Reason
		return nil
	}
	if a.Patch != nil && !samePatch(a.Patch, s.Proposal.Patch) {
		var added int
		a.Patch, added = guarded(a.Patch, s.Proposal.INCI)
		q := *s.Proposal
		if err := e.finishAs(&q, a.Patch, added); err != nil {
			return fmt.Errorf("the edited operations don't apply: %w", err)
		}
		if q.Empty() {
			return fmt.Errorf("nothing to approve: the edited operations change nothing")
		}
		*s.Proposal = q
		s.Proposal.Method = MethodEdited
	}
	s.Decision, s.Summary = "approved", a.Summary
	return nil
}

func samePatch(a, b jsonpatch.Patch) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Approve saves the proposal's After as the next version of the profile, made from
// p.BaseVersion, in one transaction, and returns the new version number. If the profile has
// changed since the proposal was made the save is refused (errors.Is(err, tox.ErrStale)) and
// nothing is written: propose the edit again. When p.Patch differs from the proposed
// operations (the analyst edited them), they are checked and applied again first. summary
// defaults to the proposal's.
func (e *Editor) Approve(ctx context.Context, p *Proposal, summary string) (int, error) {
	if p.Empty() {
		return 0, fmt.Errorf("nothing to approve: %s", p.Note)
	}
	if e.Runs == nil || p.ID == "" {
		q := *p
		if err := e.finish(&q, p.Patch); err != nil {
			return 0, err
		}
		if q.Empty() {
			return 0, fmt.Errorf("nothing to approve: the operations change nothing")
		}
		return e.saveProposal(ctx, &q, summary)
	}
	raw, _ := json.Marshal(answer{Approve: true, Summary: summary, Patch: p.Patch})
	s := &State{}
	// The steps after the approval (review, save) make no model call.
	if _, err := e.runner(llm.Call{}).Resume(ctx, p.ID, raw, s); err != nil {
		return 0, err
	}
	if s.Decision != "approved" || s.Version == 0 {
		return 0, fmt.Errorf("edit %s is not waiting for approval", p.ID)
	}
	return s.Version, nil
}

// Reject records that the analyst turned the proposal down, and why, in its run.
func (e *Editor) Reject(ctx context.Context, p *Proposal, reason string) error {
	if e.Runs == nil || p.ID == "" || p.Empty() {
		return nil
	}
	raw, _ := json.Marshal(answer{Approve: false, Reason: reason})
	_, err := e.runner(llm.Call{}).Resume(ctx, p.ID, raw, &State{})
	return err
}

// Load returns the proposal of an edit run and whether it is still waiting for a decision, so
// that a proposal made before a restart can be approved later.
func (e *Editor) Load(ctx context.Context, run string) (*Proposal, bool, error) {
	if e.Runs == nil {
		return nil, false, fmt.Errorf("no run store to load edit %s from", run)
	}
	cp, err := e.Runs.Latest(ctx, run)
	if err != nil {
		return nil, false, err
	}
	var s State
	if err := json.Unmarshal(cp.State, &s); err != nil || s.Proposal == nil {
		return nil, false, fmt.Errorf("run %s is not a toxicology edit", run)
	}
	return s.Proposal, cp.Status == agent.StatusInterrupted && cp.Interrupt != nil && cp.Interrupt.Kind == InterruptApproval, nil
}

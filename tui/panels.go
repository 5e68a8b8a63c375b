package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// The focus, quit and status contract of each panel (see panel in app.go).

func (l *logTab) Field() fieldState   { return noField }
func (l *logTab) FocusField() tea.Cmd { return nil }
func (l *logTab) Pending() []string   { return nil }
func (l *logTab) Screen() string      { return "log" }

func (k *knowledgeTab) Field() fieldState {
	if k.inputFor != "" {
		return fieldActive
	}
	return noField
}
func (k *knowledgeTab) FocusField() tea.Cmd { return nil }
func (k *knowledgeTab) Screen() string      { return k.showing + "/" + k.inputFor }
func (k *knowledgeTab) Pending() []string {
	var out []string
	if k.ingesting() && !k.served {
		out = append(out, "an ingest is running (it stops after the current document; both stores stay consistent)")
	}
	if k.inputFor != "" && k.input.Value() != "" {
		out = append(out, fmt.Sprintf("the %s field holds “%s”", k.inputFor, k.input.Value()))
	}
	return out
}

func (g *gasTab) Field() fieldState {
	if g.mode != gasGrid {
		return fieldActive
	}
	return noField
}
func (g *gasTab) FocusField() tea.Cmd { return nil }
func (g *gasTab) Screen() string      { return fmt.Sprintf("gas/%d", g.mode) }
func (g *gasTab) Pending() []string {
	var out []string
	if g.running() {
		out = append(out, fmt.Sprintf("the question “%s” is being answered", g.asking))
	}
	if g.filling() && !g.served {
		out = append(out, "a gas fill is running (cancelled after the current row, it stays resumable with F)")
	}
	if g.saving {
		out = append(out, "a cell is being stored")
	}
	if g.mode != gasGrid && g.input.Value() != "" {
		out = append(out, fmt.Sprintf("the field holds “%s”, not yet stored", g.input.Value()))
	}
	return out
}

func (x *toxTab) Field() fieldState {
	if x.input != toxNoInput {
		return fieldActive
	}
	return noField
}
func (x *toxTab) FocusField() tea.Cmd { return nil }
func (x *toxTab) Screen() string      { return fmt.Sprintf("tox/%d/%d", x.view, x.input) }
func (x *toxTab) Pending() []string {
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

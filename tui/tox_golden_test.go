package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// toxPatch raises the first NOAEL of EUGENOL and adds a statement.
const toxPatch = `[{"op":"test","path":"/inci","value":"EUGENOL"},{"op":"replace","path":"/noael/0/value","value":200},` +
	`{"op":"add","path":"/statements/-","value":{"text":"NOAEL confirmed by the 2023 re-evaluation.","author":"SCCS"}}]`

// TestGoldenTox snapshots the diff desk over the sample profiles, stored in and loaded from
// SQLite. The empty desk is the "toxicology" snapshot of TestGoldenPanels.
func TestGoldenTox(t *testing.T) {
	setups := map[string]func(t *testing.T, m *Model){
		// The ingredient list and the first profile.
		"profile": func(t *testing.T, m *Model) {},
		// The list filtered by name, the profile scrolled to its references.
		"filtered": func(t *testing.T, m *Model) {
			press(t, m, "/", "sal", "enter", "enter", "j", "j", "j", "j", "j", "j")
		},
		// A proposal: the input, the edit type, the operations and the coloured diff (unified
		// below 120 columns, side by side from there).
		"proposal": func(t *testing.T, m *Model) {
			proposeText(t, m, toxPatch)
			press(t, m, "c", "raised after the re-evaluation", "enter")
		},
		// The history after an approval, two versions selected.
		"history": func(t *testing.T, m *Model) {
			proposeText(t, m, toxPatch)
			press(t, m, "a", "h", " ", "j", " ")
		},
		// A rollback waiting for y/n, with its diff.
		"rollback": func(t *testing.T, m *Model) {
			proposeText(t, m, toxPatch)
			press(t, m, "a", "h", "j", "R")
		},
		// Two proposals left waiting by the CLI and a batch: counted in the list header,
		// marked beside their profiles, w in the help line.
		"waiting": func(t *testing.T, m *Model) { leaveTwoWaiting(t, m) },
		// The first of them opened with w: where it came from, its operations and diff.
		"waiting-proposal": func(t *testing.T, m *Model) {
			leaveTwoWaiting(t, m)
			press(t, m, "w")
		},
		// The editor: the title and what it takes, each on its line.
		"editor": func(t *testing.T, m *Model) { press(t, m, "i") },
		// Every key of the desk.
		"help": func(t *testing.T, m *Model) { m.showHelp = true },
	}
	for name, setup := range setups {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				m := toxDesk(t, newToxBackend(t), sz[0], sz[1])
				setup(t, m)
				out := screen(m)
				if lines := strings.Count(string(out), "\n") + 1; lines != sz[1] {
					t.Errorf("the frame has %d lines, the terminal %d", lines, sz[1])
				}
				for i, line := range strings.Split(string(out), "\n") {
					if w := ansi.StringWidth(line); w > sz[0] {
						t.Errorf("line %d is %d cells wide: %q", i+1, w, line)
					}
				}
				requireWholeHelp(t, out, sz[0])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// leaveTwoWaiting leaves proposals for EUGENOL and VANILLIN waiting and reloads the desk, as
// when it opens after `warren tox edit` and `warren tox batch`.
func leaveTwoWaiting(t *testing.T, m *Model) {
	t.Helper()
	be := m.desks.Tox.(*toxBackend)
	be.leaveWaiting(t, "EUGENOL", toxPatch, "tox-20261121-101500-aaaaaa", "")
	be.leaveWaiting(t, "VANILLIN", vanillinPatch, "tox-20261121-111500-bbbbbb", "batch-20261121-111500")
	settle(t, m, drain(m.tox.Load())...)
}

// proposeText opens the editor on the selected profile, types input and proposes it.
func proposeText(t *testing.T, m *Model, input string) []string {
	t.Helper()
	status := press(t, m, "i")
	status = append(status, settle(t, m, pasteMsg(input))...)
	status = append(status, settle(t, m, ctrlS())...)
	return status
}

func pasteMsg(s string) tea.Msg { return tea.PasteMsg{Content: s} }

func ctrlS() tea.Msg { return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl} }

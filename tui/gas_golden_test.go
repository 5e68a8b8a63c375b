package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"warren/service"
	gaspanel "warren/tui/gas"
)

// TestGoldenGas snapshots the review desk over the fixture table, stored in and loaded from
// SQLite. The empty desk is the "gas" snapshot of TestGoldenPanels.
func TestGoldenGas(t *testing.T) {
	setups := map[string]func(t *testing.T, m *Model){
		// The cursor on a filled value: the detail pane shows its source passage.
		"table": func(t *testing.T, m *Model) {
			m.gas.Focus(1, "boiling_point_c")
		},
		// Rows with cells to review only, the cursor on the second such cell.
		"flagged": func(t *testing.T, m *Model) {
			press(t, m, "f", "n", "n")
		},
		// A value read from a scanned PDF: its page, and that OCR read it.
		"pdf-source": func(t *testing.T, m *Model) {
			m.gas.Focus(5, "hazard_class")
		},
		// The edited cell: who edited it and when, said once.
		"edited": func(t *testing.T, m *Model) {
			m.gas.Focus(1, "uel_vol_pct")
		},
		// A value out of range: the refusal wraps, its upper bound on screen.
		"edit-refused": func(t *testing.T, m *Model) {
			m.gas.Focus(1, "hmis_flammability")
			press(t, m, "e", "ctrl+u", "7", "enter")
		},
		// Every key of the desk, the groups on rows where the width is short.
		"help": func(t *testing.T, m *Model) { m.showHelp = true },
		// A query that fell back to the word match, with its label and note.
		"query-fallback": func(t *testing.T, m *Model) {
			settle(t, m, gaspanel.QueryAnswered(m.gas.Snapshot().AskSeq, "fab-k2", "gases that ignite in air", service.GasQueryResult{
				Expression: `any_text contains "ignite"`, Fallback: true, Rows: []int{1},
				Note: `fallback: rows whose text mentions any of "ignite" (a word search without the model; edit the filter to refine it)` +
					` — no expression from the model compiled after 6 attempt(s)`}))
		},
	}
	for name, setup := range setups {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				m := gasDesk(t, newGasBackend(t, nil, gasFixture()), sz[0], sz[1])
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

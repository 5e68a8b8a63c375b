package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/gas"
	gaspanel "warren/tui/gas"
)

// BenchmarkGasView draws the Gas tab over a table of 200 rows with every field set, frame
// after frame while the analyst moves across rows and columns (120×40): p50 and p99 over
// every frame of every iteration, 300 per iteration.
func BenchmarkGasView(b *testing.B) {
	t := &gas.Table{Name: "big"}
	fields := gas.Fields()
	statuses := []gas.Status{gas.StatusOriginal, gas.StatusFilled, gas.StatusReview, gas.StatusApproved, gas.StatusEdited}
	for i := 1; i <= 200; i++ {
		r := &gas.Row{ID: i, Cells: map[string]gas.Cell{}}
		for j, f := range fields {
			r.Cells[f.Name] = gas.Cell{Value: fmt.Sprintf("value %d-%d", i, j), Status: statuses[(i+j)%len(statuses)], Confidence: 0.8,
				SourceDoc: "suppliers/doc.md", SourceSection: "9", Excerpt: "A passage of a data sheet that holds the value and some more words around it."}
		}
		t.Rows = append(t.Rows, r)
	}
	m := New(desksOf(fixture{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.tab = gasTabIndex
	m.Update(gaspanel.Loaded([]string{"big"}, t))
	moves := []string{"j", "l", "l", "j", "n", "pgdown", "h"}
	var d []time.Duration
	for b.Loop() {
		d = append(d, durations(b, 300, func(i int) {
			k := moves[i%len(moves)]
			msg := tea.KeyPressMsg{Code: rune(k[0]), Text: k}
			if k == "pgdown" {
				msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
			}
			m.Update(msg)
			m.Render()
		})...)
	}
	reportPercentiles(b, d, "frame-")
}

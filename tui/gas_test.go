package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/doctor"
	"warren/gas"
	"warren/llm/llmtest"
	"warren/service"
	gaspanel "warren/tui/gas"
)

// stored reads a cell back from SQLite.
func stored(t *testing.T, be *gasBackend, row int, field string) gas.Cell {
	t.Helper()
	tab, err := be.store.LoadTable(context.Background(), "fab-k2")
	if err != nil {
		t.Fatal(err)
	}
	return tab.Row(row).Cells[field]
}

func frame(m *Model) string { return ansi.Strip(m.Render()) }

func anyContains(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.Contains(x, s) })
}

// at names the cell under the cursor.
func at(g *gaspanel.Model) string { return g.Snapshot().At }

func shownNames(g *gaspanel.Model) []string {
	var out []string
	for _, r := range g.Snapshot().Shown {
		out = append(out, r.Name())
	}
	return out
}

func TestGasDecisionsAreStoredAtOnce(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 120, 40)
	g := m.gas

	// Approve a value flagged for review: status changes, value and source stay.
	g.Focus(2, "boiling_point_c")
	press(t, m, "a")
	if c := stored(t, be, 2, "boiling_point_c"); c.Status != gas.StatusApproved || c.Value != "-62.5" || c.SourceDoc != "suppliers/nordgas-arsine.md" {
		t.Errorf("approved cell in the store: %+v", c)
	}
	if c := g.Snapshot().Table.Row(2).Cells["boiling_point_c"]; c.Status != gas.StatusApproved {
		t.Errorf("the grid shows %q", c.Status)
	}

	// A value from the sheet is not approved: nothing is stored.
	g.Focus(1, "cas_number")
	if st := press(t, m, "a"); !anyContains(st, "imported sheet") {
		t.Errorf("approving an original value: %q", st)
	}

	// Edit: the value is normalised (K → °C) and stored as the analyst's.
	g.Focus(1, "boiling_point_c")
	press(t, m, "e", "ctrl+u", "161 K", "enter")
	bp, _ := gas.FieldByName("boiling_point_c")
	want, _ := gas.Normalize(bp, "161 K", "")
	c := stored(t, be, 1, "boiling_point_c")
	if c.Value != want || c.Status != gas.StatusEdited || c.Unit != "°C" || !strings.Contains(c.Note, "was -112 °C (source suppliers/nordgas-silane.md)") {
		t.Errorf("edited cell in the store: %+v (want %q)", c, want)
	}
	if g.Snapshot().Mode != "grid" || g.Snapshot().Table.Row(1).Cells["boiling_point_c"].Value != want {
		t.Errorf("after the save the editor closes and the grid shows the value: mode %q", g.Snapshot().Mode)
	}

	// Reject: the cell is emptied, with a note that keeps what it was.
	g.Focus(1, "un_number")
	press(t, m, "x")
	c = stored(t, be, 1, "un_number")
	if c.Value != "" || c.Status != gas.StatusRejected || c.Note != "rejected by the analyst: was UN2203 (source suppliers/nordgas-silane.md)" {
		t.Errorf("rejected cell in the store: %+v", c)
	}

	// Undo walks back: first the rejection, then the edit; the cursor goes to the cell.
	press(t, m, "home")
	st := press(t, m, "u")
	if c := stored(t, be, 1, "un_number"); c.Value != "UN2203" || c.Status != gas.StatusFilled {
		t.Errorf("undo restores the rejected cell: %+v", c)
	}
	if at(g) != "Silane/un_number" || g.Snapshot().Table.Row(1).Cells["un_number"].Value != "UN2203" || !anyContains(st, "undone: UN No. of Silane is UN2203") {
		t.Errorf("after undo: cursor %s, status %q", at(g), st)
	}
	press(t, m, "u")
	if c := stored(t, be, 1, "boiling_point_c"); c.Value != "-112" || c.Status != gas.StatusFilled {
		t.Errorf("the second undo restores the edited cell: %+v", c)
	}

	ds, err := be.store.Decisions(context.Background(), "fab-k2", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, d := range ds {
		reasons = append(reasons, strings.SplitN(d.Reason, " (", 2)[0])
	}
	wantReasons := []string{service.GasReasonApprove, service.GasReasonEdit, service.GasReasonReject, "undo of decision 3", "undo of decision 2"}
	if !slices.Equal(reasons, wantReasons) {
		t.Errorf("decisions %q, want %q", reasons, wantReasons)
	}
	press(t, m, "u", "u")
	if st := press(t, m, "u"); !anyContains(st, "nothing to undo") {
		t.Errorf("undo with nothing left: %q", st)
	}
}

func TestGasInvalidEditKeepsTheText(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 80, 24)
	g := m.gas
	g.Focus(1, "cas_number")
	press(t, m, "e", "ctrl+u", "7803-62-6", "enter") // wrong check digit
	if g.Snapshot().Mode != "edit" || g.Snapshot().Input != "7803-62-6" || !strings.Contains(g.Snapshot().InputErr, "CAS No.") {
		t.Fatalf("the editor stays open with the text and the error: mode %q, %q, %q", g.Snapshot().Mode, g.Snapshot().Input, g.Snapshot().InputErr)
	}
	if !strings.Contains(frame(m), "! CAS No.") {
		t.Errorf("the error is not on screen:\n%s", frame(m))
	}
	if c := stored(t, be, 1, "cas_number"); c.Value != "7803-62-5" || c.Status != gas.StatusOriginal {
		t.Errorf("nothing is stored: %+v", c)
	}
	press(t, m, "esc")
	if g.Snapshot().Mode != "grid" || (g.Field() == fieldActive) {
		t.Errorf("esc closes the editor")
	}

	// A failed save keeps the text too: the row is gone from the store behind the desk's back.
	if _, err := be.store.DB.Exec(`DELETE FROM gas_rows WHERE table_name = 'fab-k2' AND id = 4`); err != nil {
		t.Fatal(err)
	}
	g.Focus(4, "formula")
	press(t, m, "e", "ctrl+u", "H2 gas", "enter")
	if g.Snapshot().Mode != "edit" || g.Snapshot().Input != "H2 gas" || !strings.Contains(g.Snapshot().InputErr, "couldn't save") {
		t.Errorf("after a failed save: mode %q, %q, %q", g.Snapshot().Mode, g.Snapshot().Input, g.Snapshot().InputErr)
	}
	if ds, _ := be.store.Decisions(context.Background(), "fab-k2", 0, ""); len(ds) != 0 {
		t.Errorf("decisions logged: %+v", ds)
	}
}

func TestGasFlaggedNavigation(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 80, 24)
	g := m.gas
	want := []string{"Silane/autoignition_c", "Arsine/un_number", "Arsine/boiling_point_c", "Nitrogen/odour", "Phosphine/hazard_class"}
	for i := range len(want) + 1 {
		st := press(t, m, "n")
		if got := at(g); got != want[i%len(want)] {
			t.Fatalf("n #%d: %s, want %s", i+1, got, want[i%len(want)])
		}
		if wrapped := anyContains(st, "wrapped"); wrapped != (i == len(want)) {
			t.Errorf("n #%d: status %q", i+1, st)
		}
	}
	for i := len(want) - 1; i >= 0; i-- { // N goes back, wrapping from the first to the last
		press(t, m, "N")
		if got := at(g); got != want[i] {
			t.Fatalf("N: %s, want %s", got, want[i])
		}
	}

	// The filter shows the rows to review; approving their cells one by one empties it.
	press(t, m, "f")
	if got := shownNames(g); !slices.Equal(got, []string{"Silane", "Arsine", "Nitrogen", "Phosphine"}) {
		t.Errorf("flagged rows: %v", got)
	}
	if !strings.Contains(frame(m), "4 of 5 rows") {
		t.Errorf("the title says the filter is on:\n%s", frame(m))
	}
	for i := 0; ; i++ {
		if i > len(want) {
			t.Fatal("n keeps finding cells to review")
		}
		if st := press(t, m, "n"); anyContains(st, "no cells need review") {
			break
		}
		press(t, m, "a")
	}
	if len(g.Snapshot().Shown) != 0 || !strings.Contains(frame(m), "No row has cells to review.") {
		t.Errorf("every flagged cell approved, the filter shows %v", shownNames(g))
	}
	if n := be.mustCount(t, gas.StatusReview); n != 0 {
		t.Errorf("%d review cells left in the store", n)
	}
}

// mustCount counts the stored cells of a status.
func (b *gasBackend) mustCount(t *testing.T, s gas.Status) int {
	t.Helper()
	tab, err := b.store.LoadTable(context.Background(), "fab-k2")
	if err != nil {
		t.Fatal(err)
	}
	return tab.Counts()[s]
}

func TestGasApproveRowTakesOnlyHighConfidence(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 80, 24)
	g := m.gas
	g.Focus(3, "formula") // Nitrogen
	st := press(t, m, "A")
	if !anyContains(st, "approved 2 high-confidence cell(s) of Nitrogen") {
		t.Errorf("status %q", st)
	}
	before := gasFixture().Row(3).Cells
	tab, _ := be.store.LoadTable(context.Background(), "fab-k2")
	for field, c := range tab.Row(3).Cells {
		wantStatus := before[field].Status
		if field == "boiling_point_c" || field == "critical_temperature_c" { // filled at 0.9 and 0.8
			wantStatus = gas.StatusApproved
		}
		if c.Status != wantStatus || c.Value != before[field].Value {
			t.Errorf("%s: %s %q, want %s %q", field, c.Status, c.Value, wantStatus, before[field].Value)
		}
	}
	// Left: the filled value at 0.65 and the review cell.
	if st := press(t, m, "A"); !anyContains(st, "no filled cells of high confidence") {
		t.Errorf("a second A: %q", st)
	}
}

func TestGasQueryFiltersAndTheExpressionIsEditable(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "expression", SchemaHas: "expression",
		Replies: []string{`{"expression": "pyrophoric == true", "explanation": "the pyrophoric gases"}`}})
	be := newGasBackend(t, srv, gasFixture())
	m := gasDesk(t, be, 80, 24)
	g := m.gas

	press(t, m, "/", "gases that ignite in air")
	if !(g.Field() == fieldActive) || g.Snapshot().Input != "gases that ignite in air" {
		t.Fatalf("the prompt has the question: %q", g.Snapshot().Input)
	}
	_, cmd := m.Update(keys("enter")[0])
	if !strings.Contains(frame(m), "asking the model…") {
		t.Errorf("while the model works the bar says so:\n%s", frame(m))
	}
	st := settle(t, m, drain(cmd)...)
	if got := shownNames(g); !slices.Equal(got, []string{"Silane"}) {
		t.Errorf("rows %v", got)
	}
	if !strings.Contains(frame(m), "query: pyrophoric == true") || !anyContains(st, "1 of 5 rows match") {
		t.Errorf("the expression is shown: %q\n%s", st, frame(m))
	}

	// e on the query bar edits the expression; enter runs it without the model.
	press(t, m, "e")
	if g.Snapshot().Mode != "expr" || g.Snapshot().Input != "pyrophoric == true" {
		t.Fatalf("expression editor: mode %q, %q", g.Snapshot().Mode, g.Snapshot().Input)
	}
	press(t, m, "ctrl+u", `formula in ["H2", "N2"]`, "enter")
	if got := shownNames(g); !slices.Equal(got, []string{"Nitrogen", "Hydrogen"}) || g.Snapshot().Mode != "grid" {
		t.Errorf("edited expression: rows %v, mode %q", got, g.Snapshot().Mode)
	}
	if !strings.Contains(frame(m), `query: formula in ["H2", "N2"]`) {
		t.Errorf("the edited expression is shown:\n%s", frame(m))
	}

	// An expression that doesn't compile: the error inline, the text kept, the filter unchanged.
	press(t, m, "enter", "ctrl+u", "SELECT name FROM gases", "enter")
	if g.Snapshot().Mode != "expr" || g.Snapshot().Input != "SELECT name FROM gases" || g.Snapshot().InputErr == "" {
		t.Errorf("bad expression: mode %q, %q, error %q", g.Snapshot().Mode, g.Snapshot().Input, g.Snapshot().InputErr)
	}
	press(t, m, "esc")
	if got := shownNames(g); !slices.Equal(got, []string{"Nitrogen", "Hydrogen"}) {
		t.Errorf("esc in the editor keeps the query: %v", got)
	}
	press(t, m, "esc")
	if g.Snapshot().Query != nil || len(g.Snapshot().Shown) != 5 {
		t.Errorf("esc clears the query: %v", shownNames(g))
	}
	if n := srv.Count("/api/chat"); n != 1 {
		t.Errorf("%d model calls; only the question asks the model", n)
	}
}

func TestGasQueryFallbackIsLabelled(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "never valid", SchemaHas: "expression",
		Replies: []string{`{"expression": "flammability_class > 3", "explanation": "made up"}`}})
	be := newGasBackend(t, srv, gasFixture())
	m := gasDesk(t, be, 120, 40)
	press(t, m, "/", "silane", "enter")
	q := m.gas.Snapshot().Query
	if q == nil || !q.Fallback {
		t.Fatalf("want the fallback, got %+v", q)
	}
	if !slices.Contains(shownNames(m.gas), "Silane") {
		t.Errorf("the word match finds Silane: %v", shownNames(m.gas))
	}
	f := frame(m)
	if !strings.Contains(f, "fallback filter: "+q.Expression) || !strings.Contains(f, "fallback: rows whose text mentions") {
		t.Errorf("the fallback is labelled:\n%s", f)
	}
	if n := srv.Count("/api/chat"); n > 6 || q.Calls > 6 {
		t.Errorf("%d model calls (%d reported), at most 6", n, q.Calls)
	}
}

func TestGasQueryCancel(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "slow", SchemaHas: "expression", Replies: []string{`{"expression": "true", "explanation": "all"}`}})
	srv.SetLatency(time.Minute)
	be := newGasBackend(t, srv, gasFixture())
	m := gasDesk(t, be, 80, 24)
	press(t, m, "/", "toxic gases")
	_, cmd := m.Update(keys("enter")[0])
	done := make(chan []any, 1)
	go func() {
		var out []any
		for _, msg := range drain(cmd) {
			out = append(out, msg)
		}
		done <- out
	}()
	if st := press(t, m, "esc"); !anyContains(st, "query cancelled") || m.gas.Snapshot().Running {
		t.Errorf("esc cancels: %q", st)
	}
	select {
	case msgs := <-done:
		for _, msg := range msgs {
			settle(t, m, msg)
		}
		if m.gas.Snapshot().Query != nil || len(m.gas.Snapshot().Shown) != 5 {
			t.Errorf("the cancelled question's result is dropped: %+v", m.gas.Snapshot().Query)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the question still runs: the cancel didn't reach the model call")
	}
}

func TestGasTablesAndEmptyState(t *testing.T) {
	second := gasFixture()
	second.Name, second.Rows = "fab-k3", second.Rows[:2]
	be := newGasBackend(t, nil, gasFixture(), second)
	m := New(be.desks())
	m.OpenGas("fab-k3")
	st := settle(t, m, drain(m.gas.Load())...)
	if m.tab != gasTabIndex || m.gas.Snapshot().Table.Name != "fab-k3" || len(st) != 0 {
		t.Fatalf("OpenGas: tab %d, table %s, status %q", m.tab, m.gas.Snapshot().Table.Name, st)
	}
	press(t, m, "t")
	if m.gas.Snapshot().Table.Name != "fab-k2" || len(m.gas.Snapshot().Shown) != 5 {
		t.Errorf("t switches to the next table: %s", m.gas.Snapshot().Table.Name)
	}

	m = New(be.desks())
	m.OpenGas("fab-k9")
	if st := settle(t, m, drain(m.gas.Load())...); !anyContains(st, `no gas table "fab-k9"`) || m.gas.Snapshot().Table.Name != "fab-k2" {
		t.Errorf("a missing table: %q, showing %s", st, m.gas.Snapshot().Table.Name)
	}

	empty := New(newGasBackend(t, nil).desks())
	empty.OpenGas("")
	settle(t, empty, drain(empty.gas.Load())...)
	if f := frame(empty); !strings.Contains(f, "No gas table: import one with `warren gas import FILE`") {
		t.Errorf("empty state:\n%s", f)
	}
	if st := press(t, empty, "a", "n", "x"); len(st) != 0 {
		t.Errorf("review keys on an empty desk: %q", st)
	}
}

// An editor opened just before a switch of tables lands keeps to its own table: the edit is
// not stored in the row of the same number of the table now shown, and an expression editor
// whose query went with the old table doesn't crash on enter.
func TestGasEditorsSurviveASwitchOfTables(t *testing.T) {
	second := gasFixture()
	second.Name, second.Rows = "fab-k3", second.Rows[2:3] // row 1 of fab-k3 is Nitrogen
	second.Rows[0].ID = 1
	be := newGasBackend(t, nil, gasFixture(), second)
	m := gasDesk(t, be, 80, 24)
	g := m.gas

	// t, then e before the other table has loaded.
	g.Focus(1, "formula")
	_, load := m.Update(keys("t")[0])
	press(t, m, "e")
	settle(t, m, drain(load)...)
	if g.Snapshot().Table.Name != "fab-k3" || g.Snapshot().Mode != "edit" {
		t.Fatalf("table %s, mode %q", g.Snapshot().Table.Name, g.Snapshot().Mode)
	}
	press(t, m, "ctrl+u", "SiH4 (edited)", "enter")
	k3, err := be.store.LoadTable(context.Background(), "fab-k3")
	if err != nil {
		t.Fatal(err)
	}
	if c := k3.Row(1).Cells["formula"]; c.Value != "N2" || c.Status != gas.StatusOriginal {
		t.Errorf("the edit of Silane's formula in fab-k2 landed on Nitrogen in fab-k3: %+v", c)
	}
	if g.Snapshot().Mode != "edit" || !strings.Contains(g.Snapshot().InputErr, `"fab-k2"`) {
		t.Errorf("the editor stays open and says why: mode %q, %q", g.Snapshot().Mode, g.Snapshot().InputErr)
	}
	press(t, m, "esc")

	// A query on fab-k3, then t, enter (edit the expression) before fab-k2 has loaded.
	press(t, m, "/", "nitrogen", "enter", "down")
	if g.Snapshot().Query == nil {
		t.Fatal("no query")
	}
	_, load = m.Update(keys("t")[0])
	press(t, m, "enter")
	settle(t, m, drain(load)...)
	if g.Snapshot().Table.Name != "fab-k2" || g.Snapshot().Mode != "expr" || g.Snapshot().Query != nil {
		t.Fatalf("table %s, mode %q, query %+v", g.Snapshot().Table.Name, g.Snapshot().Mode, g.Snapshot().Query)
	}
	press(t, m, "enter")
	if g.Snapshot().Mode != "expr" || g.Snapshot().InputErr == "" {
		t.Errorf("enter with the query gone: mode %q, %q", g.Snapshot().Mode, g.Snapshot().InputErr)
	}
	press(t, m, "esc")
	if g.Snapshot().Mode != "grid" {
		t.Errorf("esc closes the editor: mode %q", g.Snapshot().Mode)
	}
}

// Keys pressed faster than their commands run are stored in the order pressed: Bubble Tea runs
// commands concurrently, and an undo whose command runs before the approval pressed just
// before it would undo an older decision and leave the approval in place.
func TestGasUndoRightAfterADecisionUndoesThatDecision(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 80, 24)
	g := m.gas
	g.Focus(1, "un_number")
	press(t, m, "x") // an earlier decision: Silane's UN number rejected

	g.Focus(2, "boiling_point_c")
	_, approve := m.Update(keys("a")[0])
	_, undo := m.Update(keys("u")[0])
	undone := make(chan []tea.Msg, 1)
	go func() { undone <- drain(undo) }()
	time.Sleep(50 * time.Millisecond) // the undo's command gets going first
	msgs := drain(approve)
	select {
	case more := <-undone:
		settle(t, m, append(msgs, more...)...)
	case <-time.After(10 * time.Second):
		t.Fatal("the undo never ran")
	}
	if c := stored(t, be, 2, "boiling_point_c"); c.Status != gas.StatusReview {
		t.Errorf("u right after a undoes the approval: Arsine's boiling point is %s", c.Status)
	}
	if c := stored(t, be, 1, "un_number"); c.Status != gas.StatusRejected {
		t.Errorf("the older rejection was undone instead: %+v", c)
	}
	if c := g.Snapshot().Table.Row(2).Cells["boiling_point_c"]; c.Status != gas.StatusReview {
		t.Errorf("the grid shows %s", c.Status)
	}
}

// x on the chemical name is refused: the row would lose its key, what a fill searches by.
func TestGasRejectKeepsTheChemicalName(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 80, 24)
	m.gas.Focus(1, "chemical_name")
	if st := press(t, m, "x"); !anyContains(st, "the row's key") {
		t.Errorf("x on the name: %q", st)
	}
	if c := stored(t, be, 1, "chemical_name"); c.Value != "Silane" || c.Status != gas.StatusOriginal {
		t.Errorf("the chemical name in the store: %+v", c)
	}
}

// An undo of a cell whose row the filter hides says so and leaves the cursor alone, instead of
// moving it to that field of another row.
func TestGasUndoOfAHiddenRowLeavesTheCursor(t *testing.T) {
	be := newGasBackend(t, nil, gasFixture())
	m := gasDesk(t, be, 120, 40)
	g := m.gas
	g.Focus(2, "boiling_point_c")
	press(t, m, "a") // Arsine's boiling point approved
	settle(t, m, gaspanel.QueryAnswered(g.Snapshot().AskSeq, "fab-k2", "silane", service.GasQueryResult{Expression: `formula == "SiH4"`, Rows: []int{1}}))
	press(t, m, "down")           // from the query bar to the table
	press(t, m, "home", "l", "l") // Silane's formula
	st := press(t, m, "u")
	if c := stored(t, be, 2, "boiling_point_c"); c.Status != gas.StatusReview {
		t.Fatalf("the approval is not undone: %+v", c)
	}
	if at(g) != "Silane/formula" || !anyContains(st, "hidden by the filter") {
		t.Errorf("after the undo: cursor %s, status %q", at(g), st)
	}
}

// Sheet text kept as written may hold the line breaks of a spreadsheet cell; the grid keeps
// each gas on one line, so no value shows under the wrong row.
func TestGasValueWithALineBreakStaysOnItsRow(t *testing.T) {
	tab := gasFixture()
	tab.Rows[0].Cells["cas_number"] = gas.Cell{Value: "7803-62-5\n(see note)", Status: gas.StatusReview, Method: gas.MethodSheet,
		Note: "invalid in the sheet"}
	for _, w := range []int{80, 120} {
		m := gasDesk(t, newGasBackend(t, nil, tab), w, 24)
		m.gas.Focus(1, "cas_number")
		f := frame(m)
		lines := strings.Split(f, "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "Silane") && strings.Contains(l, "SiH4") })
		if i < 0 || !strings.Contains(lines[i+1], "Arsine") || len(lines) != 24 {
			t.Errorf("%d columns: Silane's row is broken:\n%s", w, f)
		}
	}
}

// Keys pressed while the first table loads are not lost: they act once it is shown.
// gasTabLoading opens the Gas tab with its first table's load in flight (the table is not
// there yet); the returned command answers the load.
func gasTabLoading(t *testing.T) (*Model, tea.Cmd) {
	m := New(newGasBackend(t, nil, gasFixture()).desks())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	m.OpenGas("")
	return m, m.gas.Load()
}

func TestGasKeysPressedWhileTheTableLoadsAreKept(t *testing.T) {
	m, load := gasTabLoading(t)
	for _, k := range keys("l", "l", "j") {
		m.Update(k)
	}
	if m.gas.Snapshot().Table != nil {
		t.Fatal("the table is shown before its load answered")
	}
	settle(t, m, drain(load)...)
	if got, want := at(m.gas), m.gas.Snapshot().Shown[1].Name()+"/"+gas.Fields()[2].Name; got != want {
		t.Errorf("after l l j pressed during the load the cursor is on %s, want %s", got, want)
	}
}

// A key that decides, pressed while the table loads, is not replayed on a cell the analyst has
// not seen, nor is anything after it; the moves before it are.
func TestGasDecisionPressedWhileTheTableLoadsIsNotMade(t *testing.T) {
	m, load := gasTabLoading(t)
	for _, k := range keys("j", "a", "l", "x") {
		m.Update(k)
	}
	st := settle(t, m, drain(load)...)
	if got, want := at(m.gas), m.gas.Snapshot().Shown[1].Name()+"/"+gas.Fields()[0].Name; got != want {
		t.Errorf("the cursor is on %s, want %s (j replayed, nothing after a)", got, want)
	}
	for _, c := range m.gas.Snapshot().Shown[1].Cells {
		if c.Status == gas.StatusApproved || c.Status == gas.StatusRejected {
			t.Errorf("a decision was made on a cell never shown: %+v", c)
		}
	}
	if !strings.Contains(strings.Join(st, "\n"), "still loading") {
		t.Errorf("the status should say why the keys were not used: %q", st)
	}
}

package main

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"warren/gas"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/tui"
)

// The gas desk has one set of rules, the service's: a decision made with `warren gas …` and the
// same decision made with the Gas tab's keys reach the same method of service.Gas and are
// refused alike, in the same words; a fill started from either without rows takes the same
// rows.

// deskRows is a gas table with a value from the sheet, a value to review, a filled value its
// field does not allow, and a row with nothing filled at high confidence.
func deskRows(name string) *gas.Table {
	orig := func(v string) gas.Cell { return gas.Cell{Value: v, Status: gas.StatusOriginal} }
	full := map[string]gas.Cell{}
	for _, f := range gas.Fields() {
		full[f.Name] = orig("n/a")
	}
	full["chemical_name"] = orig("Nitrogen")
	return &gas.Table{Name: name, Rows: []*gas.Row{
		{ID: 1, Cells: map[string]gas.Cell{"chemical_name": orig("Silane"), "cas_number": orig("7803-62-5"),
			"boiling_point_c": {Value: "-112", Unit: "°C", Status: gas.StatusReview, Confidence: 0.5, Method: "extract", SourceDoc: "suppliers/nordgas-silane.md"},
			"hmis_health":     {Value: "7", Status: gas.StatusFilled, Confidence: 0.9, Method: "extract", SourceDoc: "suppliers/nordgas-silane.md"}}},
		{ID: 2, Cells: full}, // nothing to fill
		{ID: 3, Cells: map[string]gas.Cell{"chemical_name": orig("Arsine"), "cas_number": orig("7784-42-1")}},
	}}
}

// gasTab opens the workbench on a table's Gas tab over the open workspace.
func gasTab(t *testing.T, e *env, table string) *screenModel {
	t.Helper()
	m := tui.New(tui.DesksOf(e))
	t.Cleanup(m.Close)
	m.OpenGas(table)
	tm := &screenModel{TestModel: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(230, 40)), m: m}
	t.Cleanup(func() { tm.Quit() })
	waitFor(t, tm, "Gas table "+table)
	return tm
}

// toCell moves the Gas tab's cursor from the first cell to a row (by its place) and a field.
func toCell(tm *screenModel, row int, field string) {
	for range row - 1 {
		tm.Type("j")
	}
	col := slices.IndexFunc(gas.Fields(), func(f gas.Field) bool { return f.Name == field })
	for range col {
		tm.Type("l")
	}
}

func TestGasDecisionsAreRefusedAlikeOnTheCommandLineAndInTheGasTab(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, noOllama}
	ctx := context.Background()
	store := &gas.Store{DB: ws.DB}
	if err := store.SaveTable(ctx, deskRows("fab")); err != nil {
		t.Fatal(err)
	}
	a := &app{env: env, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	seen, err := e.Gas().Table(ctx, "fab")
	if err != nil {
		t.Fatal(err)
	}
	cell := func(row int, field string) gas.Cell { return seen.Row(row).Cells[field] }

	cases := []struct {
		name string
		kind error
		// desk is the decision made on the service's gas desk itself.
		desk func(g *service.Gas) (service.GasDecided, error)
		cli  []string
		row  int
		// keys make it in the Gas tab, on the cell of row and field.
		field string
		keys  func(tm *screenModel)
	}{
		{name: "approve a value of the sheet", kind: service.ErrGasNotApprovable,
			desk: func(g *service.Gas) (service.GasDecided, error) {
				return g.Approve(ctx, "fab", 1, "cas_number", cell(1, "cas_number"))
			},
			cli: []string{"gas", "approve", "1", "cas_number"}, row: 1, field: "cas_number",
			keys: func(tm *screenModel) { tm.Type("a") }},
		{name: "approve a value the field does not allow", kind: service.ErrGasInvalidValue,
			desk: func(g *service.Gas) (service.GasDecided, error) {
				return g.Approve(ctx, "fab", 1, "hmis_health", cell(1, "hmis_health"))
			},
			cli: []string{"gas", "approve", "1", "hmis_health"}, row: 1, field: "hmis_health",
			keys: func(tm *screenModel) { tm.Type("a") }},
		{name: "edit to an invalid value", kind: service.ErrGasInvalidValue,
			desk: func(g *service.Gas) (service.GasDecided, error) {
				return g.Edit(ctx, "fab", 1, "cas_number", "7803-62-6", cell(1, "cas_number"))
			},
			cli: []string{"gas", "edit", "1", "cas_number", "7803-62-6"}, row: 1, field: "cas_number",
			keys: func(tm *screenModel) {
				tm.Type("e")
				press(tm, 'u', tea.ModCtrl)
				tm.Type("7803-62-6")
				press(tm, tea.KeyEnter)
			}},
		{name: "reject the chemical name", kind: service.ErrGasNotRejectable,
			desk: func(g *service.Gas) (service.GasDecided, error) {
				return g.Reject(ctx, "fab", 1, "chemical_name", cell(1, "chemical_name"))
			},
			cli: []string{"gas", "reject", "1", "chemical_name"}, row: 1, field: "chemical_name",
			keys: func(tm *screenModel) { tm.Type("x") }},
		{name: "approve a row without high-confidence values", kind: service.ErrGasNotApprovable,
			desk: func(g *service.Gas) (service.GasDecided, error) {
				return g.ApproveRow(ctx, "fab", 3, seen.Row(3).Cells)
			},
			cli: []string{"gas", "approve", "3"}, row: 3, field: "chemical_name",
			keys: func(tm *screenModel) { tm.Type("A") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.desk(e.Gas())
			var refusal *service.GasRefusal
			if !errors.As(err, &refusal) || !errors.Is(err, tc.kind) {
				t.Fatalf("the desk: want a refusal of kind %v, got %v", tc.kind, err)
			}

			r := warren(t, env, tc.cli...)
			if r.code != 1 || !strings.HasPrefix(r.stderr, "warren: "+refusal.Why) {
				t.Errorf("%v: exit %d, %q; want the desk's refusal %q", tc.cli, r.code, r.stderr, refusal.Why)
			}

			tm := gasTab(t, e, "fab")
			toCell(tm, tc.row, tc.field)
			tc.keys(tm)
			waitFor(t, tm, refusal.Why)

			if ds, err := store.Decisions(ctx, "fab", 0, ""); err != nil || len(ds) != 0 {
				t.Errorf("a refused decision was stored: %+v %v", ds, err)
			}
		})
	}

	// And a decision the desk takes is taken alike: the CLI's approval is the tab's.
	if r := warren(t, env, "gas", "approve", "1", "boiling_point_c"); r.code != 0 || !strings.Contains(r.stdout, "Approved Boiling Point (°C) of Silane (row 1): -112 °C") {
		t.Errorf("approve: %+v", r)
	}
	ds, err := store.Decisions(ctx, "fab", 0, "")
	if err != nil || len(ds) != 1 || ds[0].Reason != service.GasReasonApprove || ds[0].After.Status != gas.StatusApproved {
		t.Errorf("the CLI's approval is logged as the desk's: %+v %v", ds, err)
	}
}

func TestGasFillWithoutRowsTakesTheSameRowsFromTheCommandLineAndTheGasTab(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	ctx := context.Background()
	store := &gas.Store{DB: ws.DB}
	for _, name := range []string{"by-cli", "by-tab"} {
		if err := store.SaveTable(ctx, deskRows(name)); err != nil {
			t.Fatal(err)
		}
	}
	want := service.GasDefaultFillRows(deskRows("x"))
	if !slices.Equal(want, []int{1, 3}) {
		t.Fatalf("the desk's rows %v: the table must have a row with nothing to fill", want)
	}

	if r := warren(t, env, "gas", "fill", "--table", "by-cli"); r.code != 0 {
		t.Fatalf("gas fill: %+v", r)
	}

	a := &app{env: env, logger: slog.New(slog.DiscardHandler)}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	tm := gasTab(t, e, "by-tab")
	tm.Type("F")
	waitFor(t, tm, "fill done:")

	for _, name := range []string{"by-cli", "by-tab"} {
		last, ok, err := store.LastFill(ctx, name)
		if err != nil || !ok || !slices.Equal(last.Rows, want) {
			t.Errorf("the fill of %s took rows %v (%v %v), want the desk's %v", name, last.Rows, ok, err, want)
		}
	}

	// A table with nothing to fill is refused alike: no fill is recorded.
	full := deskRows("full")
	full.Rows = full.Rows[1:2]
	if err := store.SaveTable(ctx, full); err != nil {
		t.Fatal(err)
	}
	if r := warren(t, env, "gas", "fill", "--table", "full"); r.code != 0 || !strings.Contains(r.stderr, "no empty cells to fill") {
		t.Errorf("gas fill of a full table: %+v", r)
	}
	tm = gasTab(t, e, "full")
	tm.Type("F")
	waitFor(t, tm, "no empty cells to fill")
	if _, ok, _ := store.LastFill(ctx, "full"); ok {
		t.Error("a fill of a full table was recorded")
	}
}

// The decision commands say what they stored, and undo walks the analyst's decisions back.
func TestGasDecisionCommands(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, noOllama}
	if err := (&gas.Store{DB: ws.DB}).SaveTable(context.Background(), deskRows("fab")); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		args []string
		code int
		want string // in stdout, or in stderr for a failure
	}{
		{[]string{"gas", "edit", "1", "boiling_point_c", "161 K"}, 0, "Saved Boiling Point (°C) of Silane (row 1): -112.2 °C"},
		{[]string{"gas", "edit", "1", "cas_number", "7803-62-5"}, 0, "The value is unchanged: nothing stored."},
		{[]string{"gas", "reject", "1", "cas_number", "--json"}, 0, `"status": "rejected"`},
		{[]string{"gas", "approve", "1", "cas_number"}, 1, "warren: the value was rejected; set one with `warren gas edit ROW FIELD VALUE`"},
		{[]string{"gas", "approve", "9", "cas_number"}, 2, `ROW "9": gas table "fab" has no row 9`},
		{[]string{"gas", "undo"}, 0, "Undone: CAS No. of Silane (row 1) is 7803-62-5 again."},
		{[]string{"gas", "undo", "--json"}, 0, `"field": "boiling_point_c"`},
		{[]string{"gas", "undo"}, 1, "nothing to undo"},
	} {
		r := warren(t, env, step.args...)
		out := r.stdout
		if step.code != 0 {
			out = r.stderr
		}
		if r.code != step.code || !strings.Contains(out, step.want) {
			t.Errorf("%v: exit %d, want %d with %q: %+v", step.args, r.code, step.code, step.want, r)
		}
	}
	tab, err := (&gas.Store{DB: ws.DB}).LoadTable(context.Background(), "fab")
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Row(1).Cells["boiling_point_c"]; c.Status != gas.StatusReview || c.Value != "-112" {
		t.Errorf("after the undos the boiling point is %+v", c)
	}
}

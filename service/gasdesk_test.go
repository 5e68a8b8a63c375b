package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"warren/gas"
)

// deskTable is a small gas table with a cell of every status, and a row with nothing to fill.
func deskTable() *gas.Table {
	at := time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)
	orig := func(v string) gas.Cell { return gas.Cell{Value: v, Status: gas.StatusOriginal} }
	fill := func(v, unit string, conf float64) gas.Cell {
		st := gas.StatusFilled
		if conf < gas.HighConfidence {
			st = gas.StatusReview
		}
		return gas.Cell{Value: v, Unit: unit, Status: st, Confidence: conf, Method: "extract", SourceDoc: "suppliers/silane.md", UpdatedAt: at}
	}
	full := map[string]gas.Cell{}
	for _, f := range gas.Fields() {
		full[f.Name] = orig("n/a")
	}
	full["chemical_name"] = orig("Nitrogen")
	return &gas.Table{Name: "fab", Rows: []*gas.Row{
		{ID: 1, Cells: map[string]gas.Cell{
			"chemical_name": orig("Silane"), "cas_number": orig("7803-62-5"),
			"un_number":       fill("UN2203", "", 0.88),
			"boiling_point_c": fill("-112", "°C", 0.92),
			"autoignition_c":  fill("21", "°C", 0.45),
			"melting_point_c": fill("-185", "°C", 0.65),
			"lel_vol_pct":     {Value: "1.37", Unit: "vol %", Status: gas.StatusApproved},
			"uel_vol_pct":     {Value: "96", Unit: "vol %", Status: gas.StatusEdited, Method: "analyst"},
			"flash_point_c":   {Status: gas.StatusRejected, Note: "rejected by the analyst: was -50 °C"},
		}},
		{ID: 2, Cells: full},
		{ID: 3, Cells: map[string]gas.Cell{"chemical_name": orig("Arsine"), "formula": orig("AsH3")}},
	}}
}

func deskService(t *testing.T) (*Service, *gas.Table) {
	t.Helper()
	s := openService(t)
	tab := deskTable()
	if err := s.GasStore().SaveTable(context.Background(), tab); err != nil {
		t.Fatal(err)
	}
	return s, tab
}

// refusal returns err's *GasRefusal, failing the test when it is none.
func refusal(t *testing.T, err error, kind error) *GasRefusal {
	t.Helper()
	var r *GasRefusal
	if !errors.As(err, &r) || !errors.Is(err, kind) {
		t.Fatalf("want a refusal of kind %v, got %v", kind, err)
	}
	return r
}

// Only a filled value waits for approval; every other cell says why not, and how on.
func TestGasCanApprove(t *testing.T) {
	for _, tc := range []struct {
		status gas.Status
		why    string // "" when it can be approved
		fix    GasFix
	}{
		{gas.StatusFilled, "", 0},
		{gas.StatusReview, "", 0},
		{gas.StatusOriginal, "the value comes from the imported sheet: there is nothing to approve", GasFixNone},
		{gas.StatusApproved, "the value is approved already", GasFixNone},
		{gas.StatusEdited, "you typed this value: it needs no approval", GasFixNone},
		{gas.StatusRejected, "the value was rejected", GasFixTypeOrUndo},
		{gas.StatusEmpty, "the cell is empty: nothing to approve", GasFixType},
	} {
		err := GasCanApprove("hmis_health", gas.Cell{Value: "1", Status: tc.status})
		if tc.why == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.status, err)
			}
			continue
		}
		if r := refusal(t, err, ErrGasNotApprovable); r.Why != tc.why || r.Fix != tc.fix || err.Error() != tc.why {
			t.Errorf("%s: %q (fix %d), want %q (fix %d)", tc.status, r.Why, r.Fix, tc.why, tc.fix)
		}
	}
}

// A filled value its field does not allow is not approved, in the field's words; approving the
// row leaves it out.
func TestGasInvalidFilledValueIsNotApproved(t *testing.T) {
	bad := gas.Cell{Value: "7803-62-6", Status: gas.StatusFilled, Confidence: 0.95} // check digit is 5
	r := refusal(t, GasCanApprove("cas_number", bad), ErrGasInvalidValue)
	var ve *gas.ValueError
	if !errors.As(r, &ve) || r.Fix != GasFixEditOrReject || !strings.Contains(r.Why, "7803-62-6") {
		t.Errorf("refusal %q (fix %d, value error %v)", r.Why, r.Fix, ve)
	}
	good := bad
	good.Value = "7803-62-5"
	if err := GasCanApprove("cas_number", good); err != nil {
		t.Errorf("a valid CAS number: %v", err)
	}
	cells := map[string]gas.Cell{"cas_number": bad, "hmis_health": {Value: "2", Status: gas.StatusFilled, Confidence: 0.95}}
	if got := GasRowApprovals(cells); len(got) != 1 || got[0] != "hmis_health" {
		t.Errorf("the row's approvals: %v, want [hmis_health]", got)
	}
}

// The chemical name is never rejected, nor an empty cell; any value is.
func TestGasCanReject(t *testing.T) {
	for _, tc := range []struct {
		field string
		cell  gas.Cell
		why   string
	}{
		{"chemical_name", gas.Cell{Value: "Silane", Status: gas.StatusOriginal}, "the chemical name is the row's key"},
		{"un_number", gas.Cell{}, "the cell is empty: nothing to reject"},
		{"un_number", gas.Cell{Status: gas.StatusRejected}, "the cell is empty: nothing to reject"},
		{"un_number", gas.Cell{Value: "UN2203", Status: gas.StatusOriginal}, ""},
		{"un_number", gas.Cell{Value: "UN2203", Status: gas.StatusApproved}, ""},
	} {
		err := GasCanReject(tc.field, tc.cell)
		if tc.why == "" {
			if err != nil {
				t.Errorf("%s %+v: %v", tc.field, tc.cell, err)
			}
			continue
		}
		if r := refusal(t, err, ErrGasNotRejectable); r.Why != tc.why {
			t.Errorf("%s %+v: %q, want %q", tc.field, tc.cell, r.Why, tc.why)
		}
	}
}

// "Approve the row" takes the values filled at high confidence, in field order: not those to
// review, not those filled below gas.HighConfidence, nor any other.
func TestGasRowApprovals(t *testing.T) {
	got := GasRowApprovals(deskTable().Row(1).Cells)
	if want := []string{"un_number", "boiling_point_c"}; !slices.Equal(got, want) {
		t.Errorf("approvals %q, want %q", got, want)
	}
	if got := GasRowApprovals(deskTable().Row(3).Cells); len(got) != 0 {
		t.Errorf("a row without filled values: %q", got)
	}
}

// A fill without rows takes those with a cell to ask for; a table without any is refused.
func TestGasFillRows(t *testing.T) {
	tab := deskTable()
	if got := GasDefaultFillRows(tab); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("default rows %v, want [1 3] (row 2 has every cell)", got)
	}
	tab.Rows = tab.Rows[1:2]
	rows, err := GasFillRows(tab)
	if r := refusal(t, err, ErrGasNothingToFill); len(rows) != 0 || r.Why != "no empty cells to fill" {
		t.Errorf("a full table: %v %q", rows, r.Why)
	}
}

// Each decision stores what the desk's rules make of the analyst's intent, in their name, or
// is refused and stores nothing.
func TestGasDecisions(t *testing.T) {
	type call func(ctx context.Context, g *Gas, seen *gas.Table) (GasDecided, error)
	cases := []struct {
		name   string
		decide call
		kind   error  // the refusal's kind, nil when the decision is stored
		why    string // the refusal's reason
		row    int
		field  string
		want   func(c gas.Cell) bool // the cell as stored afterwards
		reason string                // the reason logged
	}{
		{name: "approve a value to review", row: 1, field: "autoignition_c",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Approve(ctx, "fab", 1, "autoignition_c", v.Row(1).Cells["autoignition_c"])
			},
			want: func(c gas.Cell) bool {
				return c.Status == gas.StatusApproved && c.Value == "21" && c.SourceDoc == "suppliers/silane.md" && c.By == "ana"
			},
			reason: GasReasonApprove},
		{name: "approve a value of the sheet", row: 1, field: "cas_number", kind: ErrGasNotApprovable,
			why: "the value comes from the imported sheet: there is nothing to approve",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Approve(ctx, "fab", 1, "cas_number", v.Row(1).Cells["cas_number"])
			}},
		{name: "approve a rejected cell", row: 1, field: "flash_point_c", kind: ErrGasNotApprovable, why: "the value was rejected",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Approve(ctx, "fab", 1, "flash_point_c", v.Row(1).Cells["flash_point_c"])
			}},
		{name: "reject a filled value", row: 1, field: "un_number",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Reject(ctx, "fab", 1, "un_number", v.Row(1).Cells["un_number"])
			},
			want: func(c gas.Cell) bool {
				return c.Status == gas.StatusRejected && c.Value == "" && c.Note == "rejected by the analyst: was UN2203 (source suppliers/silane.md)"
			},
			reason: GasReasonReject},
		{name: "reject the chemical name", row: 1, field: "chemical_name", kind: ErrGasNotRejectable, why: "the chemical name is the row's key",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Reject(ctx, "fab", 1, "chemical_name", v.Row(1).Cells["chemical_name"])
			}},
		{name: "edit with a unit", row: 1, field: "boiling_point_c",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Edit(ctx, "fab", 1, "boiling_point_c", "161 K", v.Row(1).Cells["boiling_point_c"])
			},
			want: func(c gas.Cell) bool {
				return c.Status == gas.StatusEdited && c.Value == "-112.2" && c.Unit == "°C" && c.Method == "analyst" &&
					c.Note == "edited by the analyst: was -112 °C (source suppliers/silane.md)"
			},
			reason: GasReasonEdit},
		{name: "edit to a value the field does not allow", row: 1, field: "cas_number", kind: ErrGasInvalidValue,
			why: `CAS No.: "7803-62-6" `,
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Edit(ctx, "fab", 1, "cas_number", "7803-62-6", v.Row(1).Cells["cas_number"])
			}},
		{name: "edit to no value", row: 1, field: "formula", kind: ErrGasInvalidValue, why: "the value is empty",
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Edit(ctx, "fab", 1, "formula", "  ", v.Row(1).Cells["formula"])
			}},
		{name: "edit on a cell changed since", row: 1, field: "boiling_point_c", kind: gas.ErrStale,
			decide: func(ctx context.Context, g *Gas, v *gas.Table) (GasDecided, error) {
				return g.Edit(ctx, "fab", 1, "boiling_point_c", "-100", gas.Cell{Value: "-111", Status: gas.StatusFilled})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := deskService(t)
			ctx := context.Background()
			view, err := s.Gas().Table(ctx, "fab")
			if err != nil {
				t.Fatal(err)
			}
			before := view.Row(tc.row).Cells[tc.field]
			res, err := tc.decide(ctx, s.Gas(), view)
			after, _ := s.Gas().Table(ctx, "fab")
			got := after.Row(tc.row).Cells[tc.field]
			ds, _ := s.GasStore().Decisions(ctx, "fab", 0, "")
			if tc.kind != nil {
				if !errors.Is(err, tc.kind) {
					t.Fatalf("want %v, got %v", tc.kind, err)
				}
				if r := (*GasRefusal)(nil); tc.why != "" && (!errors.As(err, &r) || len(r.Why) < len(tc.why) || r.Why[:len(tc.why)] != tc.why) {
					t.Errorf("refusal %q, want it to begin %q", err, tc.why)
				}
				if len(res.Cells) != 0 || len(ds) != 0 || got != before {
					t.Errorf("a refused decision stored %+v (decisions %+v)", res.Cells, ds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(got) {
				t.Errorf("stored %+v", got)
			}
			if len(res.Cells) != 1 || res.Cells[0].Row != tc.row || res.Cells[0].Field != tc.field || res.Cells[0].Cell != got {
				t.Errorf("the result %+v is not the cell stored %+v", res, got)
			}
			if len(ds) != 1 || ds[0].Reason != tc.reason {
				t.Errorf("decisions %+v, want one for %q", ds, tc.reason)
			}
		})
	}
}

// An invalid value's refusal carries what the field allows.
func TestGasEditRefusalSaysWhatTheFieldAllows(t *testing.T) {
	s, tab := deskService(t)
	_, err := s.Gas().Edit(context.Background(), "fab", 1, "cas_number", "7803-62-6", tab.Row(1).Cells["cas_number"])
	var ve *gas.ValueError
	if !errors.As(err, &ve) || ve.Allowed == "" || refusal(t, err, ErrGasInvalidValue).Why != ve.Error() {
		t.Errorf("the refusal of an invalid CAS number: %v", err)
	}
}

// Typing the value an imported, approved or own cell holds stores nothing; a filled value typed
// as it is becomes the analyst's.
func TestGasEditOfTheSameValue(t *testing.T) {
	for _, tc := range []struct {
		field, value string
		unchanged    bool
	}{
		{"cas_number", "7803-62-5", true}, // from the sheet
		{"lel_vol_pct", "1.37", true},     // approved
		{"uel_vol_pct", "96", true},       // the analyst's
		{"boiling_point_c", "-112", false},
	} {
		s, tab := deskService(t)
		ctx := context.Background()
		res, err := s.Gas().Edit(ctx, "fab", 1, tc.field, tc.value, tab.Row(1).Cells[tc.field])
		ds, _ := s.GasStore().Decisions(ctx, "fab", 0, "")
		if err != nil || res.Unchanged != tc.unchanged || (len(ds) == 0) != tc.unchanged {
			t.Errorf("%s: %+v, %v, %d decisions", tc.field, res, err, len(ds))
		}
		if !tc.unchanged && (res.Cells[0].Cell.Status != gas.StatusEdited || res.Cells[0].Cell.Note != "") {
			t.Errorf("%s: stored %+v (no note: the value is the same)", tc.field, res.Cells[0].Cell)
		}
	}
}

// "Approve the row" approves the high-confidence values, each its own decision, and refuses a
// row without any, naming it; undo walks the decisions back one at a time.
func TestGasApproveRowAndUndo(t *testing.T) {
	s, tab := deskService(t)
	ctx := context.Background()
	g := s.Gas()
	res, err := g.ApproveRow(ctx, "fab", 1, tab.Row(1).Cells)
	if err != nil || len(res.Cells) != 2 {
		t.Fatalf("approve row: %+v %v", res, err)
	}
	now, _ := s.Gas().Table(ctx, "fab")
	for field, c := range now.Row(1).Cells {
		approved := field == "un_number" || field == "boiling_point_c" || field == "lel_vol_pct"
		if (c.Status == gas.StatusApproved) != approved {
			t.Errorf("%s is %s", field, c.Status)
		}
	}
	_, err = g.ApproveRow(ctx, "fab", 3, tab.Row(3).Cells)
	if r := refusal(t, err, ErrGasNotApprovable); r.Why != "Arsine has no filled cells of high confidence to approve" || r.Fix != GasFixApproveOne {
		t.Errorf("a row without high-confidence values: %+v", r)
	}
	for _, want := range []string{"boiling_point_c", "un_number"} {
		if _, field, err := g.Undo(ctx, "fab"); err != nil || field != want {
			t.Errorf("undo: %s %v, want %s", field, err, want)
		}
	}
	if _, _, err := g.Undo(ctx, "fab"); !errors.Is(err, gas.ErrNothingToUndo) {
		t.Errorf("undo with nothing left: %v", err)
	}
	if now, _ := s.Gas().Table(ctx, "fab"); now.Row(1).Cells["un_number"].Status != gas.StatusFilled {
		t.Errorf("after the undos: %+v", now.Row(1).Cells["un_number"])
	}
}

// A fill without rows records the rows the desk picks; a table with nothing to fill is refused
// before any fill is recorded.
func TestGasStartFillWithoutRows(t *testing.T) {
	s, _ := deskService(t)
	ctx := context.Background()
	if rows, err := s.Gas().DefaultFillRows(ctx, ""); err != nil || !slices.Equal(rows, []int{1, 3}) {
		t.Fatalf("default rows: %v %v", rows, err)
	}
	if _, err := s.Gas().StartFill(ctx, "fab", nil, nil, nil); err != nil {
		t.Logf("the fill without a model: %v", err) // the rows are recorded before any is worked
	}
	last, ok, err := s.GasStore().LastFill(ctx, "fab")
	if err != nil || !ok || !slices.Equal(last.Rows, []int{1, 3}) {
		t.Errorf("the fill's rows: %+v %v %v", last, ok, err)
	}

	full := deskTable()
	full.Name, full.Rows = "full", full.Rows[1:2]
	if err := s.GasStore().SaveTable(ctx, full); err != nil {
		t.Fatal(err)
	}
	_, err = s.Gas().StartFill(ctx, "full", nil, nil, nil)
	refusal(t, err, ErrGasNothingToFill)
	if _, ok, _ := s.GasStore().LastFill(ctx, "full"); ok {
		t.Error("a refused fill was recorded")
	}
}

package service

import (
	"strings"
	"testing"

	"warren/agent/gasfill"
	"warren/gas"
)

// An unsupported value (no passage states it) is not approved as it stands: the refusal gives
// the reason and the way out is to correct it (an edit) or reject it. Approving the row leaves
// it out, and a fill's summary counts it apart from the filled cells.
func TestGasUnsupportedValueIsNotApproved(t *testing.T) {
	u := gas.Cell{Value: "-62.5", Unit: "°C", Status: gas.StatusUnsupported, Confidence: 0.95,
		Note: `the model read "-62.5" from nordgas-arsine, which does not state it`}
	r := refusal(t, GasCanApprove("boiling_point_c", u), ErrGasNotApprovable)
	if r.Fix != GasFixEditOrReject || !strings.Contains(r.Why, "no passage states the value") || !strings.Contains(r.Why, "nordgas-arsine") {
		t.Errorf("refusal %q (fix %d)", r.Why, r.Fix)
	}
	if got := GasRowApprovals(map[string]gas.Cell{"boiling_point_c": u}); len(got) != 0 {
		t.Errorf("the row's approvals take %v", got)
	}
	if err := GasCanReject("boiling_point_c", u); err != nil {
		t.Errorf("an unsupported value can't be rejected: %v", err)
	}

	res := GasFillResult{Table: "t", Results: []gasfill.RowResult{{Row: 1, Name: "Arsine", Grounded: true, Filled: 1, Unsupported: 1,
		Changes: []gasfill.CellChange{
			{Field: "boiling_point_c", After: u},
			{Field: "formula", After: gas.Cell{Value: "AsH3", Status: gas.StatusFilled, Confidence: 0.9}},
		}}}}
	if sum := res.Summary(); sum.Filled != 1 || sum.Unsupported != 1 || sum.Review != 0 {
		t.Errorf("summary: %d filled, %d unsupported, %d review", sum.Filled, sum.Unsupported, sum.Review)
	}
}

// A query does not see an unsupported value: it is no value of the table.
func TestGasQueryIgnoresUnsupportedValues(t *testing.T) {
	tab := &gas.Table{Name: "t", Rows: []*gas.Row{{ID: 1, Cells: map[string]gas.Cell{
		"chemical_name":   {Value: "Arsine", Status: gas.StatusOriginal},
		"boiling_point_c": {Value: "-62.5", Status: gas.StatusUnsupported},
		"formula":         {Value: "AsH3", Status: gas.StatusFilled},
	}}}}
	rows := QueryRows(tab, QuerySchema(tab))
	if rows[0]["boiling_point_c"] != nil || rows[0]["formula"] != "AsH3" {
		t.Errorf("query row %v", rows[0])
	}
}

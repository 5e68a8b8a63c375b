package toxedit

import (
	"strings"
	"testing"
)

// Of a form as the model read it, only what the form states is kept: a NOAEL of 50 read from a
// form that says 500, a DAP the form does not give, a CAS number it does not give are left out
// and named; what the form states (in its own spelling) stays.
func TestFormValuesTheFormDoesNotStateAreLeftOut(t *testing.T) {
	form := "Ingredient: Glycerin, CAS 56-81-5\nNOAEL: 1.000 mg/kg bw/day (rat, oral, 90 days)\nLOAEL 2500 mg/kg bw/day\nDAP: 10 %"
	f := &formExtract{CAS: "56-81-5",
		NOAEL: []formNOAEL{{Value: 1000, Unit: "mg/kg bw/day", Type: "NOAEL"}, {Value: 250, Unit: "mg/kg bw/day", Type: "LOAEL"}},
		DAP:   []formDAP{{Value: 10}, {Value: 50}}}
	dropped := f.ground(form)
	if strings.Join(dropped, "|") != "LOAEL 250 mg/kg bw/day|DAP 50 %" {
		t.Errorf("dropped %q", dropped)
	}
	if f.CAS != "56-81-5" || len(f.NOAEL) != 1 || f.NOAEL[0].Value != 1000 || len(f.DAP) != 1 || f.DAP[0].Value != 10 {
		t.Errorf("kept %+v", f)
	}
	g := &formExtract{CAS: "56-81-6"}
	if d := g.ground(form); len(d) != 1 || g.CAS != "" {
		t.Errorf("a CAS number the form does not give: dropped %q, kept %q", d, g.CAS)
	}
}

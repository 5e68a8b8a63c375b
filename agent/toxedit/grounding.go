package toxedit

import (
	"fmt"
	"strconv"
	"strings"

	"warren/internal/evidence"
)

// ground keeps of a form as the model read it only what the form's text states: a CAS number
// exactly, NOAEL and DAP values as whole numbers (decimal comma or point, thousands
// separators). What the form does not state is left out of the proposal and returned in words,
// for the proposal's note: the model must not put a value in a profile that its source lacks.
func (f *formExtract) ground(form string) []string {
	var dropped []string
	if f.CAS != "" {
		if _, ok := evidence.FindCAS(form, f.CAS); !ok {
			dropped = append(dropped, "CAS "+f.CAS)
			f.CAS = ""
		}
	}
	kept := f.NOAEL[:0]
	for _, n := range f.NOAEL {
		if statesNumber(form, n.Value) {
			kept = append(kept, n)
			continue
		}
		dropped = append(dropped, strings.TrimSpace(fmt.Sprintf("%s %s %s", n.Type, formNumber(n.Value), n.Unit)))
	}
	f.NOAEL = kept
	keptDAP := f.DAP[:0]
	for _, d := range f.DAP {
		if statesNumber(form, d.Value) {
			keptDAP = append(keptDAP, d)
			continue
		}
		dropped = append(dropped, "DAP "+formNumber(d.Value)+" %")
	}
	f.DAP = keptDAP
	return dropped
}

func formNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// statesNumber reports that text has the number as a whole token, in any unit.
func statesNumber(text string, x float64) bool {
	want, ok := evidence.ParseQuantity(formNumber(x))
	if !ok {
		return false
	}
	_, found := evidence.FindQuantity(text, want, evidence.Options{})
	return found
}

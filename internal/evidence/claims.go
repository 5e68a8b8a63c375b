package evidence

import "sort"

// Claim is a fact a sentence states that the passages it cites must state too: a number with
// a unit, a limit value, or a CAS number.
type Claim struct {
	Text       string     // as the sentence writes it
	Quantities []Quantity // the readings of a number; nil for a CAS number
	CAS        string
	Span       Span
}

// limitWords name limit values: a number after one of them is a claim even without a unit
// ("the TLV is 0.05").
var limitWords = []string{"tlv", "twa", "stel", "pel", "rel", "idlh", "mak", "agw", "oel", "wel", "lel", "uel",
	"lfl", "ufl", "limit", "limits", "grenzwert", "ceiling", "aegl", "erpg", "threshold", "exposure limit"}

// Claims lists what a sentence claims that a passage must state: every CAS number, every
// number written with a unit, and every number up to three words after the name of a limit
// value. Other numbers (years, section numbers, counts) are not checked.
func Claims(sentence string) []Claim {
	var out []Claim
	for _, loc := range casShape.FindAllStringIndex(sentence, -1) {
		if !digitNear(sentence, loc[0], loc[1]) {
			text := sentence[loc[0]:loc[1]]
			out = append(out, Claim{Text: text, CAS: text, Span: Span{loc[0], loc[1]}})
		}
	}
	toks := tokens(sentence)
	qs := Quantities(sentence)
	for i := 0; i < len(qs); {
		j := i
		for j < len(qs) && qs[j].Span == qs[i].Span {
			j++
		}
		q := qs[i]
		limit := false
		if q.Unit == "" {
			k := sort.Search(len(toks), func(k int) bool { return toks[k].start >= q.Span.Start })
			_, limit = labelBefore(toks, k, limitWords, 3)
		}
		if q.Unit != "" || limit {
			out = append(out, Claim{Text: sentence[q.Span.Start:q.Span.End], Quantities: qs[i:j], Span: q.Span})
		}
		i = j
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Span.Start < out[b].Span.Start })
	return out
}

// Supports finds the claim in a passage: a CAS number exactly, a quantity as FindQuantity
// does. Without a molar mass, one the passage gives (in g/mol) lets ppm and mg/m³ meet.
func Supports(passage string, c Claim, molarMass float64) (Span, bool) {
	if c.CAS != "" {
		return FindCAS(passage, c.CAS)
	}
	if molarMass <= 0 {
		for _, q := range Quantities(passage) {
			if q.Unit == "g/mol" && q.Value > 0 {
				molarMass = q.Value
				break
			}
		}
	}
	return FindQuantity(passage, c.Quantities, Options{MolarMass: molarMass})
}

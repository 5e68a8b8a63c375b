package gas

import (
	"sort"
	"strings"

	"warren/internal/evidence"
)

// Stated finds where a passage states a field's value (canonical, as Normalize gives it), and
// reports false when it does not: a quantity in any unit the field takes, rounded as the field
// rounds (molarMass, in g/mol, lets a ppm limit be read from mg/m³; 0 when unknown); a CAS
// number exactly; a UN number with its prefix; a rating, an enum value or a yes/no beside the
// words that name the field ("Health: 3", "Physical state: gas", "not pyrophoric"); text and
// list items as whole words. A bare "no", or "no" inside "Nordgas", states nothing.
func Stated(f Field, value, passage string, molarMass float64) (evidence.Span, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return evidence.Span{}, false
	}
	if value == NotApplicable {
		return evidence.FindPhrase(passage, "n/a", "not applicable", "nicht zutreffend", "entfällt", "none", "not relevant")
	}
	switch f.Kind {
	case KindCAS:
		return evidence.FindCAS(passage, value)
	case KindUN:
		return evidence.FindCode(passage, "UN", strings.TrimPrefix(value, "UN"))
	case KindNumber, KindTemperature, KindPressure, KindPercent, KindPPM:
		want, ok := evidence.ParseQuantity(value + " " + claimUnit(f))
		if !ok {
			return evidence.Span{}, false
		}
		if molarMass <= 0 && f.Kind == KindPPM {
			molarMass = passageMolarMass(passage)
		}
		return evidence.FindQuantity(passage, want, evidence.Options{MolarMass: molarMass})
	case KindRating:
		want, ok := evidence.ParseQuantity(value)
		if !ok {
			return evidence.Span{}, false
		}
		return evidence.FindQuantity(passage, want, evidence.Options{Near: ratingLabels(f), NearWindow: 3})
	case KindBool:
		return evidence.FindStatement(passage, statementLabels(f), value == "yes")
	case KindEnum:
		return statedEnum(f, value, passage)
	case KindList:
		return statedItems(passage, strings.Split(value, ";"))
	case KindString:
		// "Flam. Gas 1; Press. Gas" may be listed on lines of their own.
		return statedItems(passage, strings.Split(value, ";"))
	}
	return evidence.Span{}, false
}

// claimUnit is the field's unit as a quantity is written in it.
func claimUnit(f Field) string {
	if f.Kind == KindPercent {
		return "%"
	}
	return f.Unit
}

// statedItems finds every item as whole words; the span runs from the first found to the last.
func statedItems(passage string, items []string) (evidence.Span, bool) {
	var sp evidence.Span
	found := false
	for _, it := range items {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		s, ok := evidence.FindPhrase(passage, it)
		if !ok {
			return evidence.Span{}, false
		}
		if !found {
			sp, found = s, true
			continue
		}
		sp.Start, sp.End = min(sp.Start, s.Start), max(sp.End, s.End)
	}
	return sp, found
}

// ratingLabels are the words a rating of the field stands beside.
func ratingLabels(f Field) []string {
	switch strings.TrimPrefix(strings.TrimPrefix(f.Name, "hmis_"), "nfpa_") {
	case "health":
		return []string{"health", "gesundheit", "blue", "h"}
	case "flammability":
		return []string{"flammability", "fire", "red", "f"}
	case "physical_hazard":
		return []string{"physical hazard", "physical", "reactivity", "r", "ph"}
	case "instability":
		return []string{"instability", "reactivity", "yellow", "i", "r"}
	}
	return []string{f.Label}
}

// pictograms are the names of the GHS pictograms that say which one a passage shows; names of
// one common word ("flame", "corrosion") are left out, as they occur in any sheet's prose.
var pictograms = map[string][]string{
	"ghs01_explosive": {"exploding bomb"}, "ghs03_oxidising": {"flame over circle"},
	"ghs04_gas_under_pressure": {"gas cylinder"}, "ghs06_toxic": {"skull and crossbones"},
	"ghs07_harmful": {"exclamation mark"},
}

// statementLabels are the words a yes/no of the field is stated about.
func statementLabels(f Field) []string {
	if strings.HasPrefix(f.Name, "ghs") {
		return append([]string{strings.ToUpper(f.Name[:5])}, pictograms[f.Name]...)
	}
	if f.Name == "pyrophoric" {
		return []string{"pyrophoric", "pyrophor", "selbstentzündlich", "ignites spontaneously", "spontaneously flammable in air"}
	}
	return []string{f.Label}
}

// enumLabels are the words an enum value of the field stands beside; strongPhrases state a
// value on their own ("liquefied gas" says the state wherever it stands).
var (
	enumLabels = map[string][]string{
		"physical_state": {"physical state", "state", "form", "appearance", "aggregatzustand", "phase"},
		"signal_word":    {"signal word", "signalwort"},
		"nfpa_special":   {"special", "special hazard", "white"},
	}
	strongPhrases = map[string]map[string][]string{
		"physical_state": {"gas": {"gaseous", "compressed gas", "liquefied gas", "gasförmig"}},
		"nfpa_special":   {"SA": {"simple asphyxiant"}},
	}
)

func statedEnum(f Field, value, passage string) (evidence.Span, bool) {
	if sp, ok := evidence.FindPhrase(passage, strongPhrases[f.Name][value]...); ok {
		return sp, true
	}
	var syns []string
	for syn, c := range enumSynonyms[f.Name] {
		if c == value && len(syn) > 1 {
			syns = append(syns, syn)
		}
	}
	sort.Strings(syns) // the first phrase found gives the span: the same one each time
	phrases := append([]string{value}, syns...)
	return evidence.FindPhraseNear(passage, enumLabels[f.Name], 4, phrases...)
}

// passageMolarMass is the first molar mass a passage gives, 0 when none.
func passageMolarMass(passage string) float64 {
	for _, q := range evidence.Quantities(passage) {
		if q.Unit == "g/mol" && q.Value > 0 {
			return q.Value
		}
	}
	return 0
}

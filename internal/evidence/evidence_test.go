package evidence

import "testing"

func mustQuantity(t *testing.T, s string) []Quantity {
	t.Helper()
	q, ok := ParseQuantity(s)
	if !ok {
		t.Fatalf("ParseQuantity(%q) read nothing", s)
	}
	return q
}

func TestFindQuantity(t *testing.T) {
	tests := []struct {
		name, claim, passage string
		molar                float64
		want                 string // the matched text, "" for no match
	}{
		{"same", "-62.5 °C", "Boiling point: -62.5 °C at 1.013 bar", 0, "-62.5 °C"},
		{"unicode minus", "-62.5 °C", "Boiling point −62.5 °C", 0, "−62.5 °C"},
		{"en dash minus", "-62.5 °C", "Boiling point: –62.5 °C", 0, "–62.5 °C"},
		{"decimal comma", "-62.5 °C", "Siedepunkt: -62,5 °C", 0, "-62,5 °C"},
		{"unit stuck on", "-62.5 °C", "bp -62.5°C", 0, "-62.5°C"},
		{"no unit in a table", "-62.5 °C", "| Boiling point (°C) | -62.5 |", 0, "-62.5"},
		{"kelvin", "-62.5 °C", "boils at 210.65 K", 0, "210.65 K"},
		{"fahrenheit", "-62.5 °C", "boils at -80.5 °F", 0, "-80.5 °F"},
		{"rounded by the field", "-62.5 °C", "boiling point -62.47 °C", 0, "-62.47 °C"},
		{"thousands comma", "1200 kg/m³", "density 1,200 kg/m³", 0, "1,200 kg/m³"},
		{"thousands point", "1200 kg/m³", "Dichte 1.200 kg/m³", 0, "1.200 kg/m³"},
		{"thousands thin space", "12500 ppm", "12\u202f500 ppm", 0, "12\u202f500 ppm"},
		{"both separators", "1234.5 bar", "1.234,5 bar", 0, "1.234,5 bar"},
		{"g/cm3 to kg/m3", "1200 kg/m³", "density 1.2 g/cm³", 0, "1.2 g/cm³"},
		{"percent", "4.4 %", "LEL 4.4 vol%", 0, "4.4 vol%"},
		{"percent in ppm", "4.4 %", "lower limit 44000 ppm", 0, "44000 ppm"},
		{"mg/m3 to ppm", "0.05 ppm", "TWA 0.16 mg/m³", 77.95, "0.16 mg/m³"},
		{"kPa to bar", "48.3 bar", "critical pressure 4830 kPa", 0, "4830 kPa"},
		{"g/mol", "77.95 g/mol", "Molar mass 77,95 g/mol", 0, "77,95 g/mol"},

		// Negative cases.
		{"inside a bigger number", "62.5 °C", "162.5 °C", 0, ""},
		{"sign missing", "-62.5 °C", "62.5 °C", 0, ""},
		{"sign extra", "62.5 °C", "-62.5 °C", 0, ""},
		{"0.5 is not 0.05", "0.5 ppm", "TLV 0.05 ppm", 0, ""},
		{"0.05 is not 0.5", "0.05 ppm", "TLV 0.5 ppm", 0, ""},
		{"inside a code", "220", "H220: extremely flammable gas", 0, ""},
		{"inside a formula", "4", "SiH4", 0, ""},
		{"in a CAS number", "62", "CAS 7803-62-5", 0, ""},
		{"range end is no negative", "-7.6 %", "flammable 1.4–7.6 %", 0, ""},
		{"range end is positive", "7.6 %", "flammable 1.4–7.6 %", 0, "7.6 %"},
		{"other dimension", "62.5 °C", "62.5 bar", 0, ""},
		{"gauge is not absolute", "10 bar", "filled to 10 barg", 0, ""},
		{"one figure is not rounded", "1 %", "LEL 1.4 %", 0, ""},
		{"more precise than the passage", "5.4 ppm", "5 ppm", 0, ""},
		{"mg/m3 without molar mass", "0.05 ppm", "TWA 0.16 mg/m³", 0, ""},
		{"section number", "2.3", "see section 2.3.1", 0, ""},
		{"ordinal", "2", "the 2nd edition", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, ok := FindQuantity(tt.passage, mustQuantity(t, tt.claim), Options{MolarMass: tt.molar})
			got := ""
			if ok {
				got = tt.passage[sp.Start:sp.End]
			}
			if got != tt.want {
				t.Errorf("FindQuantity(%q in %q) = %q, want %q", tt.claim, tt.passage, got, tt.want)
			}
		})
	}
}

func TestReadings(t *testing.T) {
	tests := []struct {
		text string
		want []float64
	}{
		{"1,000", []float64{1, 1000}}, // a thousand, or one with three decimals
		{"0,05", []float64{0.05}},
		{"1,5", []float64{1.5}},
		{"1,000,000", []float64{1000000}},
		{"1.234.567,8", []float64{1234567.8}},
		{"2.3.1", nil},
	}
	for _, tt := range tests {
		var got []float64
		for _, q := range readings(tt.text) {
			got = append(got, q.Value)
		}
		if len(got) != len(tt.want) {
			t.Errorf("readings(%q) = %v, want %v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("readings(%q) = %v, want %v", tt.text, got, tt.want)
			}
		}
	}
}

func TestFindQuantityNear(t *testing.T) {
	opt := Options{Near: []string{"health"}, NearWindow: 3}
	for passage, want := range map[string]bool{
		"HMIS: Health 3, Flammability 4": true,
		"| Health | 3 |":                 true,
		"Flammability 3, Health 4":       false,
		"store below 3 bar; health":      false,
	} {
		if _, ok := FindQuantity(passage, mustQuantity(t, "3"), opt); ok != want {
			t.Errorf("rating 3 near health in %q: %v, want %v", passage, ok, want)
		}
	}
}

func TestFindCAS(t *testing.T) {
	tests := []struct {
		passage string
		want    bool
	}{
		{"CAS No. 7803-62-5", true},
		{"CAS: 7803‑62‑5 (non-breaking hyphens)", true},
		{"CAS 17803-62-5", false},
		{"CAS 7803-62-55", false},
		{"EC 7803-62-5-1", false},
		{"CAS 7803-62-4", false},
	}
	for _, tt := range tests {
		if _, ok := FindCAS(tt.passage, "7803-62-5"); ok != tt.want {
			t.Errorf("FindCAS(7803-62-5 in %q) = %v, want %v", tt.passage, ok, tt.want)
		}
	}
}

func TestFindPhrase(t *testing.T) {
	tests := []struct {
		passage string
		phrases []string
		want    string
	}{
		{"Classification: No harmonised classification.", []string{"no harmonized classification"}, "No harmonised classification"},
		{"Odour: garlic-like", []string{"garlic like"}, "garlic-like"},
		{"Formula SiH₄", []string{"SiH4"}, "SiH₄"},
		{"Class 2.3 (2.1) gas", []string{"2.3 (2.1)"}, "2.3 (2.1"},
		{"H300+H330, H220", []string{"H300+H330"}, "H300+H330"},
		{"Nordgas GmbH, Industriestraße 4", []string{"no"}, ""},
		{"colourless gas", []string{"less gas"}, ""},
		{"H2200", []string{"H220"}, ""},
	}
	for _, tt := range tests {
		sp, ok := FindPhrase(tt.passage, tt.phrases...)
		got := ""
		if ok {
			got = tt.passage[sp.Start:sp.End]
		}
		if got != tt.want {
			t.Errorf("FindPhrase(%q in %q) = %q, want %q", tt.phrases, tt.passage, got, tt.want)
		}
	}
	if _, ok := FindPhraseNear("Nordgas supplies this gas in cylinders", []string{"physical state", "state"}, 4, "gas"); ok {
		t.Error(`"gas" without a label stated the physical state`)
	}
	table := "| Field | Nitrous oxide | Nitrogen dioxide |\n|---|---|---|\n| State at 20 °C | gas | liquid (boils at 21.0 °C) |"
	if sp, ok := FindPhraseNear(table, []string{"state"}, 4, "liquid"); !ok || table[sp.Start:sp.End] != "State at 20 °C | gas | liquid" {
		t.Errorf("the row's label does not name a value in its third column: %v %v", sp, ok)
	}
	if _, ok := FindPhraseNear(table, []string{"state"}, 4, "oxide"); ok {
		t.Error("a header word counts as a stated value")
	}
	if sp, ok := FindPhraseNear("Physical state: gas (compressed)", []string{"physical state", "state"}, 4, "gas"); !ok || sp.Start != 0 {
		t.Errorf(`"Physical state: gas" not found: %v %v`, sp, ok)
	}
}

func TestFindStatement(t *testing.T) {
	labels := []string{"pyrophoric"}
	tests := []struct {
		passage string
		yes     bool
		want    bool
	}{
		{"Pyrophoric gas, category 1", true, true},
		{"Pyrophoric: yes", true, true},
		{"| Pyrophoric | no |", false, true},
		{"Pyrophoric: no", true, false},
		{"The gas is not pyrophoric.", false, true},
		{"A non-pyrophoric gas.", false, true},
		{"The gas is not pyrophoric.", true, false},
		{"Nordgas GmbH. No.", false, false},                       // a stray "no" is no statement
		{"Supplier: Nordgas. Emergency: no number", false, false}, // nor one after another label
	}
	for _, tt := range tests {
		if _, ok := FindStatement(tt.passage, labels, tt.yes); ok != tt.want {
			t.Errorf("FindStatement(%q, yes=%v) = %v, want %v", tt.passage, tt.yes, ok, tt.want)
		}
	}
}

func TestFindCode(t *testing.T) {
	for passage, want := range map[string]bool{
		"UN2188":               true,
		"UN 2188":              true,
		"UN-Nr.: 2188":         true,
		"UN No. 2188 Arsine":   true,
		"page 2188":            false,
		"UN 21880":             false,
		"UN 1234, tariff 2188": false,
	} {
		if _, ok := FindCode(passage, "UN", "2188"); ok != want {
			t.Errorf("FindCode(UN2188 in %q) = %v, want %v", passage, ok, want)
		}
	}
}

func TestClaims(t *testing.T) {
	s := "Arsine (CAS 7784-42-1) has a TLV of 0.005 ppm and an IDLH of 3, boils at −62.5 °C, was listed in 2017 and has 3 H-statements [2]."
	var got []string
	for _, c := range Claims(s) {
		got = append(got, c.Text)
	}
	want := []string{"7784-42-1", "0.005 ppm", "3", "−62.5 °C"}
	if len(got) != len(want) {
		t.Fatalf("claims %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("claims %q, want %q", got, want)
		}
	}
}

func TestSupports(t *testing.T) {
	passage := "Arsine, molar mass 77.95 g/mol. ACGIH TLV-TWA: 0.016 mg/m³. CAS 7784-42-1."
	for sentence, want := range map[string]bool{
		"The TLV is 0.005 ppm [1].":    true, // converted with the passage's molar mass
		"The TLV is 0.05 ppm [1].":     false,
		"Its CAS number is 7784-42-1.": true,
		"Its CAS number is 7784-42-2.": false,
		"The TLV is 0.016 mg/m³ [1].":  true,
		"The limit is 0.16 mg/m³ [1].": false,
	} {
		cs := Claims(sentence)
		if len(cs) != 1 {
			t.Fatalf("claims of %q: %+v", sentence, cs)
		}
		if _, ok := Supports(passage, cs[0], 0); ok != want {
			t.Errorf("Supports(%q) = %v, want %v", sentence, ok, want)
		}
	}
}

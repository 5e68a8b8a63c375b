package gas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSchemaHas47UniqueFieldsInOrder(t *testing.T) {
	want := []string{"chemical_name", "cas_number", "formula", "subsystem_formula", "un_number", "synonyms",
		"molecular_weight", "boiling_point_c", "melting_point_c", "vapour_pressure_bar", "density_kg_m3",
		"specific_gravity", "critical_temperature_c", "critical_pressure_bar", "physical_state", "odour",
		"water_solubility", "hmis_health", "hmis_flammability", "hmis_physical_hazard", "nfpa_health",
		"nfpa_flammability", "nfpa_instability", "nfpa_special", "flash_point_c", "autoignition_c",
		"lel_vol_pct", "uel_vol_pct", "idlh_ppm", "tlv_twa_ppm", "stel_ppm", "odour_threshold_ppm",
		"pyrophoric", "ghs01_explosive", "ghs02_flammable", "ghs03_oxidising", "ghs04_gas_under_pressure",
		"ghs05_corrosive", "ghs06_toxic", "ghs07_harmful", "ghs08_health_hazard", "ghs09_environment",
		"signal_word", "h_statements", "hazard_class", "transport_class", "seveso_category"}
	got := FieldNames()
	if len(got) != 47 || len(want) != 47 {
		t.Fatalf("schema has %d fields, want 47", len(got))
	}
	names, labels := map[string]bool{}, map[string]bool{}
	groups := map[string]bool{GroupIdentification: true, GroupPhysical: true, GroupSafety: true, GroupGHS: true, GroupTransport: true, GroupRegulatory: true}
	kinds := map[Kind]bool{KindString: true, KindCAS: true, KindUN: true, KindNumber: true, KindTemperature: true, KindPressure: true,
		KindPercent: true, KindPPM: true, KindRating: true, KindBool: true, KindEnum: true, KindList: true}
	for i, f := range Fields() {
		if f.Name != want[i] {
			t.Errorf("field %d is %q, want %q", i+1, f.Name, want[i])
		}
		if names[f.Name] || labels[f.Label] {
			t.Errorf("field %q or label %q repeats", f.Name, f.Label)
		}
		names[f.Name], labels[f.Label] = true, true
		if !groups[f.Group] || !kinds[f.Kind] || f.Doc == "" || f.Label == "" {
			t.Errorf("field %q: group %q, kind %q, doc %q", f.Name, f.Group, f.Kind, f.Doc)
		}
		if (f.Kind == KindEnum) != (len(f.Enum) > 0) {
			t.Errorf("field %q: enum values on a %s field", f.Name, f.Kind)
		}
		if g, ok := FieldByName(f.Name); !ok || g.Label != f.Label {
			t.Errorf("FieldByName(%q) = %v, %v", f.Name, g.Label, ok)
		}
	}
	for name, kind := range map[string]Kind{"cas_number": KindCAS, "un_number": KindUN, "boiling_point_c": KindTemperature,
		"vapour_pressure_bar": KindPressure, "lel_vol_pct": KindPercent, "idlh_ppm": KindPPM, "nfpa_instability": KindRating,
		"ghs09_environment": KindBool, "signal_word": KindEnum, "h_statements": KindList, "synonyms": KindList} {
		if f, _ := FieldByName(name); f.Kind != kind {
			t.Errorf("%s is %s, want %s", name, f.Kind, kind)
		}
	}
	if _, ok := FieldByName("nope"); ok {
		t.Error("FieldByName found an unknown field")
	}
}

// Every name, label and alias must lead back to its own field; a clash between two fields'
// headers would silently send a column to the wrong field.
func TestEveryHeaderOfAFieldMatchesIt(t *testing.T) {
	for _, f := range Fields() {
		for _, h := range append([]string{f.Name, f.Label}, f.Aliases...) {
			if g, ok := MatchHeader(h); !ok || g.Name != f.Name {
				t.Errorf("MatchHeader(%q) = %q, %v; want %q", h, g.Name, ok, f.Name)
			}
		}
	}
}

func TestMatchHeader(t *testing.T) {
	cases := []struct{ header, want string }{
		{"Chemical Name", "chemical_name"},
		{"  CHEMICAL   NAME ", "chemical_name"},
		{"CAS", "cas_number"},
		{"CAS Number", "cas_number"},
		{"CAS-Nr.", "cas_number"},
		{"cas_no", "cas_number"},
		{"UN-Nr.", "un_number"},
		{"Molecular weight [g/mol]", "molecular_weight"},
		{"Boiling point [C]", "boiling_point_c"},
		{"Boiling Point (°F)", "boiling_point_c"},
		{"boiling point °C", "boiling_point_c"},
		{"Siedepunkt (°C)", "boiling_point_c"},
		{"Zündtemperatur", "autoignition_c"},
		{"Zuendtemperatur", "autoignition_c"},
		{"ZUNDTEMPERATUR", "autoignition_c"},
		{"Wasserlöslichkeit", "water_solubility"},
		{"LEL (%)", "lel_vol_pct"},
		{"LEL %", "lel_vol_pct"},
		{"LFL", "lel_vol_pct"},
		{"UEL (vol.-%)", "uel_vol_pct"},
		{"TLV", "tlv_twa_ppm"},
		{"TWA (ppm)", "tlv_twa_ppm"},
		{"Health (HMIS)", "hmis_health"},
		{"HMIS - Health", "hmis_health"},
		{"Health (NFPA)", "nfpa_health"},
		{"NFPA Reactivity", "nfpa_instability"},
		{"Density (air = 1)", "specific_gravity"},
		{"Density [kg/m3]", "density_kg_m3"},
		{"Vapor pressure @ 20°C (bar)", "vapour_pressure_bar"},
		{"GHS02 Flammable", "ghs02_flammable"},
		{"Flammable (GHS02)", "ghs02_flammable"},
		{"ghs04", "ghs04_gas_under_pressure"},
		{"H-Sätze", "h_statements"},
		{"Hazard Statements", "h_statements"},
		{"Odor", "odour"},
		{"DOT Class", "transport_class"},
		{"Seveso III", "seveso_category"},
		{"Critical Temperature (K)", "critical_temperature_c"},
	}
	for _, c := range cases {
		f, ok := MatchHeader(c.header)
		if !ok || f.Name != c.want {
			t.Errorf("MatchHeader(%q) = %q, %v; want %q", c.header, f.Name, ok, c.want)
		}
	}
	for _, h := range []string{"", "Remarks", "Cabinet location", "Bemerkung", "(°C)"} {
		if f, ok := MatchHeader(h); ok {
			t.Errorf("MatchHeader(%q) = %q, want no match", h, f.Name)
		}
	}
}

func TestHeaderUnit(t *testing.T) {
	field := func(n string) Field { f, _ := FieldByName(n); return f }
	cases := []struct {
		field, header, want string
	}{
		{"boiling_point_c", "Boiling point [K]", "K"},
		{"boiling_point_c", "Boiling Point (°F)", "°F"},
		{"boiling_point_c", "Boiling Point (at 1 atm)", ""},
		{"vapour_pressure_bar", "Vapour Pressure (kPa, 20 °C)", "kPa"},
		{"vapour_pressure_bar", "Vapour Pressure @ 20 °C (bar)", "bar"},
		{"lel_vol_pct", "LEL (%)", "%"},
		{"lel_vol_pct", "LEL (mole fraction)", "mole fraction"},
		{"idlh_ppm", "IDLH (mg/m³)", "mg/m³"},
		{"hmis_health", "HMIS Health (0-4)", ""},
		{"molecular_weight", "Molecular Weight (g/mol)", "g/mol"},
	}
	for _, c := range cases {
		if got := HeaderUnit(field(c.field), c.header); got != c.want {
			t.Errorf("HeaderUnit(%s, %q) = %q, want %q", c.field, c.header, got, c.want)
		}
	}
}

// The field reference must describe every field.
func TestFieldDocCoversEveryField(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "hmis-fields.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Fields() {
		if !strings.Contains(string(data), "`"+f.Name+"`") {
			t.Errorf("docs/hmis-fields.md doesn't describe %s", f.Name)
		}
	}
}

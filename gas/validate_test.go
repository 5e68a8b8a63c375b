package gas

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		field, value, unit string
		want               string // canonical value when wantErr is ""
		wantErr            string // part of the error message
	}{
		// CAS numbers and their check digit.
		{"cas_number", "7803-62-5", "", "7803-62-5", ""},   // silane
		{"cas_number", "1333-74-0", "", "1333-74-0", ""},   // hydrogen
		{"cas_number", " 7664-39-3 ", "", "7664-39-3", ""}, // hydrogen fluoride
		{"cas_number", "7803625", "", "7803-62-5", ""},
		{"cas_number", "7803-62-6", "", "", "check digit (the other digits give 5)"},
		{"cas_number", "1333-74-1", "", "", "check digit"},
		{"cas_number", "7803-62", "", "", "isn't a CAS number"},
		{"cas_number", "CAS 7803-62-5", "", "", "like 7803-62-5"},
		// UN numbers.
		{"un_number", "UN1234", "", "UN1234", ""},
		{"un_number", "1234", "", "UN1234", ""},
		{"un_number", "un 2203", "", "UN2203", ""},
		{"un_number", "123", "", "", "four digits"},
		// Temperatures: °C, K, °F, in the value or the unit.
		{"boiling_point_c", "-111.9", "", "-111.9", ""},
		{"boiling_point_c", "161.0 K", "", "-112.2", ""},
		{"boiling_point_c", "161.0", "K", "-112.2", ""},
		{"boiling_point_c", "−112,15 °C", "", "-112.2", ""},
		{"boiling_point_c", "-170", "°F", "-112.2", ""},
		{"boiling_point_c", "212 °F", "", "100", ""},
		{"boiling_point_c", "-300", "", "", "from -273.15 to 3000 °C"},
		{"boiling_point_c", "-1 K", "", "", "out of range"},
		{"flash_point_c", "n/a", "", NotApplicable, ""},
		{"flash_point_c", "—", "", NotApplicable, ""},
		{"boiling_point_c", "about 50", "", "", "isn't a number"},
		{"boiling_point_c", "50", "bar", "", "°C, K or °F"},
		// Percent, including fractions.
		{"lel_vol_pct", "4.1", "", "4.1", ""},
		{"lel_vol_pct", "4.1 %", "", "4.1", ""},
		{"lel_vol_pct", "4,1 vol%", "", "4.1", ""},
		{"lel_vol_pct", "4.1", "vol.-%", "4.1", ""},
		{"lel_vol_pct", "0.04", "fraction", "4", ""},
		{"lel_vol_pct", "0.041", "mole fraction", "4.1", ""},
		{"lel_vol_pct", "1.5", "fraction", "", "between 0 and 1"},
		{"uel_vol_pct", "101", "", "", "from 0 to 100"},
		// Pressures.
		{"vapour_pressure_bar", "1.5", "", "1.5", ""},
		{"vapour_pressure_bar", "150 kPa", "", "1.5", ""},
		{"vapour_pressure_bar", "150", "kPa", "1.5", ""},
		{"critical_pressure_bar", "4.84 MPa", "", "48.4", ""},
		{"critical_pressure_bar", "101325 Pa", "", "1.013", ""},
		{"critical_pressure_bar", "1 atm", "", "1.013", ""},
		{"critical_pressure_bar", "14.5 psi", "", "0.9997", ""},
		{"critical_pressure_bar", "10 barg", "", "", "gauge"},
		{"critical_pressure_bar", "-1", "", "", "from 0 to 1000 bar"},
		// ppm.
		{"idlh_ppm", "50", "", "50", ""},
		{"idlh_ppm", "0.5 %", "", "5000", ""},
		{"idlh_ppm", "500 ppb", "", "0.5", ""},
		{"idlh_ppm", "-3", "", "", "at least 0 ppm"},
		{"idlh_ppm", "5 mg/m³", "", "", "mass concentration"},
		// Numbers with a decimal comma and units.
		{"molecular_weight", "32,12", "", "32.12", ""},
		{"molecular_weight", "32.12 g/mol", "", "32.12", ""},
		{"molecular_weight", "0.5", "", "", "from 1 to 1000"},
		{"density_kg_m3", "1.342 g/L", "", "1.342", ""},
		{"density_kg_m3", "0.99 g/cm³", "", "990", ""},
		{"density_kg_m3", "1.342 lb", "", "", "use kg/m³"},
		{"specific_gravity", "1,11", "", "1.11", ""},
		{"specific_gravity", "1.000,5", "", "", "from 0 to 20"},
		// Ratings.
		{"hmis_health", "3", "", "3", ""},
		{"hmis_health", "0", "", "0", ""},
		{"nfpa_instability", "2.0", "", "2", ""},
		{"hmis_health", "5", "", "", "whole numbers from 0 to 4"},
		{"hmis_health", "2.5", "", "", "whole numbers"},
		{"hmis_health", "-1", "", "", "out of range"},
		{"hmis_health", "high", "", "", "isn't a rating"},
		// Booleans.
		{"pyrophoric", "Yes", "", "yes", ""},
		{"pyrophoric", "TRUE", "", "yes", ""},
		{"ghs02_flammable", "x", "", "yes", ""},
		{"ghs02_flammable", "✓", "", "yes", ""},
		{"ghs02_flammable", "1", "", "yes", ""},
		{"ghs02_flammable", "ja", "", "yes", ""},
		{"ghs06_toxic", "no", "", "no", ""},
		{"ghs06_toxic", "false", "", "no", ""},
		{"ghs06_toxic", "0", "", "no", ""},
		{"ghs06_toxic", "Nein", "", "no", ""},
		{"ghs06_toxic", "maybe", "", "", "yes/no"},
		// Enums.
		{"physical_state", "GAS", "", "gas", ""},
		{"physical_state", "Liquefied gas", "", "gas", ""},
		{"physical_state", "plasma", "", "", "one of gas, liquid, solid"},
		{"signal_word", "danger", "", "Danger", ""},
		{"signal_word", "Achtung", "", "Warning", ""},
		{"nfpa_special", "ox", "", "OX", ""},
		{"nfpa_special", "-W-", "", "W", ""},
		{"nfpa_special", "none", "", "", ""},
		{"nfpa_special", "XX", "", "", `W, OX, SA, "" (none)`},
		// Lists and H-statements.
		{"synonyms", "Silicon tetrahydride;  monosilane ;;silicane; monosilane", "", "Silicon tetrahydride; monosilane; silicane", ""},
		{"synonyms", "1,1-difluoroethane", "", "1,1-difluoroethane", ""},
		{"h_statements", "H220, H280", "", "H220; H280", ""},
		{"h_statements", "h220; H280\nEUH071", "", "H220; H280; EUH071", ""},
		{"h_statements", "H300 + H330; H360FD; H361f", "", "H300+H330; H360FD; H361f", ""},
		{"h_statements", "H22", "", "", "isn't an H-statement code"},
		{"h_statements", "H220 Extremely flammable gas", "", "", "EUH071"},
		// Strings.
		{"formula", "  SiH4 ", "", "SiH4", ""},
		{"hazard_class", "Flam. Gas 1;\n Press. Gas", "", "Flam. Gas 1; Press. Gas", ""},
		{"odour", "", "", "", ""},
	}
	for _, c := range cases {
		f, ok := FieldByName(c.field)
		if !ok {
			t.Fatalf("no field %s", c.field)
		}
		got, err := Normalize(f, c.value, c.unit)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("Normalize(%s, %q, %q): %v", c.field, c.value, c.unit, err)
		case c.wantErr == "" && got != c.want:
			t.Errorf("Normalize(%s, %q, %q) = %q, want %q", c.field, c.value, c.unit, got, c.want)
		case c.wantErr != "" && err == nil:
			t.Errorf("Normalize(%s, %q, %q) = %q, want an error with %q", c.field, c.value, c.unit, got, c.wantErr)
		case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
			t.Errorf("Normalize(%s, %q, %q) error %q doesn't say %q", c.field, c.value, c.unit, err, c.wantErr)
		}
		if err != nil {
			var ve *ValueError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), f.Label) {
				t.Errorf("Normalize(%s, %q) error %q isn't a ValueError naming the field", c.field, c.value, err)
			}
		}
	}
}

// Normalising a canonical value must give it back unchanged, or a round trip through a sheet
// would drift.
func TestNormalizeIsIdempotent(t *testing.T) {
	samples := map[Kind][]string{
		KindCAS: {"7803-62-5"}, KindUN: {"UN2203"}, KindNumber: {"32.12", "1.342"}, KindTemperature: {"-112.2", "0", "3000"},
		KindPressure: {"48.4", "0.0001"}, KindPercent: {"4.1", "100"}, KindPPM: {"0.00005", "5000"}, KindRating: {"4"},
		KindBool: {"yes", "no"}, KindEnum: {}, KindList: {"a; b"}, KindString: {"Flam. Gas 1; Press. Gas"},
	}
	for _, f := range Fields() {
		vals := samples[f.Kind]
		if f.Kind == KindEnum {
			vals = f.Enum
		}
		if f.Name == "specific_gravity" {
			vals = []string{"1.11"}
		}
		if f.Name == "h_statements" {
			vals = []string{"H220; H300+H330; EUH071"}
		}
		for _, v := range append(vals, NotApplicable) {
			got, err := Normalize(f, v, f.Unit)
			if err != nil || got != v {
				t.Errorf("Normalize(%s, %q, %q) = %q, %v", f.Name, v, f.Unit, got, err)
			}
		}
	}
}

func TestCASCheckDigit(t *testing.T) {
	for cas, want := range map[string]int{"7803-62-5": 5, "1333-74-0": 0, "7732-18-5": 5, "7647-01-0": 0, "10294-34-5": 5} {
		if got := CASCheckDigit(cas); got != want {
			t.Errorf("CASCheckDigit(%s) = %d, want %d", cas, got, want)
		}
	}
}

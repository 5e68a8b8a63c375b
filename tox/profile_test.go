package tox

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const retinolJSON = `{
  "inci": "RETINOL",
  "cas": "68-26-8",
  "noael": [
    {"value": 10, "unit": "mg/kg bw/day", "species": "rat", "route": "oral", "duration_days": 90,
     "study": "90-day oral toxicity study", "type": "NOAEL", "source": "EFSA OpenFoodTox 2022", "reference": "r1"}
  ],
  "dap": [{"value": 10, "source": "SCCS opinion", "reference": "r2"}],
  "annex_entries": [{"annex": "III", "entry": "325", "product_type": "leave-on", "max_concentration": "0.3 %", "conditions": "body lotion 0.05 %"}],
  "references": [{"id": "r1", "citation": "EFSA 2022"}, {"id": "r2", "citation": "SCCS/1639/21"}],
  "statements": [{"text": "Retinol is safe up to 0.3 %.", "author": "SCCS", "date": "2024-05-01"}]
}`

// mutate applies f to the decoded retinol profile and returns the result as JSON.
func mutate(t *testing.T, f func(p map[string]any)) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(retinolJSON), &p); err != nil {
		t.Fatal(err)
	}
	f(p)
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func noael(p map[string]any) map[string]any { return p["noael"].([]any)[0].(map[string]any) }
func dap(p map[string]any) map[string]any   { return p["dap"].([]any)[0].(map[string]any) }

func TestParseAcceptsValidProfiles(t *testing.T) {
	for name, data := range map[string][]byte{
		"full":                []byte(retinolJSON),
		"minimal":             []byte(`{"inci": "AQUA"}`),
		"no cas, empty lists": []byte(`{"inci": "AQUA", "noael": [], "dap": [], "annex_entries": [], "references": [], "statements": []}`),
		"no duration":         mutate(t, func(p map[string]any) { delete(noael(p), "duration_days") }),
		"duration 0":          mutate(t, func(p map[string]any) { noael(p)["duration_days"] = 0 }),
		"no route":            mutate(t, func(p map[string]any) { delete(noael(p), "route") }),
		"dap 100":             mutate(t, func(p map[string]any) { dap(p)["value"] = 100 }),
		"micro unit":          mutate(t, func(p map[string]any) { noael(p)["unit"] = "µg/kg bw/day" }),
		"type other":          mutate(t, func(p map[string]any) { noael(p)["type"] = "other" }),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(data); err != nil {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

func TestParseRefusesEachRule(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string // the path and message the error must contain
	}{
		{"unknown top-level key", mutate(t, func(p map[string]any) { p["noaels"] = []any{} }), `/noaels: unknown key; allowed: inci, cas, noael`},
		{"key in another case", mutate(t, func(p map[string]any) { p["INCI"] = "X" }), `/INCI: unknown key`},
		{"unknown nested key", mutate(t, func(p map[string]any) { noael(p)["specie"] = "rat" }), `/noael/0/specie: unknown key`},
		{"missing inci", mutate(t, func(p map[string]any) { delete(p, "inci") }), `/inci: missing; required: a string`},
		{"empty inci", mutate(t, func(p map[string]any) { p["inci"] = " " }), `/inci: must not be empty`},
		{"inci with spaces", mutate(t, func(p map[string]any) { p["inci"] = "RETINOL " }), `/inci: "RETINOL " must not start or end`},
		{"null", mutate(t, func(p map[string]any) { p["cas"] = nil }), `/cas: null is not allowed`},
		{"string for number", mutate(t, func(p map[string]any) { noael(p)["value"] = "10" }), `/noael/0/value: "10" is not allowed; a number`},
		{"object for array", mutate(t, func(p map[string]any) { p["dap"] = map[string]any{} }), `/dap: an object is not allowed; an array`},
		{"cas format", mutate(t, func(p map[string]any) { p["cas"] = "6826-8" }), `/cas: "6826-8" is not a CAS number`},
		{"cas check digit", mutate(t, func(p map[string]any) { p["cas"] = "68-26-9" }), `/cas: "68-26-9" fails the CAS check digit (it would end in 8)`},
		{"value zero", mutate(t, func(p map[string]any) { noael(p)["value"] = 0 }), `/noael/0/value: 0 is not allowed; a number > 0`},
		{"value negative", mutate(t, func(p map[string]any) { noael(p)["value"] = -3 }), `/noael/0/value: -3 is not allowed`},
		{"value missing", mutate(t, func(p map[string]any) { delete(noael(p), "value") }), `/noael/0/value: missing; required: a number`},
		{"unit", mutate(t, func(p map[string]any) { noael(p)["unit"] = "mg/kg" }), `/noael/0/unit: "mg/kg" is not one of mg/kg bw/day, mg/kg bw, mg/kg feed, mg/L, mg/m³, ppm, µg/kg bw/day, µg/kg bw`},
		{"unit missing", mutate(t, func(p map[string]any) { delete(noael(p), "unit") }), `/noael/0/unit: missing`},
		{"type", mutate(t, func(p map[string]any) { noael(p)["type"] = "noael" }), `/noael/0/type: "noael" is not one of NOAEL, LOAEL, NOEL, LOEL, BMDL, LD50, other`},
		{"route", mutate(t, func(p map[string]any) { noael(p)["route"] = "oral: feed" }), `/noael/0/route: "oral: feed" is not one of oral, dermal, inhalation, other`},
		{"duration negative", mutate(t, func(p map[string]any) { noael(p)["duration_days"] = -1 }), `/noael/0/duration_days: -1 is not allowed; a whole number of days ≥ 0`},
		{"duration fraction", mutate(t, func(p map[string]any) { noael(p)["duration_days"] = 90.5 }), `/noael/0/duration_days: 90.5 is not allowed; a whole number`},
		{"noael reference", mutate(t, func(p map[string]any) { noael(p)["reference"] = "r9" }), `/noael/0/reference: "r9" is not the id of an entry in /references; allowed: r1, r2`},
		{"dap reference", mutate(t, func(p map[string]any) { dap(p)["reference"] = "r3" }), `/dap/0/reference: "r3" is not the id`},
		{"reference without references", []byte(`{"inci":"X","dap":[{"value":1,"reference":"r1"}]}`), `/dap/0/reference: "r1" is not the id of an entry in /references (there are none)`},
		{"dap zero", mutate(t, func(p map[string]any) { dap(p)["value"] = 0 }), `/dap/0/value: 0 is not allowed; a percentage > 0 and ≤ 100`},
		{"dap over 100", mutate(t, func(p map[string]any) { dap(p)["value"] = 100.5 }), `/dap/0/value: 100.5 is not allowed`},
		{"annex", mutate(t, func(p map[string]any) { p["annex_entries"].([]any)[0].(map[string]any)["annex"] = "3" }), `/annex_entries/0/annex: "3" is not one of II, III, IV, V, VI`},
		{"duplicate reference id", []byte(`{"inci":"X","references":[{"id":"r1","citation":"a"},{"id":"r1","citation":"b"}]}`), `/references/1/id: "r1" is used by an earlier reference`},
		{"empty citation", []byte(`{"inci":"X","references":[{"id":"r1","citation":""}]}`), `/references/0/citation: must not be empty`},
		{"statement date", mutate(t, func(p map[string]any) { p["statements"].([]any)[0].(map[string]any)["date"] = "01.05.2024" }), `/statements/0/date: "01.05.2024" is not a date; allowed: YYYY-MM-DD`},
		{"statement text", []byte(`{"inci":"X","statements":[{"text":""}]}`), `/statements/0/text: must not be empty`},
		{"not an object", []byte(`[]`), `an array is not allowed; an object`},
		{"trailing value", []byte(`{"inci":"X"} {"inci":"Y"}`), `more than one JSON value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.data)
			if err == nil {
				t.Fatalf("Parse accepted %s", c.data)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	_, err := Parse([]byte(`{"inci":"X","cas":"1-2-3","noael":[{"value":-1,"unit":"g","type":"NOAEL"}]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 3 {
		t.Fatalf("err = %v, want three problems", err)
	}
}

func TestParseSyntaxErrorNamesTheLine(t *testing.T) {
	_, err := Parse([]byte("{\n  \"inci\": \"X\",\n  \"cas\" \"1\"\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v, want it to name line 3", err)
	}
}

func TestCanonicalIsStableAndKeepsEveryList(t *testing.T) {
	a, err := Canonical([]byte(`{"inci":"AQUA","cas":"7732-18-5"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"inci":"AQUA","cas":"7732-18-5","noael":[],"dap":[],"annex_entries":[],"references":[],"statements":[]}`
	if string(a) != want {
		t.Errorf("Canonical = %s\nwant        %s", a, want)
	}
	b, err := Canonical([]byte(retinolJSON))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Canonical(b)
	if err != nil || string(b) != string(c) {
		t.Errorf("Canonical isn't idempotent:\n%s\n%s (%v)", b, c, err)
	}
	if !strings.Contains(string(b), `"unit":"mg/kg bw/day"`) || !strings.Contains(string(b), `"duration_days":90`) {
		t.Errorf("Canonical lost values: %s", b)
	}
}

func TestValidCAS(t *testing.T) {
	for cas, ok := range map[string]bool{"68-26-8": true, "7732-18-5": true, "50-00-0": true, "7732-18-4": false, "7732185": false, "12345678-12-1": false} {
		if err := ValidCAS(cas); (err == nil) != ok {
			t.Errorf("ValidCAS(%q) = %v, want ok=%v", cas, err, ok)
		}
	}
}

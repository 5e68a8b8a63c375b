package tablequery

import (
	"slices"
	"strings"
	"testing"
)

// The fallback on the sample table: which gases each plain question finds. The expected rows
// were read off the CSV by hand (GHS pictogram columns, CAS column, names and H statements).
func TestFallbackOnTheSampleTable(t *testing.T) {
	schema, rows, names := sampleTable(t)
	flammable := "(hmis_flammability >= 3 or nfpa_flammability >= 3 or ghs02_flammable)"
	for _, tc := range []struct {
		question string
		expr     string // "" when only the rows are checked
		want     []string
	}{
		{"flammable gases without a CAS number", flammable + " and empty(cas_number)",
			[]string{"Ethylene", "Hydrogen sulfide"}},
		{"Which gases are toxic?", "hmis_health >= 3 or nfpa_health >= 3 or ghs06_toxic or ghs08_health_hazard",
			[]string{"Arsine", "Phosphine", "Ammonia", "Chlorine", "Hydrogen fluoride", "Boron trichloride", "Boron trifluoride",
				"Trichlorosilane", "Carbon monoxide", "Nitrogen dioxide", "Hydrogen sulfide", "Fluorine"}},
		{"toxic and flammable", "", []string{"Arsine", "Phosphine", "Carbon monoxide", "Hydrogen sulfide"}},
		{"toxic and flammable, but not arsine", "", []string{"Phosphine", "Carbon monoxide", "Hydrogen sulfide"}},
		{"poisonous or burning gases", "", []string{"Arsine", "Phosphine", "Ammonia", "Chlorine", "Hydrogen fluoride", "Boron trichloride",
			"Boron trifluoride", "Trichlorosilane", "Hydrogen", "Carbon monoxide", "Ethylene", "Propylene", "Nitrogen dioxide",
			"Hydrogen sulfide", "Fluorine"}},
		{"gases with no CAS", "empty(cas_number)", []string{"Germane", "Ethylene", "Hydrogen sulfide", "Krypton"}},
		{"CAS number missing", "empty(cas_number)", []string{"Germane", "Ethylene", "Hydrogen sulfide", "Krypton"}},
		{"Gase ohne CAS-Nummer", "empty(cas_number)", []string{"Germane", "Ethylene", "Hydrogen sulfide", "Krypton"}},
		// Known not to be flammable: a gas whose flammability cells are all blank (silane) is
		// not among them.
		{"non-flammable gases", "", []string{"Ammonia", "Chlorine", "Hydrogen chloride", "Hydrogen bromide", "Hydrogen fluoride",
			"Boron trichloride", "Boron trifluoride", "Oxygen", "Nitrogen dioxide", "Fluorine"}},
		{"silane", `any_text contains "silane"`, []string{"Silane", "Dichlorosilane", "Trichlorosilane"}},
		{"Show me chlorine and arsine", `any_text contains "chlorine" or any_text contains "arsine"`,
			[]string{"Arsine", "Chlorine", "Chlorine trifluoride"}},
		{"gases with H220", `any_text contains "h220"`, []string{"Arsine", "Phosphine", "Hydrogen", "Carbon monoxide", "Methane",
			"Ethylene", "Propylene", "Hydrogen sulfide"}},
		{"toxic gases with CAS 7784-42-1", "", []string{"Arsine"}},
		// Fields that match, but no row has them: no rows.
		{"pyrophoric gases", "pyrophoric", nil},
		{"gases with a flash point", "has(flash_point_c)", nil},
	} {
		expr, note := Fallback(schema, tc.question)
		if tc.expr != "" && expr != tc.expr {
			t.Errorf("%q: filter %s, want %s", tc.question, expr, tc.expr)
		}
		if !strings.HasPrefix(note, "fallback: ") {
			t.Errorf("%q: note %q is not labelled", tc.question, note)
		}
		if got := runOn(t, schema, rows, names, expr); !slices.Equal(got, tc.want) {
			t.Errorf("%q (%s):\n got %q\nwant %q", tc.question, expr, got, tc.want)
		}
	}
}

// A question with nothing to look for selects no rows, never the whole table, and says why;
// one whose words are in no row selects none either, and the note names the words.
func TestFallbackThatMatchesNothingSelectsNoRows(t *testing.T) {
	schema, rows, names := sampleTable(t)
	for _, tc := range []struct{ question, note string }{
		{"show me all the gases", "nothing in the question names a field or a value to look for, so no rows are selected"},
		{"", "nothing in the question names a field or a value to look for"},
		{"which ones?", "nothing in the question names a field or a value to look for"},
		{"purple unicorn gases", `rows whose text mentions "purple", "unicorn"`},
	} {
		expr, note := Fallback(schema, tc.question)
		if got := runOn(t, schema, rows, names, expr); len(got) != 0 {
			t.Errorf("%q (%s): want no rows, got %d: %q", tc.question, expr, len(got), got)
		}
		if !strings.Contains(note, tc.note) {
			t.Errorf("%q: note %q lacks %q", tc.question, note, tc.note)
		}
	}
}

// The note says how each word was read.
func TestFallbackNoteNamesTheFieldsItRead(t *testing.T) {
	schema, _, _ := sampleTable(t)
	for question, want := range map[string]string{
		"flammable gases without a CAS number, like silane": `fallback: reads "flammable" as hmis_flammability, nfpa_flammability, ghs02_flammable; ` +
			`"without cas number" as cas_number; rows whose text mentions "silane" (a word match without the model; edit the filter to refine it)`,
		"toxic gases but not arsine": `fallback: reads "toxic" as hmis_health, nfpa_health, ghs06_toxic, ghs08_health_hazard; ` +
			`"not arsine" as no mention of "arsine" (a word match without the model; edit the filter to refine it)`,
	} {
		if _, note := Fallback(schema, question); note != want {
			t.Errorf("%q: note\n got %s\nwant %s", question, note, want)
		}
	}
}

// The rule on the small table with blanks in every kind of field.
func TestFallbackRule(t *testing.T) {
	for _, tc := range []struct {
		question, expr string
		rows           []int
	}{
		{"flammable gases without a CAS number", `flammability >= 3 and empty(cas_number)`, []int{3}},
		{"Show me silane and arsine", `any_text contains "silane" or any_text contains "arsine"`, []int{1, 4}},
		{"Gase mit CAS 7440-37-1", `has(cas_number) and any_text contains "7440-37-1"`, []int{0}},
		{"toxic gases", `health >= 3 or toxic`, []int{4}},
		{"not toxic", `not (health >= 3 or toxic) and (has(health) or has(toxic))`, []int{0, 1, 2, 3}},
		{"not pyrophoric", `pyrophoric == false`, []int{0, 2, 4}},
		{"toxic or pyrophoric", `health >= 3 or toxic or pyrophoric`, []int{1, 4}},
		{"pyrophoric without silane", `pyrophoric and not (any_text contains "silane")`, nil},
		{"names of flash points", `has(name) and has(flash_point_c)`, []int{1, 3}},
		{"n2 and h2", `any_text contains "n2" or any_text contains "h2"`, []int{2}},
		{"which rows please", `false`, nil},
	} {
		expr, note := Fallback(gasSchema, tc.question)
		if expr != tc.expr {
			t.Errorf("%q: fallback %q, want %q", tc.question, expr, tc.expr)
			continue
		}
		if !strings.HasPrefix(note, "fallback:") {
			t.Errorf("%q: note %q is not labelled", tc.question, note)
		}
		if got := match(t, expr); !slices.Equal(got, tc.rows) {
			t.Errorf("%q: rows %v, want %v", tc.question, got, tc.rows)
		}
	}
}

// runOn compiles and runs an expression over rows, returning the names of those that match.
func runOn(t *testing.T, schema Schema, rows []map[string]any, names []string, expression string) []string {
	t.Helper()
	p, err := Compile(schema, expression)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expression, err)
	}
	hits, err := Run(p, rows)
	if err != nil {
		t.Fatalf("Run(%q): %v", expression, err)
	}
	var out []string
	for _, i := range hits {
		out = append(out, names[i])
	}
	return out
}

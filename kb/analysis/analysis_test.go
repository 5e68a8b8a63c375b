package analysis

import (
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		text, lang, want string
	}{
		{"The cylinder's valves were leaking", English, "cylind valv leak"},
		{"Flows over the boundary layers", English, "flow boundari layer"},
		{"What is known about it, if anything? Aren't there any available data", English, "known t data"},
		{"Der Arbeitgeber hat dafür zu sorgen, dass die Beschäftigten über die Gefahren unterrichtet werden", German,
			"arbeitgeb sorg beschaftigt gefahr unterrichtet"},
		{"Gefährdungsbeurteilungen des Arbeitgebers", German, "gefahrdungsbeurteil arbeitgeb"},
		{"Gefährdungsbeurteilung nach § 6", German, "gefahrdungsbeurteil 6"},
		{"Störfall-Verordnung", German, "storfall verordn"},
		{"Straße", German, "strass"},
		{"Verordnung (EG) Nr. 1272/2008", German, "verordn eg nr 1272 2008"},
		{"§ 5a Absatz 1", German, "5a absatz 1"},
	}
	for _, tc := range cases {
		if got := strings.Join(Terms(tc.text, tc.lang), " "); got != tc.want {
			t.Errorf("Terms(%q, %s) = %q, want %q", tc.text, tc.lang, got, tc.want)
		}
	}
}

func TestInflectionsMeet(t *testing.T) {
	pairs := [][3]string{
		{"Gefährdungsbeurteilungen", "Gefährdungsbeurteilung", German},
		{"Arbeitsschutzgesetzes", "Arbeitsschutzgesetz", German},
		{"Beschäftigten", "Beschäftigte", German},
		{"purging", "purged", English},
		{"cylinders", "cylinder", English},
	}
	for _, p := range pairs {
		a, b := Terms(p[0], p[2]), Terms(p[1], p[2])
		if len(a) != 1 || len(b) != 1 || a[0] != b[0] {
			t.Errorf("%q and %q should share a term: %v %v", p[0], p[1], a, b)
		}
	}
}

func TestQueryTermsUnknownLanguageKeepsBothStems(t *testing.T) {
	got := QueryTerms("Gefährdungsbeurteilung cylinders", "")
	joined := " " + strings.Join(got, " ") + " "
	for _, want := range []string{" gefahrdungsbeurteil ", " cylind "} {
		if !strings.Contains(joined, want) {
			t.Errorf("%v lacks %q", got, want)
		}
	}
}

func TestDetectLanguage(t *testing.T) {
	cases := map[string]string{
		"Der Arbeitgeber hat die Gefährdung der Beschäftigten zu beurteilen und die Maßnahmen festzulegen.": German,
		"The operator shall purge the line with nitrogen before the cylinder is disconnected.":              English,
		"1.2.3": "",
	}
	for text, want := range cases {
		if got := DetectLanguage(text); got != want {
			t.Errorf("DetectLanguage(%q) = %q, want %q", text, got, want)
		}
	}
}

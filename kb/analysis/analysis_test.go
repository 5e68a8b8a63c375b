package analysis

import (
	"reflect"
	"slices"
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
		{"Gefährdungsbeurteilungen des Arbeitgebers", German, "gefahrdungsbeurteil gefahrd beurteil arbeitgeb"},
		{"Gefährdungsbeurteilung nach § 6", German, "gefahrdungsbeurteil gefahrd beurteil 6"},
		{"Störfall-Verordnung", German, "storfall verordn"},
		{"Straße", German, "strass"},
		{"Verordnung (EG) Nr. 1272/2008", German, "verordn eg nr 1272 2008"},
		{"§ 5a Absatz 1", German, "5a absatz 1"},
		// Abbreviations of single letters stay whole (and "e.g." is a stop word); other
		// letters.letters do not.
		{"e.g. the U.S. Navy, see warren.toml", English, "u.s navi see warren toml"},
		{"z.B. Arsin", German, "arsin"},
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
		if len(a) == 0 || !slices.Equal(a, b) {
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

// German compounds are indexed whole and as their known parts, so a query naming the parts
// finds the compound and the compound finds the parts; words the list does not know, or
// that are known whole, stay as they are.
func TestGermanCompoundsSplitIntoKnownWords(t *testing.T) {
	cases := map[string]string{
		"Gefahrstoffverordnung":        "gefahrstoffverordn gefahrstoff verordn",
		"Gefahrstoffverordnungen":      "gefahrstoffverordn gefahrstoff verordn",
		"Arbeitsschutzgesetz":          "arbeitsschutzgesetz arbeit schutz gesetz",
		"Arbeitsplatzgrenzwerte":       "arbeitsplatzgrenzwert arbeitsplatz grenzwert",
		"Störfallverordnung":           "storfallverordn storfall verordn",
		"Immissionsschutzgesetz":       "immissionsschutzgesetz immission schutz gesetz",
		"Explosionsgrenze":             "explosionsgrenz explosion grenz",
		"Siedepunkt":                   "siedepunkt sied punkt",
		"Zündtemperatur":               "zundtemperatur zund temperatur",
		"Chemikalienverbotsverordnung": "chemikalienverbotsverordn chemikali verbot verordn",
		"Gefährdungsbeurteilung":       "gefahrdungsbeurteil gefahrd beurteil",
		"Betriebsanweisung":            "betriebsanweis betrieb anweis",
		"Verordnung":                   "verordn",
		"Beschäftigten":                "beschaftigt",
		"Staubecken":                   "staubeck", // Stau|becken or Staub|ecken: neither known
	}
	for word, want := range cases {
		if got := strings.Join(Terms(word, German), " "); got != want {
			t.Errorf("Terms(%q) = %q, want %q", word, got, want)
		}
	}
	// The parts are what the same words give alone, so a query made of them meets the compound.
	compound := Terms("Gefahrstoffverordnung", German)
	for _, w := range []string{"Verordnungen", "Gefahrstoff"} {
		if !slices.Contains(compound, Terms(w, German)[0]) {
			t.Errorf("%q does not meet Gefahrstoffverordnung %v", w, compound)
		}
	}
	// English is never split.
	if got := Terms("Gasflaschenlager", English); len(got) != 1 {
		t.Errorf("English analysis split a word: %v", got)
	}
}

// Umlauts typed as ae, oe, ue (no German keyboard over SSH) meet the umlauts; after a vowel
// or a q they stay two letters.
func TestGermanUmlautsTypedAsTwoLetters(t *testing.T) {
	for _, p := range [][2]string{
		{"Gefaehrdungsbeurteilung", "Gefährdungsbeurteilung"},
		{"Loesemittel", "Lösemittel"},
		{"Pruefung", "Prüfung"},
		{"fuer", "für"}, // a stop word either way
	} {
		a, b := strings.Join(Terms(p[0], German), " "), strings.Join(Terms(p[1], German), " ")
		if a != b {
			t.Errorf("%q gives %q, %q gives %q", p[0], a, p[1], b)
		}
	}
	for _, w := range []string{"Feuer", "Quelle", "neue"} {
		if got := germanForm(strings.ToLower(w)); got != strings.ToLower(w) {
			t.Errorf("germanForm(%q) = %q", w, got)
		}
	}
}

// A query word weighs one word however many terms it gives: a German compound and its parts
// share its weight (a chunk holding the compound holds the parts too), and an English form
// the German analysis also gives is not counted twice.
func TestQueryWordsShareAWordsWeight(t *testing.T) {
	third := 1.0 / 3
	for _, tc := range []struct {
		query, lang string
		want        []QueryWord
	}{
		{"cylinder valves", English, []QueryWord{{[]string{"cylind"}, []float64{1}}, {[]string{"valv"}, []float64{1}}}},
		{"Gefahrstoffverordnung", German, []QueryWord{{[]string{"gefahrstoffverordn", "gefahrstoff", "verordn"}, []float64{third, third, third}}}},
		{"Arsin Siedepunkt", "", []QueryWord{{[]string{"arsin"}, []float64{1}},
			{[]string{"siedepunkt", "sied", "punkt"}, []float64{third, third, third}}}},
		{"operating", "", []QueryWord{{[]string{"oper", "operating"}, []float64{1, 1}}}},
	} {
		if got := QueryWords(tc.query, tc.lang); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("QueryWords(%q, %q) = %+v, want %+v", tc.query, tc.lang, got, tc.want)
		}
	}
}

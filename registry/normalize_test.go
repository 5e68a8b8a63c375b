package registry

import (
	"math"
	"testing"

	edlib "github.com/hbollon/go-edlib"
)

func TestJaroWinkler(t *testing.T) {
	cases := []struct {
		a, b string
		want float64
	}{
		{"MARTHA", "MARHTA", 0.961},
		{"DWAYNE", "DUANE", 0.840},
		{"DIXON", "DICKSONX", 0.813},
		{"JELLYFISH", "SMELLYFISH", 0.896},
		{"CRATE", "TRACE", 0.733},
		{"same", "same", 1},
		{"", "", 1},
		{"abc", "", 0},
		{"abc", "xyz", 0},
		{"störfall", "störfall", 1},
	}
	for _, c := range cases {
		got := JaroWinkler(c.a, c.b)
		if math.Abs(got-c.want) > 0.001 {
			t.Errorf("JaroWinkler(%q, %q) = %.4f, want %.3f", c.a, c.b, got, c.want)
		}
		if back := JaroWinkler(c.b, c.a); math.Abs(back-got) > 1e-9 {
			t.Errorf("JaroWinkler is not symmetric for %q, %q: %.4f vs %.4f", c.a, c.b, got, back)
		}
	}
}

// The fuzzy tier counts edits by optimal string alignment, on letters (runes): insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func TestFuzzyEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"gefahrstoffverordnung", "gefahrstofverordnung", 1},
		{"arbeitsschutzgesetz", "arbeitschutzgesetz", 1},
		{"ab", "ba", 1}, // a swap of neighbours is one edit
		{"gefahrgutverordnung", "gefahrstoffverordnung", 5},
		{"stoerfall", "störfall", 2},
	}
	for _, c := range cases {
		if got := edlib.OSADamerauLevenshteinDistance(c.a, c.b); got != c.want {
			t.Errorf("OSADamerauLevenshteinDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"Störfall-Verordnung", "stoerfallverordnung"},
		{"Störfallverordnung", "stoerfallverordnung"},
		{"störfall verordnung", "stoerfallverordnung"},
		{"Stoerfall_Verordnung", "stoerfallverordnung"},
		{"STÖRFALL.VERORDNUNG", "stoerfallverordnung"},
		{"der Störfall-Verordnung", "stoerfallverordnung"},
		{"Störfall-Verordnungen", "stoerfallverordnung"},
		{"Sto\u0308rfall-Verordnung", "stoerfallverordnung"}, // decomposed umlaut
		{"Arbeitsschutzgesetzes", "arbeitsschutzgesetz"},
		{"Gesetzes", "gesetz"},
		{"des Chemikaliengesetzes", "chemikaliengesetz"},
		{"Bundes-Immissionsschutzgesetzes", "bundesimmissionsschutzgesetz"},
		{"des Bürgerlichen Gesetzbuchs", "buergerlichgesetzbuch"},
		{"Bürgerliches Gesetzbuch", "buergerlichgesetzbuch"},
		{"gemäß GefStoffV", "gefstoffv"},
		{"gem. GefStoffV", "gefstoffv"},
		{"nach der GefStoffV", "gefstoffv"},
		{"in der GefStoffV", "gefstoffv"},
		{"im Chemikaliengesetz", "chemikaliengesetz"},
		{"Die", "die"}, // the last word is never dropped
		{"RFC 6901", "rfc 6901"},
		{"RFC6901", "rfc 6901"},
		{"rfc-6901", "rfc 6901"},
		{"RFC 06901", "rfc 6901"},
		{"12. BImSchV", "bimschv 12"},
		{"BImSchV 12", "bimschv 12"},
		{"  JSON   Patch ", "jsonpatch"},
		{"UTF-8", "utf 8"},
		{"Straße", "strasse"},
		{"Café", "cafe"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizeKeepsDifferentNamesApart(t *testing.T) {
	pairs := [][2]string{
		{"RFC 6901", "RFC 6902"},
		{"BImSchG", "BImSchV"},
		{"12. BImSchV", "13. BImSchV"},
		{"GefStoffV", "GefStoffV 2010"},
		{"Gefahrstoffverordnung", "Gefahrgutverordnung"},
		{"JSON Patch", "JSON Merge Patch"},
	}
	for _, p := range pairs {
		if Normalize(p[0]) == Normalize(p[1]) {
			t.Errorf("Normalize makes %q and %q the same name %q", p[0], p[1], Normalize(p[0]))
		}
	}
}

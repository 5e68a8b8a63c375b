package registry

import (
	"testing"

	"warren/internal/shareddata"
)

func loadShared(t *testing.T) *Registry {
	t.Helper()
	r, err := Load(shareddata.Path(t, "corpus/"+FileName))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveSharedRegistry(t *testing.T) {
	rv := NewResolver(loadShared(t))
	positives := []struct {
		name, path, method string
	}{
		// German laws: synonyms, titles, base names, articles and inflection.
		{"Gefahrstoffverordnung", "gesetze/GefStoffV", MethodExact},
		{"GefStoffV", "gesetze/GefStoffV", MethodExact},
		{"gemäß GefStoffV", "gesetze/GefStoffV", MethodExact},
		{"nach der Gefahrstoffverordnung", "gesetze/GefStoffV", MethodExact},
		{"Gefahrstoff-Verordnung", "gesetze/GefStoffV", MethodExact},
		{"GefStoffV 2010", "gesetze/GefStoffV", MethodExact},
		{"Arbeitsschutzgesetzes", "gesetze/ArbSchG", MethodExact},
		{"ArbSchG", "gesetze/ArbSchG", MethodExact},
		{"des Chemikaliengesetzes", "gesetze/ChemG", MethodExact},
		{"im ChemG", "gesetze/ChemG", MethodExact},
		{"der Störfall-Verordnung", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"Störfallverordnung", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"Stoerfall-Verordnung", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"StoerfallV", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"12. BImSchV", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"12 BImSchV", "gesetze/12.BImSchV-StoerfallV", MethodExact},
		{"Bundes-Immissionsschutzgesetzes", "gesetze/BImSchG", MethodExact},
		{"Bundesimmissionsschutzgesetz", "gesetze/BImSchG", MethodExact},
		{"BImSchG", "gesetze/BImSchG", MethodExact},
		{"Chemikalien-Verbotsverordnung", "gesetze/ChemVerbotsV", MethodExact},
		{"der ChemVerbotsV", "gesetze/ChemVerbotsV", MethodExact},
		// RFCs.
		{"RFC 6902", "rfc/rfc6902.txt", MethodExact},
		{"rfc6901", "rfc/rfc6901.txt", MethodExact},
		{"RFC6901", "rfc/rfc6901.txt", MethodExact},
		{"rfc-6901", "rfc/rfc6901.txt", MethodExact},
		{"JSON Patch", "rfc/rfc6902.txt", MethodExact},
		{"json-pointer", "rfc/rfc6901.txt", MethodExact},
		{"JSON Merge Patch", "rfc/rfc7396.txt", MethodExact},
		{"UTF-8", "rfc/rfc3629.txt", MethodExact},
		{"BCP 14", "rfc/rfc2119.txt", MethodExact},
		{"STD 90", "rfc/rfc8259.txt", MethodExact},
		{"ABNF", "rfc/rfc5234.txt", MethodExact},
		// Typing errors and spelling variants.
		{"Gefahrstofverordnung", "gesetze/GefStoffV", MethodFuzzy},
		{"Arbeitschutzgesetz", "gesetze/ArbSchG", MethodFuzzy},
		{"Storfall-Verordnung", "gesetze/12.BImSchV-StoerfallV", MethodFuzzy},
		{"Bundes-Immisionsschutzgesetz", "gesetze/BImSchG", MethodFuzzy},
		{"Chemikalienverbotverordnung", "gesetze/ChemVerbotsV", MethodFuzzy},
		{"JSON Pointr", "rfc/rfc6901.txt", MethodFuzzy},
		// Fragments that fit one document only.
		{"Merge Patch", "rfc/rfc7396.txt", MethodSubstring},
		{"Immissionsschutzgesetz", "gesetze/BImSchG", MethodSubstring},
	}
	for _, c := range positives {
		m, ok := rv.Resolve(c.name, "")
		if !ok {
			t.Errorf("Resolve(%q) found nothing, want %s", c.name, c.path)
			continue
		}
		if m.Doc.Path != c.path || m.Method != c.method {
			t.Errorf("Resolve(%q) = %s by %s (via %q), want %s by %s", c.name, m.Doc.Path, m.Method, m.Name, c.path, c.method)
		}
		if m.Collection == "" || m.Name == "" || m.Score <= 0 || m.Score > 1 {
			t.Errorf("Resolve(%q) returned an incomplete match %+v", c.name, m)
		}
	}

	// Other laws and RFCs, generic words and fragments of several names: all must resolve to
	// nothing, because a wrong document is far worse than none.
	negatives := []string{
		"Biostoffverordnung", "Betriebssicherheitsverordnung", "Gefahrgutverordnung",
		"Arbeitsstättenverordnung", "Mutterschutzgesetz", "Chemikalienverordnung",
		"Stoffverordnung", "Schutzgesetz", "Gesetz zum Schutz vor Gefahrstoffen",
		"BioStoffV", "ArbStättV", "BetrSichV", "MuSchG", "ChemV", "BImSchV", "13. BImSchV",
		"4. BImSchV", "GefStoffV 2005", "Gefahrstoffverordnung 2005",
		"RFC 2616", "RFC 3986", "RFC 6903", "RFC", "rfc 690", "STD 91",
		"JSON", "Patch", "Chemikalien", "Verordnung", "Gesetz", "Störfall", "JSON Match",
		"6901", "", "  ", "die",
	}
	for _, name := range negatives {
		if m, ok := rv.Resolve(name, ""); ok {
			t.Errorf("Resolve(%q) = %s by %s (via %q, score %.3f), want no match", name, m.Doc.Path, m.Method, m.Name, m.Score)
		}
	}
}

func TestResolveThreshold(t *testing.T) {
	r := loadShared(t)
	if _, ok := r.Resolve("Arbeitschutzgesetz", ""); !ok {
		t.Fatal("the default threshold should accept a one-letter typo")
	}
	if m, ok := r.ResolveWith("Arbeitschutzgesetz", "", 0.99); ok {
		t.Errorf("threshold 0.99 accepted %s with score %.3f", m.Doc.Path, m.Score)
	}
	if _, ok := r.ResolveWith("Arbeitsschutzgesetz", "", 0.99); !ok {
		t.Error("the threshold must not affect exact matches")
	}
}

func TestResolveTiesAndHints(t *testing.T) {
	r := New()
	r.Collections["standards"] = &Collection{Documents: []Document{
		{Path: "standards/gcp.md", Title: "Gas Cabinet Procedure", Synonyms: []string{"GCP", "Gas Cabinet Guide"}},
		{Path: "standards/gefstoffv.md", Title: "Gefahrstoffverordnung"},
		{Path: "standards/biostoffv.md", Title: "Biostoffverordnung"},
	}}
	r.Collections["suppliers"] = &Collection{Documents: []Document{
		{Path: "suppliers/gcp.md", Title: "Supplier gas cabinets", Synonyms: []string{"G.C.P.", "Gas Cabinet Manual"}},
		{Path: "suppliers/gefahrsstoffv.md", Title: "Gefahrsstoffverordnung"},
	}}
	r.Collections["odd"] = &Collection{Documents: []Document{
		{Path: "odd/biostoffvx.md", Title: "Biostoffverordnungx"},
	}}
	cases := []struct {
		name, hint, want, method string // want "" means no match
	}{
		{"GCP", "", "", ""}, // two documents share the name
		{"gcp", "standards", "standards/gcp.md", MethodExact},
		{"GCP", "suppliers", "suppliers/gcp.md", MethodExact},
		{"GCP", "odd", "", ""},               // the hint names neither
		{"Gefahrstofverordnung", "", "", ""}, // two safe fuzzy candidates within the margin
		{"Gefahrstofverordnung", "suppliers", "suppliers/gefahrsstoffv.md", MethodFuzzy},
		{"Gefahrstoffverordnung", "suppliers", "standards/gefstoffv.md", MethodExact}, // the hint never beats a better tier
		{"Biostofverordnung", "", "", ""},                                             // an unsafe rival within the margin makes it ambiguous
		{"Biostofverordnung", "standards", "standards/biostoffv.md", MethodFuzzy},
		{"Gas Cabinet", "", "", ""}, // a fragment of two documents' names
		{"Gas Cabinet", "suppliers", "suppliers/gcp.md", MethodSubstring},
		{"Cabinet Guide", "", "standards/gcp.md", MethodSubstring},
	}
	rv := NewResolver(r)
	for _, c := range cases {
		m, ok := rv.Resolve(c.name, c.hint)
		switch {
		case c.want == "" && ok:
			t.Errorf("Resolve(%q, %q) = %s by %s, want no match", c.name, c.hint, m.Doc.Path, m.Method)
		case c.want != "" && !ok:
			t.Errorf("Resolve(%q, %q) found nothing, want %s", c.name, c.hint, c.want)
		case c.want != "" && (m.Doc.Path != c.want || m.Method != c.method):
			t.Errorf("Resolve(%q, %q) = %s by %s, want %s by %s", c.name, c.hint, m.Doc.Path, m.Method, c.want, c.method)
		}
	}
}

func TestBaseName(t *testing.T) {
	cases := map[string]string{
		"rfc/rfc6901.txt":               "rfc6901",
		"gesetze/GefStoffV":             "GefStoffV",
		"gesetze/12.BImSchV-StoerfallV": "12.BImSchV-StoerfallV",
		`standards\gcp.docx`:            "gcp",
		"data/report.2019":              "report.2019",
	}
	for in, want := range cases {
		if got := (Document{Path: in}).BaseName(); got != want {
			t.Errorf("BaseName(%q) = %q, want %q", in, got, want)
		}
	}
}

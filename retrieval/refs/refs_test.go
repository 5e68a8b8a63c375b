package refs

import (
	"reflect"
	"strings"
	"testing"
)

// want is the part of a Reference a table case pins down.
type want struct{ typ, target, context string }

func (w want) String() string { return w.typ + ":" + w.target + " @" + w.context }

func got(refs []Reference) []want {
	out := make([]want, 0, len(refs))
	for _, r := range refs {
		out = append(out, want{r.Type, r.Target, r.DocumentContext})
	}
	return out
}

func legal(target, ctx string) want   { return want{TypeLegalSection, target, ctx} }
func section(target, ctx string) want { return want{TypeSection, target, ctx} }
func mention(target string) want      { return want{TypeDocumentMention, target, ""} }
func numbered(n string) want          { return want{TypeAcademicNumbered, n, ""} }
func shortform(t string) want         { return want{TypeAcademicShortform, t, ""} }
func external(u string) want          { return want{TypeExternal, u, ""} }

// TestDetectRegex pins every pattern and false-positive guard to the exact list of references it
// yields, in text order, so an extra detection fails as loudly as a missing one.
func TestDetectRegex(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []want
	}{
		// German legal citations.
		{"full detail chain", "nach § 6 Absatz 1 Satz 2 Nummer 4 zu beurteilen",
			[]want{legal("§ 6 Abs. 1 S. 2 Nr. 4", "")}},
		{"abbreviated Absatz", "gemäß § 6 Abs. 1 gilt", []want{legal("§ 6 Abs. 1", "")}},
		{"abbreviated chain", "§ 6 Abs. 1 S. 2 Nr. 4", []want{legal("§ 6 Abs. 1 S. 2 Nr. 4", "")}},
		{"two sections", "die §§ 93, 97 bleiben unberührt", []want{legal("§ 93", ""), legal("§ 97", "")}},
		{"section range expands", "die §§ 3 bis 5 gelten", []want{legal("§ 3", ""), legal("§ 4", ""), legal("§ 5", "")}},
		{"lettered section", "nach § 5a sind", []want{legal("§ 5a", "")}},
		{"lettered range", "die §§ 15e bis 15g", []want{legal("§ 15e", ""), legal("§ 15f", ""), legal("§ 15g", "")}},
		{"repeated sign in a list", "gemäß §§ 3, 4 Absatz 1 und 2, §§ 5 bis 6 der Verordnung über die Beschaffenheit",
			[]want{legal("§ 3", "Verordnung über die Beschaffenheit"), legal("§ 4 Abs. 1 und 2", "Verordnung über die Beschaffenheit"),
				legal("§ 5", "Verordnung über die Beschaffenheit"), legal("§ 6", "Verordnung über die Beschaffenheit")}},
		{"nach Absatz", "nach § 20 Absatz 4 hat der Arbeitgeber", []want{legal("§ 20 Abs. 4", "")}},
		{"genitive law name", "nach § 5 des Arbeitsschutzgesetzes", []want{legal("§ 5", "Arbeitsschutzgesetzes")}},
		{"abbreviation after", "Pflichten nach § 6 GefStoffV", []want{legal("§ 6", "GefStoffV")}},
		{"abbreviations", "§ 3 ChemG, § 5 Abs. 1 Nr. 2 BImSchG, § 5 ArbSchG und § 2 StörfallV",
			[]want{legal("§ 3", "ChemG"), legal("§ 5 Abs. 1 Nr. 2", "BImSchG"), legal("§ 5", "ArbSchG"), legal("§ 2", "StörfallV")}},
		{"ordinal abbreviation", "nach § 2 Nummer 5 der 12. BImSchV", []want{legal("§ 2 Nr. 5", "12. BImSchV")}},
		{"feminine law name", "§ 7 Absatz 1 der Gefahrstoffverordnung", []want{legal("§ 7 Abs. 1", "Gefahrstoffverordnung")}},
		{"hyphenated law name", "§ 16 Absatz 2 Nummer 1 der Störfall-Verordnung",
			[]want{legal("§ 16 Abs. 2 Nr. 1", "Störfall-Verordnung")}},
		{"long title", "nach § 5 des Gesetzes über die Umweltverträglichkeitsprüfung sowie erforderlichen",
			[]want{legal("§ 5", "Gesetzes über die Umweltverträglichkeitsprüfung")}},
		{"title with adjective", "§ 7 Absatz 1 der Verordnung zur arbeitsmedizinischen Vorsorge durchzuführen",
			[]want{legal("§ 7 Abs. 1", "Verordnung zur arbeitsmedizinischen Vorsorge")}},
		{"dieses Gesetzes is current", "im Sinne des § 16b Absatz 1 und 2 dieses Gesetzes",
			[]want{legal("§ 16b Abs. 1 und 2", "")}},
		{"annex", "nach Anhang I Nummer 1.7", []want{legal("Anhang I Nr. 1.7", "")}},
		{"numbered annex", "die in Anlage 2 Spalte 1 aufgeführten Stoffe", []want{legal("Anlage 2 Spalte 1", "")}},
		{"EU article", "gemäß Artikel 3 der Verordnung (EG) Nr. 1272/2008",
			[]want{legal("Art. 3", "Verordnung (EG) Nr. 1272/2008")}},
		{"EU article with Ziffer", "nach Artikel 19 Absatz 1 Buchstabe b Ziffer i und ii der Verordnung (EU) Nr. 528/2012",
			[]want{legal("Art. 19 Abs. 1 Buchst. b Ziff. i und ii", "Verordnung (EU) Nr. 528/2012")}},
		{"EU regulation alone", "Sofern die Verordnung (EG) Nr. 1907/2006 keine Informationspflicht vorsieht",
			[]want{mention("Verordnung (EG) Nr. 1907/2006")}},
		{"EU regulation missing space", "nach Titel IV der Verordnung (EG)Nr. 1907/2006 zur Verfügung",
			[]want{mention("Verordnung (EG) Nr. 1907/2006")}},
		{"EU directive", "im Sinne der Richtlinie 2012/18/EU", []want{mention("Richtlinie 2012/18/EU")}},
		{"law named without section", "im Sinne der Biostoffverordnung sind", []want{mention("Biostoffverordnung")}},
		{"enumeration marker ends the list", "nach § 7 Absatz 8 zu berücksichtigen, 4. Möglichkeiten; nach § 2 Absatz 8, 9. Wirksamkeit",
			[]want{legal("§ 7 Abs. 8", ""), legal("§ 2 Abs. 8", "")}},
		{"chain continues after comma", "Nach § 27 Absatz 1 Nummer 1, Absatz 2 bis 4 des Chemikaliengesetzes",
			[]want{legal("§ 27 Abs. 1 Nr. 1, Abs. 2 bis 4", "Chemikaliengesetzes")}},
		{"list shares the law", "nach § 16 oder § 25 Absatz 1 der Gewerbeordnung",
			[]want{legal("§ 16", "Gewerbeordnung"), legal("§ 25 Abs. 1", "Gewerbeordnung")}},
		{"separate laws stay separate", "nach § 4 des Umweltschadensgesetzes oder nach § 19 der Störfall-Verordnung",
			[]want{legal("§ 4", "Umweltschadensgesetzes"), legal("§ 19", "Störfall-Verordnung")}},
		{"heading label is no reference", "# § 21 Chemikaliengesetz – Anzeigen\n\n(1) nach § 8 Absatz 8",
			[]want{legal("§ 8 Abs. 8", "")}},
		{"ordinary noun after section", "§ 6 Informationsermittlung und Gefährdungsbeurteilung", []want{legal("§ 6", "")}},
		{"acronym after section is no law", "Grundsätze nach § 19b GLP", []want{legal("§ 19b", "")}},
		{"non-law genitive", "nach § 7 Absatz 1 der Ärztin", []want{legal("§ 7 Abs. 1", "")}},
		{"installation is no annex", "der Betreiber einer Anlage nach § 4", []want{legal("§ 4", "")}},

		// English section and RFC references.
		{"section", "as described in Section 3.2, the", []want{section("3.2", "")}},
		{"sections list", "Sections 3 and 4 define", []want{section("3", ""), section("4", "")}},
		{"sections range", "Sections 3 through 5", []want{section("3", ""), section("4", ""), section("5", "")}},
		{"section of RFC", "Section 4 of RFC 6901 says", []want{section("4", "RFC 6901")}},
		{"section of bracket", "Section 4 of [RFC6901] says", []want{section("4", "RFC 6901")}},
		{"bracket then section", "(see [RFC4627], Section 3)", []want{section("3", "RFC 4627")}},
		{"section wrapped across lines", "as described in Section 4.e of\n   the Trust Legal Provisions and",
			[]want{section("4.e", "Trust Legal Provisions")}},
		{"section of this document", "Section 5 of this document", []want{section("5", "")}},
		{"appendix", "see Appendix A.1 for examples", []want{section("A.1", "")}},
		{"bracket RFC", "interpreted as described in [RFC2119].", []want{mention("RFC 2119")}},
		{"BCP with brackets", "described in BCP 14 [RFC2119] [RFC8174] when",
			[]want{mention("BCP 14"), mention("RFC 2119"), mention("RFC 8174")}},
		{"BCP wrapped", "described in BCP\n   14 [RFC2119]", []want{mention("BCP 14"), mention("RFC 2119")}},
		{"RFC in prose", "RFC 6902 defines JSON Patch", []want{mention("RFC 6902")}},
		// Bibliography entries cite an RFC with a space as well as without.
		{"bibliography label with a space", `[RFC 4627] Crockford, D., "The application/json Media Type", July 2006.`,
			[]want{mention("RFC 4627")}},
		{"bracketed RFC with a space in an entry", `[3] Crockford, D., "JSON", [RFC 4627], July 2006.`,
			[]want{numbered("3"), mention("RFC 4627")}},
		{"section of bracket with a space", "Section 4 of [RFC 6901] says; see [RFC 4627], Section 3.",
			[]want{section("4", "RFC 6901"), section("3", "RFC 4627")}},
		{"bibliography in columns", "References\nRFC 4627   Crockford, D., \"The application/json Media Type\", July 2006.\nRFC 2119   Bradner, S., \"Key words\", March 1997.",
			[]want{mention("RFC 4627"), mention("RFC 2119")}},
		{"other citation label", "the ECMAScript specification [ECMA-262], Section 15.12.",
			[]want{section("15.12", "ECMA-262")}},

		// Academic citations.
		{"numbered", "as shown before [12].", []want{numbered("12")}},
		{"numbered list", "prior work [3, 4]", []want{numbered("3"), numbered("4")}},
		{"numbered range", "prior work [5-7]", []want{numbered("5"), numbered("6"), numbered("7")}},
		{"shortform et al", "as found (Smith et al., 2020).", []want{shortform("Smith et al. 2020")}},
		{"shortform two authors", "as found (Smith and Jones 2019).", []want{shortform("Smith and Jones 2019")}},
		{"shortform several", "(Smith & Jones, 2019; Lee, 2018)", []want{shortform("Smith and Jones 2019"), shortform("Lee 2018")}},
		{"narrative shortform", "Smith et al. (2020) found", []want{shortform("Smith et al. 2020")}},

		// Named documents and URLs.
		{"see the procedure", "Before changing a cylinder, see the Gas Cabinet Procedure.", []want{mention("Gas Cabinet Procedure")}},
		{"described in the standard", "as described in the Hazardous Gas Handling Standard",
			[]want{mention("Hazardous Gas Handling Standard")}},
		{"per the plan", "Evacuate per the Site Emergency Response Plan.", []want{mention("Site Emergency Response Plan")}},
		{"data sheet", "refer to the Silane Safety Data Sheet", []want{mention("Silane Safety Data Sheet")}},
		{"url", "Errata are at http://www.rfc-editor.org/info/rfc6902.", []want{external("http://www.rfc-editor.org/info/rfc6902")}},
		{"url in angle brackets", "[1]  <http://www.unicode.org/unicode/standard/policies.html>",
			[]want{numbered("1"), external("http://www.unicode.org/unicode/standard/policies.html")}},

		// False-positive guards.
		{"regulation number is no citation", "gemäß [1272/2008] und [10.0.0.1]", nil},
		{"section inside URL", "see https://example.org/Section 3.2/x", []want{external("https://example.org/Section")}},
		{"IP address after Section", "Section 10.0.0.1 and Section 192.168.1.1", nil},
		{"version strings", "version 1.2.3 and [v1.2] and v2.0.1", nil},
		{"RFC 2119 key word", `The key words "MUST" and [MUST] and SHOULD NOT`, nil},
		{"capitalised phrase without cue", "The Gas Cabinet Procedure was revised.", nil},
		{"cue without title", "per the Standard and see the Procedure", nil},
		{"JSON arrays", `{"a": [1, 2]} and ["b"] and x[1]`, nil},
		{"JSON table row", `   [1,2]           {"a":"b",       {"a":"b"}`, nil},
		{"index expression", "Target[Name] = MergePatch(Target[Name], Value)", nil},
		{"ABNF rule", "3.8.  Optional Sequence:  [RULE]", nil},
		{"date in parentheses", "(Stand 2020) und (January, 2020)", nil},
		{"RFC page header and DOI", "RFC 6902                       JSON Patch                     April 2013\n DOI 10.17487/RFC2119", nil},
		{"table of contents", "     4.1.  add  . . . . . . . . . . . . . . . .  4", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refs := DetectRegex(tc.text)
			g := got(refs)
			if len(g) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(g, tc.want) {
				t.Errorf("DetectRegex(%q)\n got  %v\n want %v", tc.text, g, tc.want)
			}
			for _, r := range refs {
				if r.Method != MethodRegex {
					t.Errorf("%s: method %q, want %q", r.Key(), r.Method, MethodRegex)
				}
				if tc.text[r.Start:r.End] != r.OriginalText {
					t.Errorf("%s: OriginalText %q is not text[%d:%d] %q", r.Key(), r.OriginalText, r.Start, r.End, tc.text[r.Start:r.End])
				}
			}
		})
	}
}

func TestDetectRegexSpansAndOrder(t *testing.T) {
	text := "Nach § 5 des Arbeitsschutzgesetzes und Section 3.2 of RFC 6901 [12]."
	refs := DetectRegex(text)
	wantOrig := []string{"§ 5 des Arbeitsschutzgesetzes", "Section 3.2 of RFC 6901", "[12]"}
	if len(refs) != len(wantOrig) {
		t.Fatalf("got %d references %v, want %d", len(refs), got(refs), len(wantOrig))
	}
	for i, r := range refs {
		if r.OriginalText != wantOrig[i] {
			t.Errorf("reference %d: OriginalText %q, want %q", i, r.OriginalText, wantOrig[i])
		}
		if i > 0 && refs[i-1].Start > r.Start {
			t.Errorf("references out of text order: %v", got(refs))
		}
	}
}

func TestDetectRegexDeduplicates(t *testing.T) {
	// The bracket inside "Section 4 of [RFC6901]" restates the section's context and must not come
	// back as a second, document-wide reference; two separate mentions of the same RFC stay two.
	refs := DetectRegex("Section 4 of [RFC6901]; see RFC 2119 and again RFC 2119.")
	g := got(refs)
	w := []want{section("4", "RFC 6901"), mention("RFC 2119"), mention("RFC 2119")}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got %v, want %v", g, w)
	}
}

func TestSectionNumber(t *testing.T) {
	tests := []struct {
		ref  Reference
		want string
	}{
		{Reference{Type: TypeLegalSection, Target: "§ 6 Abs. 1 S. 2 Nr. 4"}, "§ 6"},
		{Reference{Type: TypeLegalSection, Target: "§ 5a"}, "§ 5a"},
		{Reference{Type: TypeLegalSection, Target: "Art. 3 Abs. 1"}, "Art. 3"},
		{Reference{Type: TypeLegalSection, Target: "Anhang I Nr. 1.7"}, "Anhang I"},
		{Reference{Type: TypeLegalSection, Target: "Anlage 2 Spalte 1"}, "Anlage 2"},
		{Reference{Type: TypeSection, Target: "4.2"}, "4.2"},
		{Reference{Type: TypeSection, Target: "A.1"}, "A.1"},
		{Reference{Type: TypeDocumentMention, Target: "RFC 2119"}, ""},
		{Reference{Type: TypeAcademicNumbered, Target: "12"}, ""},
	}
	for _, tc := range tests {
		if g := tc.ref.SectionNumber(); g != tc.want {
			t.Errorf("SectionNumber(%s) = %q, want %q", tc.ref.Key(), g, tc.want)
		}
	}
}

func TestSplitNumbers(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"3, 4", []string{"3", "4"}},
		{"5-7", []string{"5", "6", "7"}},
		{"5 – 7", []string{"5", "6", "7"}},
		{"3 bis 5", []string{"3", "4", "5"}},
		{"93, 97", []string{"93", "97"}},
		{"3 and 4", []string{"3", "4"}},
		{"1, 2, and 3", []string{"1", "2", "3"}},
		{"15e bis 15g", []string{"15e", "15f", "15g"}},
		{"1-300", []string{"1", "300"}},
		{"5 bis 7a", []string{"5", "7a"}},
		{"12", []string{"12"}},
		{"", nil},
	}
	for _, tc := range tests {
		if g := SplitNumbers(tc.in); !reflect.DeepEqual(g, tc.want) {
			t.Errorf("SplitNumbers(%q) = %q, want %q", tc.in, g, tc.want)
		}
	}
}

func TestDetectRegexEmptyAndPlain(t *testing.T) {
	for _, s := range []string{"", "   ", "Der Arbeitgeber hat die Beschäftigten zu unterweisen.", strings.Repeat("§", 3)} {
		if refs := DetectRegex(s); len(refs) != 0 {
			t.Errorf("DetectRegex(%q) = %v, want none", s, got(refs))
		}
	}
}

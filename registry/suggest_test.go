package registry

import (
	"slices"
	"testing"
)

func TestSuggestSynonyms(t *testing.T) {
	cases := []struct {
		name string
		doc  Document
		meta map[string]string
		want []string
	}{
		{
			name: "rfc file with a title that spells out its abbreviation",
			doc:  Document{Path: "rfc/rfc6901.txt"},
			meta: map[string]string{"title": "JavaScript Object Notation (JSON) Pointer"},
			want: []string{"JavaScript Object Notation (JSON) Pointer", "JSON Pointer", "RFC 6901"},
		},
		{
			name: "existing synonyms are left out after normalisation",
			doc:  Document{Path: "rfc/rfc6901.txt", Synonyms: []string{"json-pointer", "RFC6901"}},
			meta: map[string]string{"title": "JavaScript Object Notation (JSON) Pointer"},
			want: []string{"JavaScript Object Notation (JSON) Pointer"},
		},
		{
			name: "capitals of a capitalised title; the slug is the title again",
			doc:  Document{Path: "standards/gas-cabinet-procedure.md", Title: "Gas Cabinet Procedure"},
			want: []string{"Gas Cabinet Procedure", "GCP"},
		},
		{
			name: "colon and parenthetical",
			doc:  Document{Path: "rfc/rfc5234.txt", Title: "Augmented BNF for Syntax Specifications: ABNF"},
			meta: map[string]string{"rfc": "5234"},
			want: []string{"Augmented BNF for Syntax Specifications: ABNF", "ABNF", "Augmented BNF for Syntax Specifications", "RFC 5234"},
		},
		{
			name: "German law: front matter abbreviations and an abbreviation-like base name",
			doc: Document{Path: "gesetze/12.BImSchV-StoerfallV", Title: "Störfall-Verordnung (12. BImSchV)",
				Synonyms: []string{"StörfallV"}},
			meta: map[string]string{"title": "Zwölfte Verordnung zur Durchführung des Bundes-Immissionsschutzgesetzes",
				"amtabk": "12. BImSchV", "jurabk": "BImSchV 12 2000"},
			want: []string{"Störfall-Verordnung (12. BImSchV)", "Störfall-Verordnung", "12. BImSchV",
				"Zwölfte Verordnung zur Durchführung des Bundes-Immissionsschutzgesetzes", "BImSchV 12 2000",
				"12.BImSchV-StoerfallV"},
		},
		{
			name: "bare numbers and empty values are no names",
			doc:  Document{Path: "docs/2019", Title: "  "},
			meta: map[string]string{"doc_number": "4711", "abbreviation": ""},
			want: nil,
		},
	}
	for _, c := range cases {
		got := SuggestSynonyms(c.doc, c.meta)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

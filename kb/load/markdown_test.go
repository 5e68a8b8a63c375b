package load

import (
	"strings"
	"testing"
)

func TestSplitHeadingNumber(t *testing.T) {
	cases := []struct{ in, number, rest string }{
		{"§ 6 Informationsermittlung", "§ 6", "Informationsermittlung"},
		{"§5a Veranlasser", "§ 5a", "Veranlasser"},
		{"4.2 Purge before disconnect", "4.2", "Purge before disconnect"},
		{"4.2. Purge", "4.2", "Purge"},
		{"Section 3: Alarm set points", "3", "Alarm set points"},
		{"Anhang I Nummer 1", "Anhang I", "Nummer 1"},
		{"Anlage (zu § 3 Abs. 6)", "Anlage", "(zu § 3 Abs. 6)"},
		{"Artikel 3 Begriffe", "Artikel 3", "Begriffe"},
		{"A.1 Adding an Object Member", "A.1", "Adding an Object Member"},
		{"Abschnitt 3 Gefährdungsbeurteilung", "Abschnitt 3", "Gefährdungsbeurteilung"},
		{"2010 revision notes", "", "2010 revision notes"},
		{"Handling and storage", "", "Handling and storage"},
	}
	for _, tc := range cases {
		if n, r := splitHeadingNumber(tc.in); n != tc.number || r != tc.rest {
			t.Errorf("splitHeadingNumber(%q) = %q, %q; want %q, %q", tc.in, n, r, tc.number, tc.rest)
		}
	}
}

func TestParseMarkdownSectionsAndPaths(t *testing.T) {
	body := "Intro text.\n\n# Gas Cabinet Procedure\n\n## 4 Cylinder change\nClose valves.\n\n### 4.2 Purge\n```\n# not a heading\n```\nPurge three times.\n\n## 5 Leak checks\nSnoop test.\n"
	title, secs := parseMarkdown(body, 10, "", nil)
	if title != "Gas Cabinet Procedure" {
		t.Errorf("title %q", title)
	}
	var got []string
	for _, s := range secs {
		got = append(got, s.Label()+"="+s.PathString())
		if s.Text != "" && !strings.HasPrefix(body[s.Offset-10:], s.Text) {
			t.Errorf("section %q offset does not point at its text", s.Label())
		}
	}
	want := "=,Gas Cabinet Procedure=Gas Cabinet Procedure,4=Gas Cabinet Procedure › 4,4.2=Gas Cabinet Procedure › 4 › 4.2,5=Gas Cabinet Procedure › 5"
	if strings.Join(got, ",") != want {
		t.Errorf("sections\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	if !strings.Contains(secs[3].Text, "# not a heading") {
		t.Errorf("a heading inside a code fence is text: %q", secs[3].Text)
	}
}

func TestFrontMatterErrors(t *testing.T) {
	if _, _, err := splitFrontMatter("---\ntitle: x\nno end\n"); err == nil {
		t.Error("an unterminated front matter block must be an error")
	}
	if _, _, err := splitFrontMatter("---\ntitle: [unclosed\n---\nbody"); err == nil {
		t.Error("invalid YAML must be an error")
	}
	meta, body, err := splitFrontMatter("---\ntitle: Silane\ntags: [a, b]\n---\n# Body\n")
	if err != nil || flattenMeta(meta)["tags"] != "a; b" || body != len("---\ntitle: Silane\ntags: [a, b]\n---\n") {
		t.Errorf("meta %v body %d err %v", meta, body, err)
	}
}

package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/shareddata"
)

func TestLoadsTheSharedCorpusStructure(t *testing.T) {
	gef, err := Load(shareddata.Path(t, "corpus/gesetze/GefStoffV"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sec6 *Section
	for i := range gef.Sections {
		if gef.Sections[i].Number == "§ 6" {
			sec6 = &gef.Sections[i]
		}
	}
	if gef.Format != "folder" || gef.Language != "de" || sec6 == nil || sec6.Heading != "Informationsermittlung und Gefährdungsbeurteilung" ||
		!strings.HasPrefix(sec6.PathString(), "Abschnitt 1") || !strings.HasPrefix(sec6.Text, "(1) Im Rahmen") || sec6.File != "paragraphs/0006.md" {
		t.Fatalf("§ 6 of GefStoffV: %+v", sec6)
	}
	data, _ := os.ReadFile(filepath.Join(gef.Source, sec6.File))
	if !strings.HasPrefix(string(data[sec6.Offset:]), "(1) Im Rahmen") {
		t.Errorf("the section offset must point at its text in its file")
	}

	rfc, err := Load(shareddata.Path(t, "corpus/rfc/rfc6902.txt"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rfc.EachSection(func(s Section) error {
		got[s.Number] = s.PathString()
		if strings.Contains(s.Text, "[Page") || strings.Contains(s.Text, "RFC 6902                       JSON Patch") {
			t.Errorf("page furniture left in section %s", s.Label())
		}
		return nil
	})
	for number, path := range map[string]string{"4.1": "4 › 4.1", "4.6": "4 › 4.6", "A.1": "Appendix A › A.1", "9.2": "9 › 9.2"} {
		if got[number] != path {
			t.Errorf("RFC 6902 section %s: path %q, want %q", number, got[number], path)
		}
	}
}

func TestTextWithoutFormFeedsIsStreamedInWindows(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "%d.  Section %d\n\n%s\n\n", i, i, strings.Repeat("Purge the line with nitrogen before the change. ", 45))
	}
	text := b.String()
	var got []Section
	if err := scanText(strings.NewReader(text), "", func(s Section) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(text) < 2*pageWindow || len(got) != 300 || got[299].Number != "300" {
		t.Fatalf("want 300 sections from %d bytes, got %d", len(text), len(got))
	}
	for _, s := range got {
		if !strings.HasPrefix(text[s.Offset:], s.Text) {
			t.Fatalf("section %s: offset does not point at its text", s.Number)
		}
	}
}

package load

import (
	"fmt"
	"strings"
	"testing"

	"warren/kb/chunk"
)

// pdfTextLine draws a line of text with font F1 at 12 pt, its baseline at height y.
func pdfTextLine(y int, s string) string {
	return fmt.Sprintf("BT /F1 12 Tf 72 %d Td (%s) Tj ET", y, s)
}

func TestPDFSectionsNeverSpanTwoPages(t *testing.T) {
	page1 := strings.Join([]string{
		pdfTextLine(700, "1 Scope"),
		pdfTextLine(686, "This procedure covers the gas cabinets of building four."),
		pdfTextLine(650, "2 Silane handling"),
		pdfTextLine(636, "Purge the line with nitrogen before every cylinder change."),
		pdfTextLine(622, "Check the exhaust flow of the cabinet."),
	}, "\n")
	page2 := strings.Join([]string{
		pdfTextLine(700, "Wear a face shield while the valve is open."),
		pdfTextLine(686, "Leak test every fitting with helium."),
		pdfTextLine(650, "3 Storage"),
		pdfTextLine(636, "Keep full cylinders apart from empty ones."),
	}, "\n")
	doc, err := Load(buildTestPDF(t, []string{page1, page2}, ""), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type placed struct {
		number string
		page   int
		starts string
	}
	want := []placed{
		{"1", 1, "This procedure"},
		{"2", 1, "Purge the line"},
		{"2", 2, "Wear a face shield"},
		{"3", 2, "Keep full cylinders"},
	}
	if len(doc.Sections) != len(want) {
		t.Fatalf("got %d sections, want %d: %+v", len(doc.Sections), len(want), doc.Sections)
	}
	pages, err := extractPDF(doc.Source)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(pages, "\f") // what the offsets refer to
	for i, w := range want {
		s := doc.Sections[i]
		if s.Number != w.number || s.Page != w.page || s.PageKind != chunk.KindPage || !strings.HasPrefix(s.Text, w.starts) {
			t.Errorf("section %d: %s on page %d (%q) %q, want %s on page %d starting %q", i, s.Number, s.Page, s.PageKind, s.Text, w.number, w.page, w.starts)
		}
		if !strings.HasPrefix(text[s.Offset:], s.Text) {
			t.Errorf("section %d: the offset %d does not point at its text", i, s.Offset)
		}
	}
	if cont := doc.Sections[2]; cont.Heading != "Silane handling" || cont.PathString() != "2" || strings.Contains(cont.Text, "Purge") {
		t.Errorf("the part of section 2 on page 2: %+v", cont)
	}

	ch := Chunker{Doc: "sop", Options: DefaultChunkOptions}
	var onPage []int
	for _, s := range doc.Sections {
		for _, c := range ch.Section(s) {
			if c.Section == "2" {
				onPage = append(onPage, c.Page)
			}
			if c.PageKind != chunk.KindPage || c.Place() != c.Section+fmt.Sprintf(", p. %d", c.Page) {
				t.Errorf("chunk %s: page %d (%q), place %q", c.ID, c.Page, c.PageKind, c.Place())
			}
		}
	}
	if fmt.Sprint(onPage) != "[1 2]" {
		t.Errorf("section 2 gives chunks on pages %v, want [1 2]", onPage)
	}
}

// A heading at the foot of a page whose text starts on the next one is cited by that page,
// and a blank page between counts.
func TestPDFHeadingAtThePageFootTakesThePageOfItsText(t *testing.T) {
	page1 := pdfTextLine(700, "1 Scope") + "\n" + pdfTextLine(686, "Gas cabinets.") + "\n" + pdfTextLine(650, "2 Storage")
	blank := "0 0 1 rg 100 100 200 150 re f"
	page3 := pdfTextLine(700, "Keep cylinders chained.")
	doc, err := Load(buildTestPDF(t, []string{page1, blank, page3}, ""), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range doc.Sections {
		got = append(got, fmt.Sprintf("%s p%d %q", s.Number, s.Page, s.Text))
	}
	if want := `[1 p1 "Gas cabinets." 2 p3 "Keep cylinders chained."]`; fmt.Sprint(got) != want {
		t.Errorf("sections %v, want %s", got, want)
	}
}

// Plain text with form feeds (an RFC) has pages too, but is not cited by them: its sections
// run on across page breaks as before.
func TestTextFormFeedsDoNotCutSections(t *testing.T) {
	text := "1.  Scope\n\nFirst part.\n\fSecond part.\n"
	var got []Section
	if err := scanText(strings.NewReader(text), "", func(s Section) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Page != 0 || got[0].Text != "First part.\nSecond part." {
		t.Errorf("sections %+v", got)
	}
}

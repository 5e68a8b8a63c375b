package load

import "testing"

// A heading at the top of a page follows the previous page's last line, not a blank line: the
// page break counts as one, so the heading starts its section.
func TestHeadingAtTheTopOfAPageStartsItsSection(t *testing.T) {
	path := buildTestPDF(t, []string{
		pdfWord(72, 700, "1 Storage") + "\n" + pdfWord(72, 680, "Cylinders stand upright."),
		pdfWord(72, 700, "2 Emergency response") + "\n" + pdfWord(72, 680, "Leave the room."),
	}, "")
	doc, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.Number+"|"+s.Heading+"|"+s.Text)
		if s.Number == "2" && s.Page != 2 {
			t.Errorf("section 2 is on page %d", s.Page)
		}
	}
	want := []string{"1|Storage|Cylinders stand upright.", "2|Emergency response|Leave the room."}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("sections %q, want %q", got, want)
	}
}

package chunk

import "testing"

func TestPlaceNamesThePageAfterTheSection(t *testing.T) {
	for _, tt := range []struct {
		section string
		page    PageRef
		label   string
		place   string
	}{
		{"4.1", PageRef{}, "", "4.1"},
		{"4.1", PageRef{Page: 3, Kind: KindPage}, "p. 3", "4.1, p. 3"},
		{"", PageRef{Page: 3, Kind: KindPage}, "p. 3", "p. 3"},
		{"Slide 2", PageRef{Page: 2, Kind: KindSlide}, "slide 2", "Slide 2"},
		{"4.1", PageRef{Page: 3, Kind: KindPage, OCR: true, OCRConfidence: 91.4}, "p. 3, read by OCR, 91 % confidence", "4.1, p. 3, read by OCR, 91 % confidence"},
		{"", PageRef{OCR: true}, "read by OCR", "read by OCR"},
	} {
		if got := tt.page.Label(); got != tt.label {
			t.Errorf("%+v: label %q, want %q", tt.page, got, tt.label)
		}
		if got := Place(tt.section, tt.page); got != tt.place {
			t.Errorf("%q %+v: place %q, want %q", tt.section, tt.page, got, tt.place)
		}
	}
	c := Chunk{Section: "§ 6", Page: 12, PageKind: KindPage}
	if c.Place() != "§ 6, p. 12" || c.PageRef().IsZero() || !(Chunk{}).PageRef().IsZero() {
		t.Errorf("chunk place %q", c.Place())
	}
}

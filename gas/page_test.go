package gas

import (
	"strings"
	"testing"

	"warren/kb/chunk"
)

// The Page column reads back what it wrote, and refuses what it could not have written.
func TestPageColumnReadsBackWhatItWrote(t *testing.T) {
	for _, tt := range []struct {
		page chunk.PageRef
		text string
	}{
		{chunk.PageRef{}, ""},
		{chunk.PageRef{Page: 3, Kind: chunk.KindPage}, "p. 3"},
		{chunk.PageRef{Page: 2, Kind: chunk.KindSlide}, "slide 2"},
		{chunk.PageRef{Page: 7, Kind: chunk.KindPage, OCR: true, OCRConfidence: 91.25}, "p. 7, read by OCR, 91.25 % confidence"},
		{chunk.PageRef{OCR: true}, "read by OCR"},
	} {
		if got := pageText(tt.page); got != tt.text {
			t.Errorf("%+v written as %q, want %q", tt.page, got, tt.text)
		}
		if got, err := parsePageText(tt.text); err != nil || got != tt.page {
			t.Errorf("%q read as %+v %v, want %+v", tt.text, got, err, tt.page)
		}
	}
	for _, bad := range []string{"page 3", "p. three", "p. 3, read by OCR, high % confidence"} {
		if _, err := parsePageText(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

// The Provenance sheet and the cell's comment name the source's page; an import of the
// export restores it (TestXLSXRoundTrip and the store's round trip compare whole cells).
func TestProvenanceNamesTheSourcePage(t *testing.T) {
	f, _ := exportOpen(t, sampleTable())
	rows, err := f.GetRows(SheetProvenance)
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	pages := map[string]string{}
	for _, r := range rows[1:] {
		if j := col["Page"]; j < len(r) && r[j] != "" {
			pages[r[col["Source Document"]]] = r[j]
		}
	}
	want := map[string]string{"sds-silane": "p. 4", "gas-handbook": "p. 2, read by OCR, 87.25 % confidence"}
	if len(pages) != len(want) || pages["sds-silane"] != want["sds-silane"] || pages["gas-handbook"] != want["gas-handbook"] {
		t.Errorf("Page column %v, want %v", pages, want)
	}
	if text := commentText(sampleTable().Rows[0].Cells["boiling_point_c"]); !strings.Contains(text, "Source: sds-silane, 9.1 Physical properties, p. 4") {
		t.Errorf("comment %q", text)
	}
}

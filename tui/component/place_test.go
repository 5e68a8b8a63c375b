package component

import (
	"testing"

	"warren/kb/chunk"
)

func TestPlaceSuffixSignsOnlyABareNumber(t *testing.T) {
	for _, tc := range []struct {
		section string
		page    chunk.PageRef
		want    string
	}{
		{"4.1", chunk.PageRef{}, " § 4.1"},
		{"4.1", chunk.PageRef{Page: 3, Kind: chunk.KindPage}, " § 4.1, p. 3"},
		{"§ 7", chunk.PageRef{}, " § 7"},
		{"Anhang I", chunk.PageRef{}, " Anhang I"},
		{"", chunk.PageRef{Page: 3, Kind: chunk.KindPage}, " p. 3"},
		{"", chunk.PageRef{}, ""},
	} {
		if got := PlaceSuffix(tc.section, tc.page); got != tc.want {
			t.Errorf("PlaceSuffix(%q, %+v) = %q, want %q", tc.section, tc.page, got, tc.want)
		}
	}
}

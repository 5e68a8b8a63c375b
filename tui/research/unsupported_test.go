package research

import (
	"strings"
	"testing"
)

// The mark of a sentence whose numbers its sources do not state is set in bold, so that the
// rendered report shows it apart from the prose.
func TestReportViewBoldsUnsupportedMark(t *testing.T) {
	var v reportView
	v.set("The TLV is 0.05 ppm [1]. (⚠ unsupported: 0.05 ppm not stated by source 1)")
	if !strings.Contains(v.markdown, "(**⚠ unsupported:** 0.05 ppm not stated by source 1)") {
		t.Errorf("markdown %q", v.markdown)
	}
}

package gas

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestMerge(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	prop := func(v string, conf float64) Cell {
		return Cell{Value: v, Unit: "°C", Confidence: conf, Method: "extract", SourceDoc: "sds-silane", SourceSection: "9.1", UpdatedAt: at}
	}
	cell := func(s Status, v string, conf float64) Cell { return Cell{Value: v, Status: s, Confidence: conf} }
	cases := []struct {
		name        string
		old, prop   Cell
		min, margin float64
		changed     bool
		status      Status // of the result
		value       string // of the result
		reason      string // part of the reason
	}{
		{"empty, confident", Cell{}, prop("-112", 0.9), 0.3, 0.2, true, StatusFilled, "-112", "filled the empty cell"},
		{"empty, at the high mark", Cell{}, prop("-112", 0.7), 0.3, 0.2, true, StatusFilled, "-112", "filled"},
		{"empty, middling", Cell{}, prop("-112", 0.5), 0.3, 0.2, true, StatusReview, "-112", "filled"},
		{"empty, at the minimum", Cell{}, prop("-112", 0.3), 0.3, 0.2, true, StatusReview, "-112", "filled"},
		{"empty, below the minimum", Cell{}, prop("-112", 0.29), 0.3, 0.2, false, StatusEmpty, "", "below the minimum 0.30"},
		{"empty, custom minimum", Cell{}, prop("-112", 0.45), 0.5, 0.2, false, StatusEmpty, "", "below the minimum 0.50"},
		{"empty, default minimum", Cell{}, prop("-112", 0.25), -1, -1, false, StatusEmpty, "", "below the minimum 0.30"},
		{"rejected is refilled", Cell{Status: StatusRejected, Note: "wrong isomer"}, prop("-112", 0.8), 0.3, 0.2, true, StatusFilled, "-112", "filled the rejected cell"},
		{"rejected, below the minimum", Cell{Status: StatusRejected}, prop("-112", 0.1), 0.3, 0.2, false, StatusRejected, "", "below the minimum"},
		{"filled, beaten by the margin", cell(StatusFilled, "-110", 0.5), prop("-112", 0.7), 0.3, 0.2, true, StatusFilled, "-112", "replaced a value of confidence 0.50"},
		{"filled, not beaten by the margin", cell(StatusFilled, "-110", 0.5), prop("-112", 0.69), 0.3, 0.2, false, StatusFilled, "-110", "doesn't beat the current 0.50"},
		{"filled, equal confidence", cell(StatusFilled, "-110", 0.8), prop("-112", 0.8), 0.3, 0.2, false, StatusFilled, "-110", "margin"},
		{"review, beaten", cell(StatusReview, "-110", 0.4), prop("-112", 0.65), 0.3, 0.2, true, StatusReview, "-112", "replaced"},
		{"review, not beaten", cell(StatusReview, "-110", 0.4), prop("-112", 0.55), 0.3, 0.2, false, StatusReview, "-110", "doesn't beat"},
		{"review, zero margin", cell(StatusReview, "-110", 0.4), prop("-112", 0.4), 0.3, 0, true, StatusReview, "-112", "replaced"},
		{"original is never overwritten", cell(StatusOriginal, "-110", 0), prop("-112", 1), 0.3, 0.2, false, StatusOriginal, "-110", "imported sheet"},
		{"invalid sheet text is never overwritten", Cell{Value: "ca. -110", Status: StatusReview, Method: MethodSheet, Note: "invalid in the sheet: …"}, prop("-112", 1), 0.3, 0.2, false, StatusReview, "ca. -110", "imported sheet"},
		{"approved is never touched", cell(StatusApproved, "-110", 0.4), prop("-112", 1), 0.3, 0.2, false, StatusApproved, "-110", "approved"},
		{"edited is never touched", cell(StatusEdited, "-110", 0), prop("-112", 1), 0.3, 0.2, false, StatusEdited, "-110", "edited"},
		{"proposal without value", Cell{}, prop("", 0.9), 0.3, 0.2, false, StatusEmpty, "", "no value"},
		{"confidence above one", Cell{}, prop("-112", 1.5), 0.3, 0.2, false, StatusEmpty, "", "not between 0 and 1"},
		{"confidence NaN", Cell{}, prop("-112", math.NaN()), 0.3, 0.2, false, StatusEmpty, "", "not between 0 and 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed, reason := Merge(c.old, c.prop, c.min, c.margin)
			if changed != c.changed || got.Status != c.status || got.Value != c.value {
				t.Fatalf("Merge = %q %q changed %v (%s); want %q %q changed %v", got.Value, got.Status, changed, reason, c.value, c.status, c.changed)
			}
			if !strings.Contains(reason, c.reason) {
				t.Errorf("reason %q doesn't say %q", reason, c.reason)
			}
			if !changed && !sameCell(got, c.old) {
				t.Errorf("an unchanged merge altered the cell: %+v", got)
			}
			if changed && (got.SourceDoc != "sds-silane" || got.Confidence != c.prop.Confidence || got.Note != "" || !got.UpdatedAt.Equal(at)) {
				t.Errorf("merged cell lost the proposal's provenance or kept the old note: %+v", got)
			}
		})
	}
}

func TestMergeStampsTime(t *testing.T) {
	got, _, _ := Merge(Cell{}, Cell{Value: "1", Confidence: 0.9}, DefaultMinConfidence, DefaultOverwriteMargin)
	if got.UpdatedAt.IsZero() {
		t.Error("a merged cell without a time got none")
	}
}

package gas

import (
	"fmt"
	"math"
	"time"
)

// Thresholds of the merge rule.
const (
	// DefaultMinConfidence is the least confidence a proposal needs to fill an empty cell.
	DefaultMinConfidence = 0.3
	// DefaultOverwriteMargin is how much more confident than the value in a filled or review
	// cell a proposal must be to replace it.
	DefaultOverwriteMargin = 0.2
	// HighConfidence is the confidence from which a merged value counts as filled; below it
	// the value is marked for review.
	HighConfidence = 0.7
)

// Merge decides whether a proposed value replaces a cell and returns the resulting cell,
// whether it changed, and the reason in words.
//
//   - An empty, rejected or unsupported cell is filled when the proposal's confidence is at
//     least minConfidence.
//   - A filled or review cell is overwritten only when the proposal is at least
//     overwriteMargin more confident than the value there.
//   - Original values (from the analyst's sheet, including sheet text that didn't validate,
//     Method MethodSheet), approved values and edited values are never touched: they are the
//     analyst's, and only the analyst changes them.
//
// The merged cell is StatusFilled from HighConfidence on and StatusReview below it. A negative
// or NaN threshold means its default. The proposal's Value should already be normalised.
func Merge(old, proposal Cell, minConfidence, overwriteMargin float64) (Cell, bool, string) {
	if math.IsNaN(minConfidence) || minConfidence < 0 {
		minConfidence = DefaultMinConfidence
	}
	if math.IsNaN(overwriteMargin) || overwriteMargin < 0 {
		overwriteMargin = DefaultOverwriteMargin
	}
	pc := proposal.Confidence
	switch {
	case proposal.Value == "":
		return old, false, "the proposal has no value"
	case math.IsNaN(pc) || pc < 0 || pc > 1:
		return old, false, fmt.Sprintf("the proposal's confidence %v is not between 0 and 1", pc)
	}
	switch {
	case old.Status == StatusOriginal || old.Method == MethodSheet:
		return old, false, "the value comes from the imported sheet and is never overwritten"
	case old.Status == StatusApproved:
		return old, false, "the analyst approved the value"
	case old.Status == StatusEdited:
		return old, false, "the analyst edited the value"
	case old.Fillable():
		if pc < minConfidence {
			return old, false, fmt.Sprintf("confidence %.2f is below the minimum %.2f for filling", pc, minConfidence)
		}
		what := "filled the empty cell"
		switch old.Status {
		case StatusRejected:
			what = "filled the rejected cell"
		case StatusUnsupported:
			what = "replaced a value no passage stated"
		}
		return merged(proposal), true, fmt.Sprintf("%s (confidence %.2f)", what, pc)
	case old.Status == StatusFilled || old.Status == StatusReview || old.Status == StatusEmpty:
		// StatusEmpty with a value: a cell written without a status; treat it like a filled one.
		need := old.Confidence + overwriteMargin
		if pc < need-1e-9 { // tolerate binary noise in 0.5+0.2
			return old, false, fmt.Sprintf("confidence %.2f doesn't beat the current %.2f by the margin %.2f", pc, old.Confidence, overwriteMargin)
		}
		return merged(proposal), true, fmt.Sprintf("replaced a value of confidence %.2f with one of %.2f", old.Confidence, pc)
	}
	return old, false, fmt.Sprintf("unknown status %q", old.Status)
}

func merged(p Cell) Cell {
	p.Status = StatusReview
	if p.Confidence >= HighConfidence {
		p.Status = StatusFilled
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = time.Now().UTC()
	}
	return p
}

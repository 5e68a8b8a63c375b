package retrieval

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"warren/retrieval/refs"
)

// Detectors of references.
const (
	DetectorRegex  = "regex"
	DetectorModel  = "model"
	DetectorHybrid = "hybrid"
)

// MethodModel marks a reference found by the model.
const MethodModel = "model"

// Detector finds the references in a passage with a language model: the research agent's
// model detector (research.ModelDetector, over the model gateway's fast role) is the one
// warren uses. Every reference it returns points into the passage (Start and End around its
// OriginalText) and is marked MethodModel; retrieval takes the function so that it does not
// depend on the gateway.
type Detector func(ctx context.Context, text string) ([]refs.Reference, error)

// errNoModel is the model detectors' error when they were given no model.
var errNoModel = errors.New("couldn't detect references with the model: no model is configured")

// DetectHybrid runs the regex detector, then the model, and keeps a model reference only when
// it is new: not the same type and target as a regex reference, and not overlapping one's
// text. If the model fails, the regex references stand and the error says why the rest is
// missing.
func DetectHybrid(ctx context.Context, model Detector, text string) ([]refs.Reference, error) {
	found := refs.DetectRegex(text)
	if model == nil {
		return found, errNoModel
	}
	byModel, err := model(ctx, text)
	if err != nil {
		return found, err
	}
	keys := map[string]bool{}
	for _, r := range found {
		keys[r.Key()] = true
	}
	for _, m := range byModel {
		if keys[m.Key()] || overlapsAny(m, found) {
			continue
		}
		keys[m.Key()] = true
		found = append(found, m)
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Start < found[j].Start })
	return found, nil
}

func overlapsAny(r refs.Reference, others []refs.Reference) bool {
	for _, o := range others {
		if r.Start < o.End && o.Start < r.End {
			return true
		}
	}
	return false
}

// Detect runs the named detector; model is the model detector (nil when none is available).
func Detect(ctx context.Context, detector string, model Detector, text string) ([]refs.Reference, error) {
	switch detector {
	case DetectorRegex, "":
		return refs.DetectRegex(text), nil
	case DetectorModel:
		if model == nil {
			return nil, errNoModel
		}
		return model(ctx, text)
	case DetectorHybrid:
		return DetectHybrid(ctx, model, text)
	}
	return nil, fmt.Errorf("unknown detector %q: use regex, model or hybrid", detector)
}

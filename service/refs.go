package service

import (
	"context"
	"fmt"

	"warren/agent/research"
	"warren/llm"
	"warren/retrieval"
	"warren/retrieval/refs"
)

// DetectReferences finds the references in text with a detector (regex, model or hybrid).
// When the model fails after the regex found some, those are returned and note says so.
func (k *Knowledge) DetectReferences(ctx context.Context, detector, text string, note func(string)) ([]refs.Reference, error) {
	found, err := retrieval.Detect(ctx, detector, research.ModelDetector(k.s.gateway, llm.Call{}), text)
	if err != nil && len(found) > 0 {
		if note != nil {
			note(fmt.Sprintf("only the regex references are shown: %v", err))
		}
		return found, nil
	}
	return found, err
}

// ResolveReferences detects the references in text and follows each: a named document through
// the registry, then the exact section in it; a section without a named document in the
// document the text comes from (from, any name FindDocument understands, in section). A
// reference that leads nowhere stays unresolved with the reason; nothing is guessed.
func (k *Knowledge) ResolveReferences(ctx context.Context, detector, text, from, section string, note func(string)) ([]retrieval.Resolved, error) {
	origin := retrieval.Origin{Section: section, Context: text}
	if from != "" {
		doc, err := k.FindDocument(ctx, from)
		if err != nil {
			return nil, err
		}
		origin.Doc = doc
	}
	found, err := k.DetectReferences(ctx, detector, text, note)
	if err != nil {
		return nil, err
	}
	reg, err := k.s.Registry()
	if err != nil {
		return nil, err
	}
	r := retrieval.NewResolver(k.s.reader(), reg, k.s.Searcher(), k.s.ws.Config.Thresholds.FuzzyMatch)
	results := make([]retrieval.Resolved, 0, len(found))
	for _, ref := range found {
		results = append(results, r.Resolve(ctx, ref, origin))
	}
	return results, nil
}

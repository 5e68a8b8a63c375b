package research

import (
	"context"
	"fmt"
	"strings"

	"warren/config"
	"warren/llm"
	"warren/retrieval"
	"warren/retrieval/refs"
)

// ModelDetector is the model's reference detector (DetectModel with g, its calls made as
// call) as retrieval takes it: retrieval.DetectHybrid and retrieval.Detect run it beside the
// regex detector.
func ModelDetector(g *llm.Gateway, call llm.Call) retrieval.Detector {
	return func(ctx context.Context, text string) ([]refs.Reference, error) {
		return DetectModel(ctx, g, call, text)
	}
}

// modelReference is one reference as the model reports it.
type modelReference struct {
	Type            string `json:"type" schema:"enum=legal_section|section|document_mention|academic_numbered|academic_shortform|external"`
	Target          string `json:"target" desc:"the section number or document name, e.g. § 6, 4.2, RFC 2119"`
	OriginalText    string `json:"original_text" desc:"the reference exactly as written in the text" schema:"minLength=1"`
	DocumentContext string `json:"document_context" desc:"the document the section belongs to, as written; empty for the current document"`
}

type modelReferences struct {
	References []modelReference `json:"references" schema:"maxItems=40"`
}

const detectSystem = `You find references in a passage of a legal, technical or scientific document:
places where the text points to another section, another document, a citation or a URL.
Report each reference once, with original_text copied exactly from the passage.
Types: legal_section (§, Absatz, Artikel, Anhang of a law), section (a numbered section such as
"Section 3.2"), document_mention (a named law, standard, RFC or document), academic_numbered
("[12]"), academic_shortform ("(Smith et al., 2020)"), external (a URL).
Examples:
"nach § 5 des Arbeitsschutzgesetzes" → {"type":"legal_section","target":"§ 5","original_text":"§ 5 des Arbeitsschutzgesetzes","document_context":"Arbeitsschutzgesetzes"}
"as described in Section 4 of [RFC6901]" → {"type":"section","target":"4","original_text":"Section 4 of [RFC6901]","document_context":"RFC 6901"}
"see the Gas Cabinet Procedure" → {"type":"document_mention","target":"Gas Cabinet Procedure","original_text":"the Gas Cabinet Procedure","document_context":""}
A passage without references gives {"references": []}.`

// DetectModel asks the model (fast role) for the references in text, in a call made as call
// (the zero Call outside any run). A reference whose original text does not occur in the
// passage is dropped: the model must not invent. [ModelDetector] hands it to retrieval's
// detectors.
func DetectModel(ctx context.Context, g *llm.Gateway, call llm.Call, text string) ([]refs.Reference, error) {
	var out modelReferences
	err := g.Structured(ctx, llm.Request{Call: call, Role: config.RoleFast, System: detectSystem, Prompt: "Passage:\n" + text}, &out)
	if err != nil {
		return nil, fmt.Errorf("couldn't detect references with the model: %w", err)
	}
	return modelRefs(text, out.References), nil
}

// modelRefs are the references the model named in text as retrieval's detectors give them. A
// reference whose original text does not occur in the passage is dropped: the model must not
// invent.
func modelRefs(text string, named []modelReference) []refs.Reference {
	var found []refs.Reference
	for _, m := range named {
		start := strings.Index(text, m.OriginalText)
		if start < 0 || m.OriginalText == "" {
			continue
		}
		found = append(found, refs.Reference{Type: m.Type, Target: strings.TrimSpace(m.Target), OriginalText: m.OriginalText,
			DocumentContext: strings.TrimSpace(m.DocumentContext), Method: retrieval.MethodModel, Start: start, End: start + len(m.OriginalText)})
	}
	return found
}

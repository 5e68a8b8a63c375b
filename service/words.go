package service

import (
	"strings"

	"warren/agent/gasfill"
	"warren/agent/research"
	"warren/agent/toxedit"
	"warren/gas"
)

// StepWords says what a step of a job does, in the analyst's words ("writing search queries"
// for the node generate_queries): the one place that names the agents' nodes for every front
// end. A name no agent knows is spelled with spaces for underscores.
func StepWords(node string) string {
	for _, words := range []func(string) (string, bool){research.StepWords, gasfill.StepWords, toxedit.StepWords} {
		if w, ok := words(node); ok {
			return w
		}
	}
	return strings.ReplaceAll(node, "_", " ")
}

// ToxEditTypeWords says what kind of toxicology edit a proposal or version is ("instruction in
// words" for NLI_EDIT).
func ToxEditTypeWords(t string) string { return toxedit.EditTypeWords(t) }

// ToxMethodWords says how a toxicology proposal's operations were made ("read without the
// model" for parsed).
func ToxMethodWords(m string) string { return toxedit.MethodWords(m) }

// GasMethodWords says how a gas cell's value was found or set ("found in suppliers" for a
// fill's tier:suppliers).
func GasMethodWords(method string) string {
	if w, ok := gasfill.MethodWords(method); ok {
		return w
	}
	switch method {
	case gas.MethodSheet:
		return "from the sheet"
	case gasMethodAnalyst:
		return "typed by the analyst"
	case "extract":
		return "read from a document"
	}
	return method
}

package gasfill

import "strings"

// StepWords says what a node of a fill does, in the analyst's words; ok is false for another
// name.
func StepWords(node string) (string, bool) {
	switch node {
	case NodeRow:
		return "filling a row", true
	case "gasfill":
		return "filling the gas table", true
	}
	return "", false
}

// MethodWords says how a fill found a value, from the method it records on the cell
// ("tier:suppliers", "general:1"); ok is false for a method a fill does not write.
func MethodWords(method string) (string, bool) {
	if tier, ok := strings.CutPrefix(method, "tier:"); ok {
		return "found in " + tier, true
	}
	if pass, ok := strings.CutPrefix(method, "general:"); ok {
		return "found in any collection (pass " + pass + ")", true
	}
	return "", false
}

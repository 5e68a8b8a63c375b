package toxedit

import "warren/tox"

// editTypeWords and methodWords say how an edit was read and made, in the analyst's words:
// the screens and the CLI show these, never the constants.
var editTypeWords = map[string]string{
	string(FormStructured): "structured edit (JSON)",
	string(FormRaw):        "correction form",
	string(NLIEdit):        "instruction in words",
	string(NoEdit):         "nothing to change",
	tox.EditImport:         "import",
	tox.EditRollback:       "rollback",
}

var methodWords = map[string]string{
	MethodStructured: "applied as written",
	MethodParsed:     "read without the model",
	MethodModelPatch: "operations written by the model",
	MethodRewrite:    "profile rewritten by the model",
	MethodFormModel:  "form read by the model",
	MethodEdited:     "operations edited by you",
	MethodNone:       "nothing proposed",
}

// EditTypeWords says what kind of edit t is; an unknown kind is returned as it is.
func EditTypeWords(t string) string {
	if w, ok := editTypeWords[t]; ok {
		return w
	}
	return t
}

// MethodWords says how a proposal's operations were made; an unknown method is returned as it is.
func MethodWords(m string) string {
	if w, ok := methodWords[m]; ok {
		return w
	}
	return m
}

// stepWords say what each node of the edit graph does.
var stepWords = map[string]string{
	"load":     "loading the profile",
	"classify": "reading the kind of edit",
	"patch":    "writing the operations",
	"review":   "waiting for your approval",
	"save":     "saving the version",
}

// StepWords says what a node of the edit graph does; ok is false for another name.
func StepWords(node string) (string, bool) {
	w, ok := stepWords[node]
	return w, ok
}

package toxedit

import (
	"regexp"
	"strings"
)

// Classify says what kind of edit an input is, without a model:
//
//   - FORM_EDIT_STRUCTURED: the input is JSON (a payload object or a JSON Patch array);
//   - FORM_EDIT_RAW: a pasted correction form, that is two or more labelled lines
//     ("NOAEL: 200 mg/kg bw/day", "Species: rat"), or one line whose label is a profile field;
//   - NO_EDIT: nothing to do: empty input, a greeting or thanks, or a question or remark that
//     asks for no change (no edit verb such as set, add, remove, and no number);
//   - NLI_EDIT: any other text, an instruction in words.
//
// Input that starts like JSON but isn't valid JSON is still FORM_EDIT_STRUCTURED, so that the
// analyst sees the JSON error rather than a model's guess.
func Classify(input string) EditType {
	s := strings.TrimSpace(input)
	if s == "" {
		return NoEdit
	}
	if s[0] == '{' || s[0] == '[' {
		return FormStructured
	}
	if isForm(s) {
		return FormRaw
	}
	if noEdit(s) {
		return NoEdit
	}
	return NLIEdit
}

var (
	// labelLine is "Label: value" with a short label that isn't a sentence.
	labelLine = regexp.MustCompile(`^\s*[-*•]?\s*([A-Za-z][A-Za-z0-9 ()/%._-]{0,40}?)\s*:\s*\S`)
	// formLabels are labels that name a profile field on their own.
	formLabels = regexp.MustCompile(`(?i)^(noael|loael|noel|bmdl|ld50|dap|dermal absorption|species|route|duration|duration \(days\)|study|study type|type|unit|source|reference|citation|cas|cas no\.?|cas number|statement|expert statement|author|date|value)$`)
	editVerb   = regexp.MustCompile(`(?i)\b(set|change|update|replace|correct|fix|add|append|insert|remove|delete|drop|put|make|use|increase|decrease|lower|raise|rename|should be|must be|is wrong|instead of)\b`)
	greeting   = regexp.MustCompile(`(?i)^(hi|hello|hey|thanks|thank you|ok|okay|cheers|good (morning|afternoon|evening)|bye)\b[\s!.,]*(there|warren)?[\s!.]*$`)
	number     = regexp.MustCompile(`\d`)
)

func isForm(s string) bool {
	lines := strings.Split(s, "\n")
	labelled, named := 0, 0
	for _, l := range lines {
		m := labelLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		label := strings.TrimSpace(m[1])
		if editVerb.MatchString(label) {
			continue // "Add reference: …" is an instruction
		}
		labelled++
		if formLabels.MatchString(label) {
			named++
		}
	}
	return labelled >= 2 || (len(nonEmpty(lines)) == 1 && named == 1)
}

func nonEmpty(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func noEdit(s string) bool {
	if greeting.MatchString(s) {
		return true
	}
	return !editVerb.MatchString(s) && !number.MatchString(s)
}

package toxedit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"warren/tox"
	"warren/tox/jsonpatch"
)

// The grammar of instructions parsed without a model (English, case-insensitive, an optional
// leading "please" and trailing full stop):
//
//	set|change|update|correct [the] NOAEL [N] [value] to|= VALUE [UNIT]
//	set|change|update|correct [the] DAP|dermal absorption [N] [value] to|= VALUE [%]
//	set|change|update|correct [the] CAS [number] to|= NNNN-NN-N
//	remove|delete|drop [the] statement|reference|NOAEL|DAP|annex entry N
//	remove|delete|drop the first|second|third|fourth|fifth|last statement|reference|NOAEL|DAP|annex entry
//	add [a] [new] reference|citation[:] TEXT
//	add [a] [new] statement[:] TEXT
//
// N counts from 1 ("statement 2" is /statements/1). Without N, NOAEL and DAP need a profile with
// exactly one such entry (a DAP is added when the profile has none); otherwise the instruction is
// ambiguous and goes to the model. UNIT must be one of the schema's units (a few spellings such
// as "mg/kg/day" are understood).
var (
	setRe    = regexp.MustCompile(`(?i)^(?:please\s+)?(?:set|change|update|correct)\s+(?:the\s+)?(noael|dap|dermal absorption|cas(?:\s+number)?)(?:\s+#?(\d+))?(?:\s+value)?\s+(?:to|=)\s+(.+?)$`)
	removeRe = regexp.MustCompile(`(?i)^(?:please\s+)?(?:remove|delete|drop)\s+(?:the\s+)?(?:(first|second|third|fourth|fifth|last)\s+)?(statement|reference|noael|dap|annex entry)(?:\s+(?:#|no\.?\s*|number\s+)?(\d+))?$`)
	addRe    = regexp.MustCompile(`(?i)^(?:please\s+)?add\s+(?:an?\s+|the\s+)?(?:new\s+)?(reference|citation|statement)\s*(?::|-|–)?\s+(.+)$`)
	valueRe  = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(.*)$`)
)

var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}

var sectionOf = map[string]string{"statement": "statements", "reference": "references", "noael": "noael", "dap": "dap",
	"annex entry": "annex_entries", "dermal absorption": "dap"}

// unitAliases maps spellings people type to the schema's units.
var unitAliases = map[string]string{
	"mg/kg bw/d": "mg/kg bw/day", "mg/kg/day": "mg/kg bw/day", "mg/kg/d": "mg/kg bw/day", "mg/kg bw per day": "mg/kg bw/day",
	"mg/kg bw/day": "mg/kg bw/day", "ug/kg bw/day": "µg/kg bw/day", "μg/kg bw/day": "µg/kg bw/day", "ug/kg bw": "µg/kg bw",
	"μg/kg bw": "µg/kg bw", "mg/m3": "mg/m³",
}

func normalUnit(u string) (string, bool) {
	u = strings.TrimSpace(u)
	for _, allowed := range tox.Units {
		if strings.EqualFold(u, allowed) {
			return allowed, true
		}
	}
	if a, ok := unitAliases[strings.ToLower(u)]; ok {
		return a, true
	}
	return "", false
}

// parseInstruction turns an instruction of the grammar above into operations. ok is false when
// the instruction is not of the grammar or is ambiguous for this profile (the model takes it);
// an error means the instruction is clear but can't apply (statement 5 of 2).
func parseInstruction(prof *tox.Profile, instruction string) (ops jsonpatch.Patch, ok bool, err error) {
	full := strings.TrimSpace(instruction)
	s := strings.TrimSpace(strings.TrimSuffix(full, "."))
	if strings.Contains(s, "\n") {
		return nil, false, nil
	}
	if m := setRe.FindStringSubmatch(s); m != nil {
		return parseSet(prof, strings.ToLower(m[1]), m[2], strings.TrimSpace(m[3]))
	}
	if m := removeRe.FindStringSubmatch(s); m != nil {
		section := sectionOf[strings.ToLower(m[2])]
		n := sectionLen(prof, section)
		var i int
		switch {
		case m[1] != "" && m[3] != "":
			return nil, false, nil
		case strings.EqualFold(m[1], "last"):
			i = n
		case m[1] != "":
			i = ordinals[strings.ToLower(m[1])]
		case m[3] != "":
			i, _ = strconv.Atoi(m[3])
		default:
			if n != 1 {
				return nil, false, nil
			}
			i = 1
		}
		if i < 1 || i > n {
			return nil, true, fmt.Errorf("%s %d doesn't exist: the profile has %d (they count from 1)", strings.ToLower(m[2]), i, n)
		}
		return jsonpatch.Patch{guard(prof.INCI), {Op: jsonpatch.OpRemove, Path: fmt.Sprintf("/%s/%d", section, i-1)}}, true, nil
	}
	if m := addRe.FindStringSubmatch(full); m != nil {
		// The text is kept as typed, its full stop too ("Smith et al."); only quotes around
		// it, and a full stop after them, go.
		text := strings.TrimSpace(m[2])
		if t := strings.TrimSuffix(text, "."); strings.HasSuffix(t, `"`) || strings.HasSuffix(t, "'") || strings.HasSuffix(t, "”") {
			text = t
		}
		text = strings.Trim(text, `"'“”`)
		if text == "" {
			return nil, false, nil
		}
		if strings.EqualFold(m[1], "statement") {
			return jsonpatch.Patch{guard(prof.INCI), {Op: jsonpatch.OpAdd, Path: "/statements/-", Value: mustJSON(tox.Statement{Text: text})}}, true, nil
		}
		id := refIDs(prof).next()
		return jsonpatch.Patch{guard(prof.INCI), {Op: jsonpatch.OpAdd, Path: "/references/-", Value: mustJSON(tox.Reference{ID: id, Citation: text})}}, true, nil
	}
	return nil, false, nil
}

func parseSet(prof *tox.Profile, field, num, value string) (jsonpatch.Patch, bool, error) {
	if strings.HasPrefix(field, "cas") {
		if num != "" {
			return nil, false, nil
		}
		if err := tox.ValidCAS(value); err != nil {
			return nil, true, fmt.Errorf("CAS %q: %w", value, err)
		}
		op := jsonpatch.OpReplace
		if prof.CAS == "" {
			op = jsonpatch.OpAdd
		}
		return jsonpatch.Patch{guard(prof.INCI), {Op: op, Path: "/cas", Value: mustJSON(value)}}, true, nil
	}
	vm := valueRe.FindStringSubmatch(value)
	if vm == nil {
		return nil, false, nil
	}
	number, rest := jsonNumber(vm[1]), strings.TrimSpace(vm[2])
	section := sectionOf[field]
	n := sectionLen(prof, section)
	idx := 0
	switch {
	case num != "":
		idx, _ = strconv.Atoi(num)
		if idx < 1 || idx > n {
			return nil, true, fmt.Errorf("%s %d doesn't exist: the profile has %d (they count from 1)", strings.ToUpper(section), idx, n)
		}
	case n == 1:
		idx = 1
	case n == 0 && section == "dap":
		idx = 0
	default:
		return nil, false, nil // which entry? the model decides, and the analyst sees the diff
	}
	ops := jsonpatch.Patch{guard(prof.INCI)}
	if section == "dap" {
		if rest != "" && rest != "%" && !strings.EqualFold(rest, "percent") {
			return nil, false, nil
		}
		if idx == 0 {
			return append(ops, jsonpatch.Operation{Op: jsonpatch.OpAdd, Path: "/dap/-", Value: rawJSON(`{"value":` + number + `}`)}), true, nil
		}
		return append(ops, jsonpatch.Operation{Op: jsonpatch.OpReplace, Path: fmt.Sprintf("/dap/%d/value", idx-1), Value: rawJSON(number)}), true, nil
	}
	ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpReplace, Path: fmt.Sprintf("/noael/%d/value", idx-1), Value: rawJSON(number)})
	if rest != "" {
		unit, ok := normalUnit(rest)
		if !ok {
			return nil, false, nil
		}
		if unit != prof.NOAEL[idx-1].Unit {
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpReplace, Path: fmt.Sprintf("/noael/%d/unit", idx-1), Value: mustJSON(unit)})
		}
	}
	return ops, true, nil
}

func rawJSON(s string) []byte { return []byte(s) }

// jsonNumber writes a number as typed ("050", "007.5") as a JSON number ("50", "7.5"): JSON
// allows no leading zeros.
func jsonNumber(s string) string {
	i, frac, _ := strings.Cut(s, ".")
	i = strings.TrimLeft(i, "0")
	if i == "" {
		i = "0"
	}
	if frac != "" {
		return i + "." + frac
	}
	return i
}

package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxProblems caps the list sent back to the model in a repair round: the first few are
// enough to correct, and a long list only costs tokens.
const maxProblems = 12

// Validate checks a decoded JSON value (numbers as json.Number) against the schema and returns
// one line per problem, each with the path of the offending value ("tasks[2].query: …").
func (s *Schema) Validate(v any) []string {
	var problems []string
	s.validate("$", v, &problems)
	return problems
}

func (s *Schema) validate(path string, v any, problems *[]string) {
	if len(*problems) >= maxProblems {
		return
	}
	add := func(format string, args ...any) {
		*problems = append(*problems, path+": "+fmt.Sprintf(format, args...))
	}
	if len(s.Enum) > 0 && !enumHas(s.Enum, v) {
		add("%s is not one of %s", short(v), enumList(s.Enum))
		return
	}
	switch s.Type {
	case "":
		return
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			add("want an object, got %s", kindOf(v))
			return
		}
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				add("required field %q is missing", name)
			}
		}
		for _, p := range s.Properties {
			if val, ok := obj[p.Name]; ok {
				p.Schema.validate(path+"."+p.Name, val, problems)
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			add("want an array, got %s", kindOf(v))
			return
		}
		if s.MinItems != nil && len(arr) < *s.MinItems {
			add("has %d items, at least %d required", len(arr), *s.MinItems)
		}
		if s.MaxItems != nil && len(arr) > *s.MaxItems {
			add("has %d items, at most %d allowed", len(arr), *s.MaxItems)
		}
		if s.Items != nil {
			for i, item := range arr {
				s.Items.validate(fmt.Sprintf("%s[%d]", path, i), item, problems)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			add("want a string, got %s", kindOf(v))
			return
		}
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			add("is %d characters, at least %d required", n, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add("is %d characters, at most %d allowed", n, *s.MaxLength)
		}
	case "integer", "number":
		num, ok := v.(json.Number)
		if !ok {
			add("want a %s, got %s", s.Type, kindOf(v))
			return
		}
		f, err := num.Float64()
		if err != nil || math.IsInf(f, 0) {
			add("%s is not a usable number", num)
			return
		}
		if s.Type == "integer" && f != math.Trunc(f) {
			add("want a whole number, got %s", num)
			return
		}
		if s.Minimum != nil && f < *s.Minimum {
			add("%s is below the minimum %g", num, *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			add("%s is above the maximum %g", num, *s.Maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			add("want true or false, got %s", kindOf(v))
		}
	}
}

func enumHas(enum []any, v any) bool {
	for _, e := range enum {
		switch ev := e.(type) {
		case string:
			if s, ok := v.(string); ok && s == ev {
				return true
			}
		case float64:
			if n, ok := v.(json.Number); ok {
				if f, err := n.Float64(); err == nil && f == ev {
					return true
				}
			}
		case json.Number:
			if n, ok := v.(json.Number); ok && n == ev {
				return true
			}
		}
	}
	return false
}

func enumList(enum []any) string {
	data, _ := json.Marshal(enum)
	return string(data)
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func short(v any) string {
	data, _ := json.Marshal(v)
	if len(data) > 60 {
		return string(data[:60]) + "…"
	}
	return string(data)
}

// clampNumbers brings every number under a Clamp schema into its bounds, and writes a whole
// number given as 85.0 or 1e2 where an integer is wanted as 85 (encoding/json decodes only
// integer literals into Go integers), in place, and says whether it changed anything.
func (s *Schema) clampNumbers(v any) (any, bool) {
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return v, false
		}
		changed := false
		for _, p := range s.Properties {
			if val, ok := obj[p.Name]; ok {
				if nv, c := p.Schema.clampNumbers(val); c {
					obj[p.Name], changed = nv, true
				}
			}
		}
		return obj, changed
	case "array":
		arr, ok := v.([]any)
		if !ok || s.Items == nil {
			return v, false
		}
		changed := false
		for i, item := range arr {
			if nv, c := s.Items.clampNumbers(item); c {
				arr[i], changed = nv, true
			}
		}
		return arr, changed
	case "number", "integer":
		num, ok := v.(json.Number)
		if !ok {
			return v, false
		}
		f, err := num.Float64()
		if err != nil || math.IsNaN(f) {
			return v, false
		}
		if s.Clamp && s.Minimum != nil && s.Maximum != nil {
			if g, ok := s.clamped(f); ok && g != f {
				f, num = g, json.Number(strconv.FormatFloat(g, 'g', -1, 64))
			}
		}
		if s.Type == "integer" && f == math.Trunc(f) && math.Abs(f) <= 1<<53 && strings.ContainsAny(string(num), ".eE") {
			num = json.Number(strconv.FormatFloat(f, 'f', -1, 64))
		}
		return num, num != v.(json.Number)
	}
	return v, false
}

// clamped reads a score given outside its scale [lo, hi]: a number beyond a bound by no more
// than the scale's width is brought to that bound, and on a 0–1 scale a number above that, up
// to 100, is a percentage. Anything further off is no reading of the scale at all, and is left
// for a repair.
func (s *Schema) clamped(f float64) (float64, bool) {
	lo, hi := *s.Minimum, *s.Maximum
	width := hi - lo
	if lo == 0 && hi == 1 && f > hi+width && f <= 100 {
		f /= 100
	}
	switch {
	case f >= lo && f <= hi:
		return f, true
	case f < lo && f >= lo-width:
		return lo, true
	case f > hi && f <= hi+width:
		return hi, true
	}
	return f, false
}

package tox

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checkShape compares a generically decoded document (json.Decoder with UseNumber) with the Go
// type it is meant to decode into, so that a wrong key or a wrong JSON type is reported with its
// path instead of encoding/json's "unknown field" without one. The allowed keys come from the
// json tags; a `tox:"required"` tag marks keys that must be present.

var profileType = reflect.TypeFor[Profile]()

func checkShape(v any, t reflect.Type, path string) []Problem {
	var probs []Problem
	add := func(format string, args ...any) {
		probs = append(probs, Problem{path, fmt.Sprintf(format, args...)})
	}
	if v == nil {
		add("null is not allowed; leave the key out or give %s", describeType(t))
		return probs
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			add("%s is not allowed; %s", describeValue(v), describeType(t))
			return probs
		}
		fields := jsonFields(t)
		var names []string
		for _, f := range fields {
			names = append(names, f.name)
		}
		for _, key := range sortedKeys(obj) {
			f, ok := findField(fields, key)
			if !ok {
				probs = append(probs, Problem{path + "/" + escapePointer(key),
					fmt.Sprintf("unknown key; allowed: %s", strings.Join(names, ", "))})
				continue
			}
			probs = append(probs, checkShape(obj[key], f.typ, path+"/"+escapePointer(key))...)
		}
		for _, f := range fields {
			if _, present := obj[f.name]; f.required && !present {
				probs = append(probs, Problem{path + "/" + f.name, "missing; required: " + describeType(f.typ)})
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			add("%s is not allowed; %s", describeValue(v), describeType(t))
			return probs
		}
		for i, e := range arr {
			probs = append(probs, checkShape(e, t.Elem(), path+"/"+strconv.Itoa(i))...)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			add("%s is not allowed; a string", describeValue(v))
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			add("%s is not allowed; a number", describeValue(v))
		} else if _, err := n.Float64(); err != nil {
			add("%s is out of range", n)
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			add("%s is not allowed; a whole number", describeValue(v))
		} else if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			add("%s is not allowed; a whole number (no fraction or exponent)", n)
		}
	default:
		panic("tox: checkShape doesn't know " + t.String())
	}
	return probs
}

type jsonField struct {
	name     string
	typ      reflect.Type
	required bool
}

func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, jsonField{name, f.Type, f.Tag.Get("tox") == "required"})
	}
	return out
}

// findField matches a key exactly. encoding/json would also accept "INCI" for "inci" and the
// canonical form would then silently rename it; here such a key is unknown.
func findField(fields []jsonField, key string) (jsonField, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	return jsonField{}, false
}

func describeType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Float64:
		return "a number"
	case reflect.Int:
		return "a whole number"
	}
	return t.String()
}

func describeValue(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return strconv.Quote(x)
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// sortedKeys orders the keys so that the same document always gives the same message.
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

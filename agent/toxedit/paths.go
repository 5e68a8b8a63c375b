package toxedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"warren/tox"
	"warren/tox/jsonpatch"
)

// sections are the profile's lists and the Go type of one entry of each, in the order a
// structured payload applies them (references first, so that new entries can cite them).
var sections = []struct {
	key  string
	elem reflect.Type
}{
	{"references", reflect.TypeFor[tox.Reference]()},
	{"noael", reflect.TypeFor[tox.NOAEL]()},
	{"dap", reflect.TypeFor[tox.DAP]()},
	{"annex_entries", reflect.TypeFor[tox.AnnexEntry]()},
	{"statements", reflect.TypeFor[tox.Statement]()},
}

// sectionElem returns the entry type of a list, or nil when key names no list.
func sectionElem(key string) reflect.Type {
	for _, s := range sections {
		if s.key == key {
			return s.elem
		}
	}
	return nil
}

// fieldKind is the JSON kind a field of an entry takes: "string", "number" or "integer", or ""
// when the entry has no such field.
func fieldKind(elem reflect.Type, name string) string {
	for i := range elem.NumField() {
		f := elem.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag != name {
			continue
		}
		t := f.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.String:
			return "string"
		case reflect.Float64, reflect.Float32:
			return "number"
		case reflect.Int, reflect.Int64:
			return "integer"
		}
	}
	return ""
}

// checkOps validates a patch against the profile schema before it is applied: the structure of
// every operation (jsonpatch.Validate), paths that exist in the schema (the INCI name only in a
// test), and values of the right JSON kind for their path. The whole result is validated after
// applying; this catches a wrong path or kind with a message that names the operation. The
// first added operations are not the author's (an inserted guard): messages number the
// author's operations, from 0.
func checkOps(p jsonpatch.Patch, added int) error {
	if err := jsonpatch.Validate(p); err != nil {
		return jsonpatch.Renumber(err, added)
	}
	var problems []string
	for i, op := range p {
		if err := checkOp(op); err != nil {
			problems = append(problems, fmt.Sprintf("operation %d (%s %s): %v", i-added, op.Op, showPath(op.Path), err))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func showPath(p string) string {
	if p == "" {
		return `"" (whole profile)`
	}
	return p
}

func checkOp(op jsonpatch.Operation) error {
	if err := checkPath(op.Op, op.Path, op.Value); err != nil {
		return err
	}
	if op.Op == jsonpatch.OpMove || op.Op == jsonpatch.OpCopy {
		if err := checkPath(jsonpatch.OpRemove, op.From, nil); err != nil {
			return fmt.Errorf("from: %w", err)
		}
	}
	return nil
}

// checkPath checks that path is a place of the profile schema that op may touch, and that the
// value (when the op carries one) has the JSON kind that place takes.
func checkPath(opName, path string, value json.RawMessage) error {
	ptr, err := jsonpatch.ParsePointer(path)
	if err != nil {
		return err
	}
	if len(ptr) == 0 {
		return fmt.Errorf("an edit can't replace the whole profile; name the field or entry")
	}
	hasValue := len(bytes.TrimSpace(value)) > 0
	switch ptr[0] {
	case "inci":
		if opName != jsonpatch.OpTest || len(ptr) != 1 {
			return fmt.Errorf("the INCI name can't be changed by an edit")
		}
		return wantKind(value, hasValue, "string")
	case "cas":
		if len(ptr) != 1 {
			return fmt.Errorf("/cas is a string and has no members")
		}
		return wantKind(value, hasValue, "string")
	}
	elem := sectionElem(ptr[0])
	if elem == nil {
		return fmt.Errorf("%q is not part of a profile (it has inci, cas, noael, dap, annex_entries, references, statements)", ptr[0])
	}
	switch len(ptr) {
	case 1:
		return wantKind(value, hasValue, "array")
	case 2:
		if err := checkIndex(ptr[1], opName == jsonpatch.OpAdd); err != nil {
			return err
		}
		return wantKind(value, hasValue, "object")
	case 3:
		if err := checkIndex(ptr[1], false); err != nil {
			return err
		}
		kind := fieldKind(elem, ptr[2])
		if kind == "" {
			return fmt.Errorf("a %s entry has no field %q", ptr[0], ptr[2])
		}
		return wantKind(value, hasValue, kind)
	}
	return fmt.Errorf("the path is deeper than any field of a profile")
}

func checkIndex(tok string, dashOK bool) error {
	if tok == "-" {
		if dashOK {
			return nil
		}
		return fmt.Errorf(`"-" (the end of a list) is only for add`)
	}
	if n, err := strconv.Atoi(tok); err != nil || n < 0 || strconv.Itoa(n) != tok {
		return fmt.Errorf("%q is not a list index", tok)
	}
	return nil
}

// wantKind checks the JSON kind of a value; no value is fine (remove, move).
func wantKind(value json.RawMessage, has bool, kind string) error {
	if !has {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the value is not JSON: %w", err)
	}
	got := ""
	switch x := v.(type) {
	case string:
		got = "string"
	case json.Number:
		got = "number"
		if kind == "integer" {
			if _, err := strconv.Atoi(x.String()); err == nil {
				got = "integer"
			}
		}
	case []any:
		got = "array"
	case map[string]any:
		got = "object"
	case bool:
		got = "boolean"
	case nil:
		got = "null"
	}
	if got != kind {
		return fmt.Errorf("the value must be a JSON %s, not %s", kind, got)
	}
	return nil
}

// guard is the test operation every patch starts with: it fails when the patch meets another
// profile. The base version is guarded by the store (tox.Store.Save refuses a stale base).
func guard(inci string) jsonpatch.Operation {
	v, _ := json.Marshal(inci)
	return jsonpatch.Operation{Op: jsonpatch.OpTest, Path: "/inci", Value: v}
}

// hasGuard reports whether a patch tests /inci against the profile's INCI name.
func hasGuard(p jsonpatch.Patch, inci string) bool {
	for _, op := range p {
		if op.Op == jsonpatch.OpTest && op.Path == "/inci" {
			var s string
			if json.Unmarshal(op.Value, &s) == nil && s == inci {
				return true
			}
		}
	}
	return false
}

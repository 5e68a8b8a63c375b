package jsonpatch

import (
	"fmt"
	"strings"
)

// describeWidth bounds each value shown by Describe.
const describeWidth = 40

// Describe returns a one-line human summary of op, e.g.
//
//	replace /noael/0/value: 100 → 200
//	add /references/-: "SCCS/1628/21"
//	remove /dap/1 (was {"source":"SCCS","value":50})
//	move /a → /b
//	test /inci = "CAFFEINE"
//
// doc is the document the operation applies to (before it); it supplies old values for replace
// and remove and may be nil, in which case they are left out. Values are compact JSON cut to a
// readable length.
func Describe(doc []byte, op Operation) string {
	path := showPointer(op.Path)
	val := func() string {
		if !op.HasValue() {
			return "(no value)"
		}
		v, err := decode(op.Value)
		if err != nil {
			return abbrev(string(op.Value), describeWidth)
		}
		return show(v)
	}
	old := func() (string, bool) {
		if len(doc) == 0 {
			return "", false
		}
		root, err := decode(doc)
		if err != nil {
			return "", false
		}
		ptr, err := ParsePointer(op.Path)
		if err != nil {
			return "", false
		}
		v, err := get(root, ptr)
		if err != nil {
			return "", false
		}
		return show(v), true
	}
	switch op.Op {
	case OpAdd:
		if strings.HasSuffix(op.Path, "/-") {
			return fmt.Sprintf("append to %s: %s", showPointer(strings.TrimSuffix(op.Path, "/-")), val())
		}
		return fmt.Sprintf("add %s: %s", path, val())
	case OpRemove:
		if o, ok := old(); ok {
			return fmt.Sprintf("remove %s (was %s)", path, o)
		}
		return "remove " + path
	case OpReplace:
		if o, ok := old(); ok {
			return fmt.Sprintf("replace %s: %s → %s", path, o, val())
		}
		return fmt.Sprintf("replace %s: → %s", path, val())
	case OpMove, OpCopy:
		return fmt.Sprintf("%s %s → %s", op.Op, showPointer(op.From), path)
	case OpTest:
		return fmt.Sprintf("test %s = %s", path, val())
	}
	return fmt.Sprintf("%s %s (unknown op)", op.Op, path)
}

// show renders a decoded value as compact JSON cut to describeWidth runes.
func show(v any) string {
	b, err := encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return abbrev(string(b), describeWidth)
}

// abbrev cuts s to n runes, ending in "…" when cut.
func abbrev(s string, n int) string {
	return fit(strings.TrimSpace(s), n)
}

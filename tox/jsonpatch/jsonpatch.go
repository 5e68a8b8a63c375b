// Package jsonpatch is warren's JSON Patch (RFC 6902) engine: it applies patches atomically,
// validates them structurally, computes a patch between two documents and renders readable
// line diffs and one-line summaries of operations for the toxicology diff desk.
//
// JSON Pointers follow RFC 6901 (~0 and ~1 escapes, "-" for the end of an array in add).
// Array indices are decimal without leading zeros. The test operation compares with deep JSON
// equality in which numbers are compared by value (1 and 1.0 are equal).
//
// Documents are decoded into plain Go values and encoded again, so Apply's output has object
// members in sorted key order and no insignificant whitespace; numbers keep their original text.
package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Operation names.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
	OpCopy    = "copy"
	OpTest    = "test"
)

// Sentinel errors; every error from this package wraps one of them (test with errors.Is).
var (
	// ErrInvalidOperation: the operation itself is malformed (unknown op, missing member,
	// bad pointer syntax, value not JSON).
	ErrInvalidOperation = errors.New("invalid operation")
	// ErrNotFound: a location the operation needs does not exist.
	ErrNotFound = errors.New("location does not exist")
	// ErrTestFailed: a test operation found a different value.
	ErrTestFailed = errors.New("test failed")
	// ErrInvalidDocument: the document is not a single valid JSON value.
	ErrInvalidDocument = errors.New("invalid JSON document")
)

// Operation is one RFC 6902 operation.
//
// Value holds the raw JSON value. A JSON null is kept as the four bytes `null` and counts as
// present (add with value null is valid); a nil or empty Value means "no value member". Path and
// From are JSON Pointers; "" is the whole document. When decoding, a missing or non-string
// "path" (and "from" for move and copy) is an error, because "" is a real location.
type Operation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Patch is a JSON Patch document: operations applied in order.
type Patch []Operation

// HasValue reports whether the operation carries a value member (JSON null included).
func (o Operation) HasValue() bool { return len(bytes.TrimSpace(o.Value)) > 0 }

// needsFrom reports whether op takes a "from" member.
func needsFrom(op string) bool { return op == OpMove || op == OpCopy }

// needsValue reports whether op takes a "value" member.
func needsValue(op string) bool { return op == OpAdd || op == OpReplace || op == OpTest }

// UnmarshalJSON decodes one operation, keeping a null value as present and rejecting a missing
// or non-string path (and from, for move and copy). Unknown members are ignored (RFC 6902 §4).
func (o *Operation) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return fmt.Errorf("%w: an operation must be a JSON object", ErrInvalidOperation)
	}
	var out Operation
	str := func(name string, required bool, dst *string) error {
		raw, ok := m[name]
		if !ok {
			if required {
				return fmt.Errorf("%w: missing %q member", ErrInvalidOperation, name)
			}
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return fmt.Errorf("%w: %q must be a string, got %s", ErrInvalidOperation, name, abbrev(string(raw), 40))
		}
		return nil
	}
	if err := str("op", true, &out.Op); err != nil {
		return err
	}
	if err := str("path", true, &out.Path); err != nil {
		return err
	}
	if err := str("from", needsFrom(out.Op), &out.From); err != nil {
		return err
	}
	if raw, ok := m["value"]; ok {
		out.Value = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	}
	*o = out
	return nil
}

// MarshalJSON encodes the operation with members in the order op, path, from, value. "from" is
// always written for move and copy (even when it is "", the whole document) and value whenever
// present, JSON null included.
func (o Operation) MarshalJSON() ([]byte, error) {
	type wire struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  *string         `json:"from,omitempty"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	w := wire{Op: o.Op, Path: o.Path}
	if needsFrom(o.Op) || o.From != "" {
		from := o.From
		w.From = &from
	}
	if o.HasValue() {
		w.Value = o.Value
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// UnmarshalJSON decodes a patch, naming the index of a malformed operation.
func (p *Patch) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil || raws == nil {
		return fmt.Errorf("jsonpatch: %w: a patch must be a JSON array of operations", ErrInvalidOperation)
	}
	out := make(Patch, len(raws))
	for i, raw := range raws {
		if err := out[i].UnmarshalJSON(raw); err != nil {
			return &OpError{Index: i, Op: peekOp(raw), Err: err, decoding: true}
		}
	}
	*p = out
	return nil
}

// peekOp extracts the "op" member of a raw operation for error messages, or "".
func peekOp(raw []byte) string {
	var v struct {
		Op any `json:"op"`
	}
	_ = json.Unmarshal(raw, &v)
	s, _ := v.Op.(string)
	return s
}

// ParsePatch decodes a JSON Patch document (a JSON array of operations) and validates it.
func ParsePatch(data []byte) (Patch, error) {
	var p Patch
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if err := Validate(p); err != nil {
		return nil, err
	}
	return p, nil
}

// OpError reports which operation of a patch failed and why.
type OpError struct {
	Index int    // position of the operation in the patch, from 0
	Op    string // the op member ("" when missing)
	Path  string
	From  string // set for move and copy
	Err   error

	decoding bool // failed while decoding: Path and From are not known
}

func (e *OpError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "jsonpatch: operation %d", e.Index)
	switch {
	case e.decoding && e.Op != "":
		fmt.Fprintf(&b, " (%s)", e.Op)
	case e.Op == "":
		b.WriteString(" (no op)")
	case needsFrom(e.Op):
		fmt.Fprintf(&b, " (%s %s → %s)", e.Op, showPointer(e.From), showPointer(e.Path))
	default:
		fmt.Fprintf(&b, " (%s %s)", e.Op, showPointer(e.Path))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *OpError) Unwrap() error { return e.Err }

// Renumber shifts the operation numbers of the *OpErrors in err (one, or several joined) down
// by n and returns err: for a patch whose first n operations were put before the ones its
// author wrote (such as a guard test), so that messages number the author's operations.
func Renumber(err error, n int) error {
	if n == 0 {
		return err
	}
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case *OpError:
			x.Index -= n
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	return err
}

// showPointer renders a pointer for messages; the root is shown as "\"\" (whole document)".
func showPointer(p string) string {
	if p == "" {
		return `"" (whole document)`
	}
	return p
}

func opError(i int, op Operation, err error) *OpError {
	e := &OpError{Index: i, Op: op.Op, Path: op.Path, Err: err}
	if needsFrom(op.Op) {
		e.From = op.From
	}
	return e
}

// Validate checks the structure of every operation: a known op, valid JSON Pointers in path
// (and from for move and copy), a value for add, replace and test that is valid JSON, and that
// move does not move a location into its own child. It returns all problems joined, each an
// *OpError.
func Validate(p Patch) error {
	var errs []error
	for i, op := range p {
		if err := validateOp(op); err != nil {
			errs = append(errs, opError(i, op, err))
		}
	}
	return errors.Join(errs...)
}

func validateOp(op Operation) error {
	switch op.Op {
	case OpAdd, OpRemove, OpReplace, OpMove, OpCopy, OpTest:
	case "":
		return fmt.Errorf("%w: missing \"op\"", ErrInvalidOperation)
	default:
		return fmt.Errorf("%w: unknown op %q (want add, remove, replace, move, copy or test)", ErrInvalidOperation, op.Op)
	}
	path, err := ParsePointer(op.Path)
	if err != nil {
		return fmt.Errorf("%w: path: %v", ErrInvalidOperation, err)
	}
	if needsFrom(op.Op) {
		from, err := ParsePointer(op.From)
		if err != nil {
			return fmt.Errorf("%w: from: %v", ErrInvalidOperation, err)
		}
		if op.Op == OpMove && len(from) < len(path) && from.isPrefixOf(path) {
			return fmt.Errorf("%w: cannot move %s into its own child %s", ErrInvalidOperation, showPointer(op.From), op.Path)
		}
	}
	if needsValue(op.Op) {
		if !op.HasValue() {
			return fmt.Errorf("%w: missing \"value\" (use null for a JSON null)", ErrInvalidOperation)
		}
		if !json.Valid(op.Value) {
			return fmt.Errorf("%w: value is not valid JSON: %s", ErrInvalidOperation, abbrev(string(op.Value), 40))
		}
	}
	return nil
}

package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
)

// Apply applies p to doc and returns the new document. It is atomic: the patch is validated
// first and applied to a private decoded copy, so on any error doc is untouched and no partial
// result is returned. The error is an *OpError naming the failing operation (index, op, path)
// and why.
func Apply(doc []byte, p Patch) ([]byte, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	root, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("jsonpatch: document: %w", err)
	}
	root, err = applyTree(root, p)
	if err != nil {
		return nil, err
	}
	return encode(root)
}

// applyTree applies an already validated patch to a decoded tree that the caller owns.
func applyTree(root any, p Patch) (any, error) {
	for i, op := range p {
		var err error
		root, err = applyOp(root, op)
		if err != nil {
			return nil, opError(i, op, err)
		}
	}
	return root, nil
}

func applyOp(root any, op Operation) (any, error) {
	path, _ := ParsePointer(op.Path) // validated
	switch op.Op {
	case OpAdd, OpReplace, OpTest:
		val, err := decode(op.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: value: %v", ErrInvalidOperation, err)
		}
		switch op.Op {
		case OpAdd:
			return add(root, path, val)
		case OpReplace:
			return replace(root, path, val)
		default:
			got, err := get(root, path)
			if err != nil {
				return nil, err
			}
			if !Equal(got, val) {
				return nil, fmt.Errorf("%w: %s is %s, expected %s", ErrTestFailed, showPointer(op.Path), show(got), show(val))
			}
			return root, nil
		}
	case OpRemove:
		root, _, err := remove(root, path)
		return root, err
	case OpMove:
		from, _ := ParsePointer(op.From)
		if slices.Equal(from, path) {
			_, err := get(root, from)
			return root, err
		}
		root, val, err := remove(root, from)
		if err != nil {
			return nil, err
		}
		return add(root, path, val)
	case OpCopy:
		from, _ := ParsePointer(op.From)
		val, err := get(root, from)
		if err != nil {
			return nil, err
		}
		return add(root, path, deepCopy(val))
	}
	return nil, fmt.Errorf("%w: unknown op %q", ErrInvalidOperation, op.Op)
}

// get returns the value at path.
func get(root any, path Pointer) (any, error) {
	cur := root
	for i, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, missingMember(path[:i], tok)
			}
			cur = v
		case []any:
			idx, err := existingIndex(c, path[:i], tok)
			if err != nil {
				return nil, err
			}
			cur = c[idx]
		default:
			return nil, notContainer(path[:i], cur, path[:i+1])
		}
	}
	return cur, nil
}

// edit walks to the parent of path and lets fn change the parent container, which it returns
// (arrays may be reallocated); the changed container is stored back into its own parent.
func edit(node any, path Pointer, depth int, fn func(parent any, at Pointer) (any, error)) (any, error) {
	if depth == len(path)-1 {
		return fn(node, path[:depth])
	}
	tok := path[depth]
	switch c := node.(type) {
	case map[string]any:
		child, ok := c[tok]
		if !ok {
			return nil, missingMember(path[:depth], tok)
		}
		nc, err := edit(child, path, depth+1, fn)
		if err != nil {
			return nil, err
		}
		c[tok] = nc
		return c, nil
	case []any:
		idx, err := existingIndex(c, path[:depth], tok)
		if err != nil {
			return nil, err
		}
		nc, err := edit(c[idx], path, depth+1, fn)
		if err != nil {
			return nil, err
		}
		c[idx] = nc
		return c, nil
	default:
		return nil, notContainer(path[:depth], node, path[:depth+1])
	}
}

func add(root any, path Pointer, val any) (any, error) {
	if len(path) == 0 {
		return val, nil
	}
	last := path[len(path)-1]
	return edit(root, path, 0, func(parent any, at Pointer) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			c[last] = val
			return c, nil
		case []any:
			idx, dash, err := arrayIndex(last)
			if err != nil {
				return nil, notFound("cannot add %s: %s is an array, and %v", path, place(at), err)
			}
			if dash {
				idx = len(c)
			}
			if idx > len(c) {
				return nil, notFound("cannot add at index %d: the array at %s has %d elements, so the largest index add accepts is %d (or \"-\" to append)",
					idx, place(at), len(c), len(c))
			}
			return slices.Insert(c, idx, val), nil
		default:
			return nil, notContainer(at, parent, path)
		}
	})
}

func replace(root any, path Pointer, val any) (any, error) {
	if len(path) == 0 {
		return val, nil
	}
	last := path[len(path)-1]
	return edit(root, path, 0, func(parent any, at Pointer) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			if _, ok := c[last]; !ok {
				return nil, missingMember(at, last)
			}
			c[last] = val
			return c, nil
		case []any:
			idx, err := existingIndex(c, at, last)
			if err != nil {
				return nil, err
			}
			c[idx] = val
			return c, nil
		default:
			return nil, notContainer(at, parent, path)
		}
	})
}

func remove(root any, path Pointer) (any, any, error) {
	if len(path) == 0 {
		return nil, nil, fmt.Errorf("%w: cannot remove the whole document", ErrInvalidOperation)
	}
	last := path[len(path)-1]
	var removed any
	root, err := edit(root, path, 0, func(parent any, at Pointer) (any, error) {
		switch c := parent.(type) {
		case map[string]any:
			v, ok := c[last]
			if !ok {
				return nil, missingMember(at, last)
			}
			removed = v
			delete(c, last)
			return c, nil
		case []any:
			idx, err := existingIndex(c, at, last)
			if err != nil {
				return nil, err
			}
			removed = c[idx]
			return slices.Delete(c, idx, idx+1), nil
		default:
			return nil, notContainer(at, parent, path)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return root, removed, nil
}

// existingIndex parses tok as the index of an existing element of arr (at is the array's path).
func existingIndex(arr []any, at Pointer, tok string) (int, error) {
	full := append(slices.Clip(at), tok).String()
	idx, dash, err := arrayIndex(tok)
	if err != nil {
		return 0, notFound("%s does not exist: %s is an array, and %v", full, place(at), err)
	}
	if dash {
		return 0, notFound("%s does not exist: \"-\" means after the last element of the array at %s (only add may use it)", full, place(at))
	}
	if idx >= len(arr) {
		return 0, notFound("%s does not exist: index %d is out of range, the array at %s has %d elements", full, idx, place(at), len(arr))
	}
	return idx, nil
}

func missingMember(at Pointer, tok string) error {
	return notFound("%s does not exist: the object at %s has no member %q", append(slices.Clip(at), tok).String(), place(at), tok)
}

func notContainer(at Pointer, v any, want Pointer) error {
	return notFound("%s does not exist: the value at %s is %s, not an object or array", want.String(), place(at), kind(v))
}

// place names a location in messages: "the document root" or the pointer.
func place(at Pointer) string {
	if len(at) == 0 {
		return "the document root"
	}
	return at.String()
}

// kind names the JSON type of a decoded value with an article, for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// decode parses exactly one JSON value, keeping numbers as json.Number.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty input", ErrInvalidDocument)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: unexpected data after the JSON value", ErrInvalidDocument)
	}
	return v, nil
}

// encode renders a decoded tree compactly with sorted keys and without HTML escaping.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("jsonpatch: encoding result: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		for k, x := range c {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(c))
		for i, x := range c {
			s[i] = deepCopy(x)
		}
		return s
	}
	return v
}

// Equal reports deep JSON equality of two decoded values (as produced by a json.Decoder with
// UseNumber, or plain float64 numbers): object member order is irrelevant and numbers are equal
// when their values are (1, 1.0 and 1e0 are equal).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number, float64:
		return numbersEqual(a, b)
	default:
		return a == b
	}
}

// EqualJSON reports whether two JSON texts are deeply equal in the sense of Equal.
func EqualJSON(a, b []byte) (bool, error) {
	x, err := decode(a)
	if err != nil {
		return false, err
	}
	y, err := decode(b)
	if err != nil {
		return false, err
	}
	return Equal(x, y), nil
}

func numText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		return big.NewFloat(n).Text('g', -1), true
	}
	return "", false
}

func numbersEqual(a, b any) bool {
	sa, ok1 := numText(a)
	sb, ok2 := numText(b)
	if !ok1 || !ok2 {
		return false
	}
	if sa == sb {
		return true
	}
	fa, _, err1 := big.ParseFloat(sa, 10, 256, big.ToNearestEven)
	fb, _, err2 := big.ParseFloat(sb, 10, 256, big.ToNearestEven)
	if err1 != nil || err2 != nil {
		return false
	}
	return fa.Cmp(fb) == 0
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// notFoundError wraps ErrNotFound without repeating its text: the message already says what
// does not exist.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

func notFound(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}

package jsonpatch

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Diff returns a patch that turns document a into document b (Apply(a, Diff(a, b)) is JSON-equal
// to b). Objects are compared member by member (remove, then replace or recurse, then add, in key
// order). Arrays of equal length are compared element by element; when the lengths differ and
// the change is a single run of inserted or removed elements it is expressed as adds or removes,
// otherwise the common part is compared element by element and the tail appended or removed,
// unless replacing the whole array is shorter. Equal documents give an empty (non-nil) patch.
func Diff(a, b []byte) (Patch, error) {
	x, err := decode(a)
	if err != nil {
		return nil, fmt.Errorf("jsonpatch: diff: first document: %w", err)
	}
	y, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("jsonpatch: diff: second document: %w", err)
	}
	p := Patch{}
	if err := diffValue(&p, "", x, y); err != nil {
		return nil, err
	}
	return p, nil
}

func raw(v any) (json.RawMessage, error) {
	b, err := encode(v)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

func emit(p *Patch, op, path string, v any) error {
	o := Operation{Op: op, Path: path}
	if op != OpRemove {
		r, err := raw(v)
		if err != nil {
			return err
		}
		o.Value = r
	}
	*p = append(*p, o)
	return nil
}

func diffValue(p *Patch, path string, x, y any) error {
	if Equal(x, y) {
		return nil
	}
	switch xv := x.(type) {
	case map[string]any:
		if yv, ok := y.(map[string]any); ok {
			return diffObject(p, path, xv, yv)
		}
	case []any:
		if yv, ok := y.([]any); ok {
			return diffArray(p, path, xv, yv)
		}
	}
	return emit(p, OpReplace, path, y)
}

func diffObject(p *Patch, path string, x, y map[string]any) error {
	for _, k := range sortedKeys(x) {
		if _, ok := y[k]; !ok {
			if err := emit(p, OpRemove, path+"/"+EscapeToken(k), nil); err != nil {
				return err
			}
		}
	}
	for _, k := range sortedKeys(x) {
		if yv, ok := y[k]; ok {
			if err := diffValue(p, path+"/"+EscapeToken(k), x[k], yv); err != nil {
				return err
			}
		}
	}
	for _, k := range sortedKeys(y) {
		if _, ok := x[k]; !ok {
			if err := emit(p, OpAdd, path+"/"+EscapeToken(k), y[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func diffArray(p *Patch, path string, x, y []any) error {
	at := func(i int) string { return path + "/" + strconv.Itoa(i) }
	// One contiguous run inserted or removed: common prefix and suffix cover the shorter array.
	if len(x) != len(y) {
		short := min(len(x), len(y))
		pre := 0
		for pre < short && Equal(x[pre], y[pre]) {
			pre++
		}
		suf := 0
		for suf < short-pre && Equal(x[len(x)-1-suf], y[len(y)-1-suf]) {
			suf++
		}
		if pre+suf == short {
			if len(x) > len(y) {
				for i := len(x) - suf - 1; i >= pre; i-- {
					if err := emit(p, OpRemove, at(i), nil); err != nil {
						return err
					}
				}
				return nil
			}
			for i := pre; i < len(y)-suf; i++ {
				if err := emit(p, OpAdd, at(i), y[i]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var elem Patch
	common := min(len(x), len(y))
	for i := 0; i < common; i++ {
		if err := diffValue(&elem, at(i), x[i], y[i]); err != nil {
			return err
		}
	}
	for i := len(x) - 1; i >= len(y); i-- {
		if err := emit(&elem, OpRemove, at(i), nil); err != nil {
			return err
		}
	}
	for i := len(x); i < len(y); i++ {
		if err := emit(&elem, OpAdd, path+"/-", y[i]); err != nil {
			return err
		}
	}
	whole := Patch{}
	if err := emit(&whole, OpReplace, path, y); err != nil {
		return err
	}
	if size(elem) > size(whole) {
		elem = whole
	}
	*p = append(*p, elem...)
	return nil
}

func size(p Patch) int {
	b, err := json.Marshal(p)
	if err != nil {
		return 1 << 30
	}
	return len(b)
}

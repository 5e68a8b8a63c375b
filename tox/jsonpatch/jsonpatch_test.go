package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustPatch(t *testing.T, s string) Patch {
	t.Helper()
	var p Patch
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatalf("decoding patch %s: %v", s, err)
	}
	return p
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	eq, err := EqualJSON(got, []byte(want))
	if err != nil {
		t.Fatalf("comparing %s with %s: %v", got, want, err)
	}
	if !eq {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestApplyIsAtomic(t *testing.T) {
	doc := []byte(`{"inci":"CAFFEINE","noael":[{"value":100,"unit":"mg/kg bw/day"}]}`)
	orig := bytes.Clone(doc)
	p := mustPatch(t, `[
		{"op":"replace","path":"/noael/0/value","value":200},
		{"op":"add","path":"/dap","value":[]},
		{"op":"remove","path":"/noael/3"}
	]`)
	out, err := Apply(doc, p)
	if err == nil {
		t.Fatalf("want an error, got %s", out)
	}
	if out != nil {
		t.Errorf("failed Apply returned a partial document %s", out)
	}
	if !bytes.Equal(doc, orig) {
		t.Errorf("input changed: %s", doc)
	}
	var oe *OpError
	if !errors.As(err, &oe) {
		t.Fatalf("error %T is not an *OpError: %v", err, err)
	}
	if oe.Index != 2 || oe.Op != "remove" || oe.Path != "/noael/3" {
		t.Errorf("OpError = %+v, want index 2, remove /noael/3", oe)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("error does not wrap ErrNotFound: %v", err)
	}
	want := `jsonpatch: operation 2 (remove /noael/3): /noael/3 does not exist: index 3 is out of range, the array at /noael has 1 elements`
	if err.Error() != want {
		t.Errorf("message\n got %q\nwant %q", err, want)
	}
	// The same document patched without the bad operation works, and the input still holds.
	out, err = Apply(doc, p[:2])
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, out, `{"inci":"CAFFEINE","noael":[{"value":200,"unit":"mg/kg bw/day"}],"dap":[]}`)
	if !bytes.Equal(doc, orig) {
		t.Errorf("input changed by a successful Apply: %s", doc)
	}
}

func TestCopyIsDeep(t *testing.T) {
	out, err := Apply([]byte(`{"a":{"b":[1]}}`), mustPatch(t, `[
		{"op":"copy","from":"/a","path":"/c"},
		{"op":"add","path":"/c/b/-","value":2}]`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, out, `{"a":{"b":[1]},"c":{"b":[1,2]}}`)
}

func TestNullValues(t *testing.T) {
	var op Operation
	if err := json.Unmarshal([]byte(`{"op":"add","path":"/a","value":null}`), &op); err != nil {
		t.Fatal(err)
	}
	if !op.HasValue() || string(op.Value) != "null" {
		t.Fatalf("null value lost: HasValue=%v Value=%q", op.HasValue(), op.Value)
	}
	b, err := json.Marshal(op)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"op":"add","path":"/a","value":null}` {
		t.Errorf("marshal = %s", b)
	}
	out, err := Apply([]byte(`{}`), Patch{op})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"a":null}` {
		t.Errorf("add null: got %s", out)
	}
	// Built in Go: RawMessage("null") is a present null.
	out, err = Apply([]byte(`{"a":1}`), Patch{{Op: OpReplace, Path: "/a", Value: json.RawMessage("null")}})
	if err != nil || string(out) != `{"a":null}` {
		t.Errorf("replace with null: %s, %v", out, err)
	}
	// test against null: present null equals null, not a missing member.
	if _, err := Apply([]byte(`{"a":null}`), Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage("null")}}); err != nil {
		t.Errorf("test null: %v", err)
	}
	if _, err := Apply([]byte(`{"a":0}`), Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage("null")}}); !errors.Is(err, ErrTestFailed) {
		t.Errorf("test 0 == null: want ErrTestFailed, got %v", err)
	}
	// A missing value is not null.
	var missing Operation
	if err := json.Unmarshal([]byte(`{"op":"add","path":"/a"}`), &missing); err != nil {
		t.Fatal(err)
	}
	if missing.HasValue() {
		t.Errorf("missing value reported as present")
	}
	err = Validate(Patch{missing})
	if !errors.Is(err, ErrInvalidOperation) || !strings.Contains(err.Error(), `missing "value"`) {
		t.Errorf("missing value: got %v", err)
	}
}

func TestOperationJSONRoundTrip(t *testing.T) {
	p := Patch{
		{Op: OpCopy, From: "", Path: "/backup"}, // from the whole document: "from" must survive
		{Op: OpMove, From: "/a~1b", Path: "/c"},
		{Op: OpRemove, Path: "/x"},
		{Op: OpTest, Path: "/t", Value: json.RawMessage(`{"x":null}`)},
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"copy","path":"/backup","from":""},{"op":"move","path":"/c","from":"/a~1b"},{"op":"remove","path":"/x"},{"op":"test","path":"/t","value":{"x":null}}]`
	if string(b) != want {
		t.Errorf("marshal\n got %s\nwant %s", b, want)
	}
	back, err := ParsePatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back) != fmt.Sprint(p) {
		t.Errorf("round trip: %v != %v", back, p)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ patch, want string }{
		{`{"op":"add"}`, `a patch must be a JSON array`},
		{`[{"op":"add","value":1}]`, `jsonpatch: operation 0 (add): invalid operation: missing "path" member`},
		{`[{"op":"add","path":null,"value":1}]`, `jsonpatch: operation 0 (add): invalid operation: "path" must be a string, got null`},
		{`[{"op":"test","path":"/a","value":1},{"op":"move","path":"/b"}]`, `jsonpatch: operation 1 (move): invalid operation: missing "from" member`},
		{`[{"op":"add","path":7,"value":1}]`, `"path" must be a string, got 7`},
		{`[3]`, `an operation must be a JSON object`},
	} {
		var p Patch
		err := json.Unmarshal([]byte(tc.patch), &p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.patch, err, tc.want)
		}
		if !errors.Is(err, ErrInvalidOperation) {
			t.Errorf("%s: %v does not wrap ErrInvalidOperation", tc.patch, err)
		}
	}
}

func TestValidate(t *testing.T) {
	good := mustPatch(t, `[{"op":"add","path":"","value":{}},{"op":"copy","from":"","path":"/x"},{"op":"move","from":"/a","path":"/a"},{"op":"remove","path":"/m~0n/~1"}]`)
	if err := Validate(good); err != nil {
		t.Errorf("valid patch rejected: %v", err)
	}
	bad := Patch{
		{Op: "spam", Path: "/a"},
		{Op: "", Path: "/a"},
		{Op: OpAdd, Path: "a", Value: json.RawMessage(`1`)},
		{Op: OpRemove, Path: "/a~2b"},
		{Op: OpMove, From: "/a", Path: "/a/b"},
		{Op: OpCopy, From: "/a~", Path: "/b"},
		{Op: OpReplace, Path: "/a", Value: json.RawMessage(`{nope`)},
		{Op: OpTest, Path: "/a"},
	}
	err := Validate(bad)
	if err == nil {
		t.Fatal("invalid patch accepted")
	}
	msg := err.Error()
	for i, want := range []string{
		`operation 0 (spam /a): invalid operation: unknown op "spam"`,
		`operation 1 (no op): invalid operation: missing "op"`,
		`operation 2 (add a): invalid operation: path: JSON Pointer "a" must be empty or start with "/"`,
		`operation 3 (remove /a~2b): invalid operation: path: JSON Pointer "/a~2b" has a "~" not followed by 0 or 1`,
		`operation 4 (move /a → /a/b): invalid operation: cannot move /a into its own child /a/b`,
		`operation 5 (copy /a~ → /b): invalid operation: from:`,
		`operation 6 (replace /a): invalid operation: value is not valid JSON: {nope`,
		`operation 7 (test /a): invalid operation: missing "value"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("problem %d missing: want %q in\n%s", i, want, msg)
		}
	}
	if n := strings.Count(msg, "\n") + 1; n != len(bad) {
		t.Errorf("%d problems reported, want %d", n, len(bad))
	}
}

func TestApplyErrors(t *testing.T) {
	doc := `{"inci":"CAFFEINE","noael":[{"value":100}],"cas":"58-08-2"}`
	for _, tc := range []struct {
		patch string
		is    error
		want  string
	}{
		{`[{"op":"test","path":"/inci","value":"NIACINAMIDE"}]`, ErrTestFailed,
			`jsonpatch: operation 0 (test /inci): test failed: /inci is "CAFFEINE", expected "NIACINAMIDE"`},
		{`[{"op":"add","path":"/noael/0/value/x","value":1}]`, ErrNotFound,
			`jsonpatch: operation 0 (add /noael/0/value/x): /noael/0/value/x does not exist: the value at /noael/0/value is a number, not an object or array`},
		{`[{"op":"replace","path":"/noael/-","value":1}]`, ErrNotFound,
			`jsonpatch: operation 0 (replace /noael/-): /noael/- does not exist: "-" means after the last element of the array at /noael (only add may use it)`},
		{`[{"op":"add","path":"/noael/01","value":1}]`, ErrNotFound,
			`jsonpatch: operation 0 (add /noael/01): cannot add /noael/01: /noael is an array, and array index "01" has a leading zero`},
		{`[{"op":"move","from":"/cas","path":"/missing/cas"}]`, ErrNotFound,
			`jsonpatch: operation 0 (move /cas → /missing/cas): /missing does not exist: the object at the document root has no member "missing"`},
		{`[{"op":"remove","path":""}]`, ErrInvalidOperation,
			`jsonpatch: operation 0 (remove "" (whole document)): invalid operation: cannot remove the whole document`},
	} {
		out, err := Apply([]byte(doc), mustPatch(t, tc.patch))
		if err == nil {
			t.Errorf("%s: want error, got %s", tc.patch, out)
			continue
		}
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: %v does not wrap %v", tc.patch, err, tc.is)
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.patch, err, tc.want)
		}
	}
	if _, err := Apply([]byte(`{"a":1} {"b":2}`), nil); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("two documents: got %v", err)
	}
}

func TestApplyOutput(t *testing.T) {
	out, err := Apply([]byte(`{"z": 1.50, "a": "x<y&z", "m": [1e3]}`), mustPatch(t, `[{"op":"move","from":"/m/0","path":"/n"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"x<y&z","m":[],"n":1e3,"z":1.50}`; string(out) != want {
		t.Errorf("got %s, want %s (sorted keys, numbers verbatim, no HTML escaping)", out, want)
	}
}

func TestEqualNumbers(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true}, {`1`, `1e0`, true}, {`0.1`, `0.10`, true}, {`-0`, `0`, true},
		{`100`, `1E2`, true}, {`1`, `2`, false}, {`1`, `"1"`, false}, {`null`, `false`, false},
		{`{"a":[1,{"b":2.0}]}`, `{"a":[1.0,{"b":2}]}`, true}, {`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
	} {
		got, err := EqualJSON([]byte(tc.a), []byte(tc.b))
		if err != nil || got != tc.eq {
			t.Errorf("EqualJSON(%s, %s) = %v, %v; want %v", tc.a, tc.b, got, err, tc.eq)
		}
	}
}

func TestPointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		toks []string
	}{
		{"", []string{}}, {"/", []string{""}}, {"/a~1b/~01/m~0n", []string{"a/b", "~1", "m~n"}}, {"/foo/", []string{"foo", ""}},
	} {
		p, err := ParsePointer(tc.in)
		if err != nil || fmt.Sprint([]string(p)) != fmt.Sprint(tc.toks) {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q", tc.in, []string(p), err, tc.toks)
		}
		if p.String() != tc.in {
			t.Errorf("String() = %q, want %q", p.String(), tc.in)
		}
	}
	for _, bad := range []string{"a", "/~", "/~2", "/a~"} {
		if _, err := ParsePointer(bad); err == nil {
			t.Errorf("ParsePointer(%q) accepted", bad)
		}
	}
}

func TestDiffExamples(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"a":1}`, `{"a":1.0}`, `[]`},
		{`{"a":1,"b":2}`, `{"b":3,"c":4}`, `[{"op":"remove","path":"/a"},{"op":"replace","path":"/b","value":3},{"op":"add","path":"/c","value":4}]`},
		{`{"noael":[{"v":1},{"v":2},{"v":3}]}`, `{"noael":[{"v":1},{"v":3}]}`, `[{"op":"remove","path":"/noael/1"}]`},
		{`{"refs":["a","b"]}`, `{"refs":["a","x","b"]}`, `[{"op":"add","path":"/refs/1","value":"x"}]`},
		{`{"refs":["a","b"]}`, `{"refs":["a","b","c","d"]}`, `[{"op":"add","path":"/refs/2","value":"c"},{"op":"add","path":"/refs/3","value":"d"}]`},
		{`{"a/b":{"m~n":1}}`, `{"a/b":{"m~n":2}}`, `[{"op":"replace","path":"/a~1b/m~0n","value":2}]`},
		{`[1,2,3]`, `{"x":[1,2,3]}`, `[{"op":"replace","path":"","value":{"x":[1,2,3]}}]`},
		{`{"a":[1,2,3]}`, `{"a":[4,5]}`, `[{"op":"replace","path":"/a","value":[4,5]}]`},
	} {
		p, err := Diff([]byte(tc.a), []byte(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(p)
		if string(got) != tc.want {
			t.Errorf("Diff(%s, %s)\n got %s\nwant %s", tc.a, tc.b, got, tc.want)
		}
		out, err := Apply([]byte(tc.a), p)
		if err != nil {
			t.Fatalf("applying %s: %v", got, err)
		}
		assertJSON(t, out, tc.b)
	}
}

// randomValue builds a random JSON value; keys include pointer-special characters.
func randomValue(r *rand.Rand, depth int) any {
	keys := []string{"a", "b", "noael", "a/b", "m~n", "", "0", "-", "~1", "x y"}
	n := r.IntN(10)
	if depth <= 0 {
		n = r.IntN(6)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return json.Number(fmt.Sprint(r.IntN(300)))
	case 3:
		return json.Number(fmt.Sprintf("%d.%d", r.IntN(100), r.IntN(10)))
	case 4, 5:
		return keys[r.IntN(len(keys))]
	case 6, 7:
		s := make([]any, r.IntN(5))
		for i := range s {
			s[i] = randomValue(r, depth-1)
		}
		return s
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[keys[r.IntN(len(keys))]] = randomValue(r, depth-1)
		}
		return m
	}
}

// mutate returns a changed deep copy of v.
func mutate(r *rand.Rand, v any, depth int) any {
	if r.IntN(8) == 0 || depth <= 0 {
		return randomValue(r, 2)
	}
	switch c := v.(type) {
	case map[string]any:
		m := deepCopy(c).(map[string]any)
		for k := range m {
			switch r.IntN(4) {
			case 0:
				delete(m, k)
			case 1:
				m[k] = mutate(r, m[k], depth-1)
			}
		}
		if r.IntN(2) == 0 {
			m[fmt.Sprint("k", r.IntN(4))] = randomValue(r, 2)
		}
		return m
	case []any:
		s := deepCopy(c).([]any)
		switch r.IntN(4) {
		case 0:
			if len(s) > 0 {
				i := r.IntN(len(s))
				s = append(s[:i], s[i+1:]...)
			}
		case 1:
			i := r.IntN(len(s) + 1)
			s = append(s[:i], append([]any{randomValue(r, 2)}, s[i:]...)...)
		case 2:
			for i := range s {
				if r.IntN(2) == 0 {
					s[i] = mutate(r, s[i], depth-1)
				}
			}
		default:
			s = append(s, randomValue(r, 1), randomValue(r, 1))
		}
		return s
	}
	return randomValue(r, 2)
}

func TestDiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(6902, 1))
	for i := range 3000 {
		x := randomValue(r, 4)
		y := mutate(r, x, 4)
		if i%5 == 0 {
			y = randomValue(r, 4)
		}
		a, _ := encode(x)
		b, _ := encode(y)
		p, err := Diff(a, b)
		if err != nil {
			t.Fatalf("Diff(%s, %s): %v", a, b, err)
		}
		// The patch survives its own JSON form.
		wire, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := ParsePatch(wire)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", wire, err)
		}
		out, err := Apply(a, p2)
		if err != nil {
			t.Fatalf("Apply(%s, %s): %v", a, wire, err)
		}
		if eq, _ := EqualJSON(out, b); !eq {
			t.Fatalf("round trip failed\n a   %s\n b   %s\n got %s\n patch %s", a, b, out, wire)
		}
		if same, _ := Diff(a, a); len(same) != 0 {
			t.Fatalf("Diff(a, a) = %v for %s", same, a)
		}
	}
}

func TestRender(t *testing.T) {
	before := []byte(`{"inci":"CAFFEINE","cas":"58-08-2","noael":[{"value":100,"unit":"mg/kg bw/day","species":"rat"}],"dap":[{"value":50,"source":"SCCS"}],"references":["SCCS/1628/21"]}`)
	after := []byte(`{"inci":"CAFFEINE","cas":"58-08-2","noael":[{"value":200,"unit":"mg/kg bw/day","species":"rat"}],"dap":[{"value":50,"source":"SCCS"}],"references":["SCCS/1628/21","EFSA 2015"]}`)
	got, err := Render(before, after, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `@@ -11,10 +11,11 @@
     {
       "species": "rat",
       "unit": "mg/kg bw/day",
-      "value": 100
+      "value": 200
     }
   ],
   "references": [
-    "SCCS/1628/21"
+    "SCCS/1628/21",
+    "EFSA 2015"
   ]
 }
`
	if got != want {
		t.Errorf("Render\n got:\n%s\nwant:\n%s", got, want)
	}
	// Far-apart changes make separate hunks; width cuts long lines.
	a := []byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11}`)
	b := []byte(`{"a":0,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":"a much longer value than before"}`)
	got, err = Render(a, b, 20)
	if err != nil {
		t.Fatal(err)
	}
	want = `@@ -1,5 +1,5 @@
 {
-  "a": 1,
+  "a": 0,
   "b": 2,
   "c": 3,
   "d": 4,
@@ -9,5 +9,5 @@
   "h": 8,
   "i": 9,
   "j": 10,
-  "k": 11
+  "k": "a much lon…
 }
`
	if got != want {
		t.Errorf("Render with hunks\n got:\n%s\nwant:\n%s", got, want)
	}
	if got, _ := Render(a, a, 80); got != "" {
		t.Errorf("equal documents render %q", got)
	}
	// A new document: everything added.
	got, err = Render(nil, []byte(`{"a":1}`), 0)
	if err != nil || got != "@@ -0,0 +1,3 @@\n+{\n+  \"a\": 1\n+}\n" {
		t.Errorf("creation diff: %q, %v", got, err)
	}
	if _, err := Render([]byte(`{`), a, 0); err == nil {
		t.Error("invalid JSON rendered")
	}
}

func TestDescribe(t *testing.T) {
	doc := []byte(`{"inci":"CAFFEINE","noael":[{"value":100}],"dap":[{"value":50,"source":"SCCS"}]}`)
	for _, tc := range []struct{ op, want string }{
		{`{"op":"replace","path":"/noael/0/value","value":200}`, `replace /noael/0/value: 100 → 200`},
		{`{"op":"add","path":"/references/-","value":"SCCS/1628/21"}`, `append to /references: "SCCS/1628/21"`},
		{`{"op":"add","path":"/cas","value":null}`, `add /cas: null`},
		{`{"op":"remove","path":"/dap/0"}`, `remove /dap/0 (was {"source":"SCCS","value":50})`},
		{`{"op":"move","from":"/a","path":"/b"}`, `move /a → /b`},
		{`{"op":"copy","from":"","path":"/b"}`, `copy "" (whole document) → /b`},
		{`{"op":"test","path":"/inci","value":"CAFFEINE"}`, `test /inci = "CAFFEINE"`},
		{`{"op":"replace","path":"/missing","value":{"text":"a statement long enough to be cut short here"}}`, `replace /missing: → {"text":"a statement long enough to be…`},
	} {
		var op Operation
		if err := json.Unmarshal([]byte(tc.op), &op); err != nil {
			t.Fatal(err)
		}
		if got := Describe(doc, op); got != tc.want {
			t.Errorf("Describe(%s)\n got %q\nwant %q", tc.op, got, tc.want)
		}
	}
	if got := Describe(nil, Operation{Op: OpReplace, Path: "/a", Value: json.RawMessage("1")}); got != "replace /a: → 1" {
		t.Errorf("without a document: %q", got)
	}
}

func TestRenumberLeavesOutOperationsPutBefore(t *testing.T) {
	guard := Operation{Op: OpTest, Path: "/a", Value: json.RawMessage(`1`)}
	// Two problems, joined by Validate, behind a guard: numbered as the author wrote them.
	err := Renumber(Validate(Patch{guard, {Op: "spam", Path: "/a"}, {Op: OpRemove, Path: "a"}}), 1)
	if msg := err.Error(); !strings.Contains(msg, "operation 0 (spam /a)") || !strings.Contains(msg, "operation 1 (remove a)") {
		t.Errorf("validation: %s", msg)
	}
	_, err = Apply([]byte(`{"a":1}`), Patch{guard, {Op: OpRemove, Path: "/b"}})
	var oe *OpError
	if err = Renumber(err, 1); !errors.As(err, &oe) || oe.Index != 0 || !strings.HasPrefix(err.Error(), "jsonpatch: operation 0 (remove /b)") {
		t.Errorf("apply: %v", err)
	}
	if Renumber(nil, 1) != nil {
		t.Error("nil stays nil")
	}
}

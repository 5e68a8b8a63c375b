package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"warren/internal/shareddata"
)

// suiteSeeds returns the cases of the RFC 6902 conformance suite in shared/data, or none.
func suiteSeeds(f *testing.F) []suiteCase {
	var out []suiteCase
	for _, file := range []string{"tests.json", "spec_tests.json"} {
		p := shareddata.Seeds(f, "jsonpatch/"+file)
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var cases []suiteCase
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			if c.Doc != nil && c.Patch != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// sampleProfiles returns the first profiles of the sample workspace as JSON documents.
func sampleProfiles(f *testing.F, n int) []json.RawMessage {
	data, err := os.ReadFile(shareddata.Project(f, "sample/tox/profiles.json"))
	if err != nil {
		f.Fatal(err)
	}
	var profiles []json.RawMessage
	if err := json.Unmarshal(data, &profiles); err != nil {
		f.Fatal(err)
	}
	return profiles[:min(n, len(profiles))]
}

// isPackageError reports whether err wraps one of the package's sentinels, as documented.
func isPackageError(err error) bool {
	return errors.Is(err, ErrInvalidOperation) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrTestFailed) ||
		errors.Is(err, ErrInvalidDocument)
}

// FuzzApply applies a patch to a document. Apply must leave its input alone and fail with a
// documented error, or give valid JSON; the patch must survive encoding; and the diff from the
// document to the result must lead to the same result.
func FuzzApply(f *testing.F) {
	for _, c := range suiteSeeds(f) {
		f.Add([]byte(c.Doc), []byte(c.Patch))
	}
	for _, p := range sampleProfiles(f, 2) {
		f.Add([]byte(p), []byte(`[{"op":"replace","path":"/noael/0/value","value":200},{"op":"add","path":"/references/-","value":{"id":"r9","citation":"SCCS/1628/21"}},`+
			`{"op":"move","from":"/noael/1","path":"/noael/0"},{"op":"test","path":"/inci","value":"EUGENOL"},{"op":"copy","from":"/cas","path":"/x~1y"}]`))
	}
	f.Add([]byte(`{"a":[1,2,{"b~c":null}]}`), []byte(`[{"op":"remove","path":"/a/2/b~0c"},{"op":"add","path":"","value":1e400}]`))

	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		p, err := ParsePatch(patch)
		if err != nil {
			if !isPackageError(err) {
				var se *json.SyntaxError
				var te *json.UnmarshalTypeError
				if !errors.As(err, &se) && !errors.As(err, &te) {
					t.Fatalf("ParsePatch: undocumented error %T: %v", err, err)
				}
			}
			return
		}
		for _, op := range p {
			if Describe(doc, op) == "" {
				t.Fatalf("empty description of %+v", op)
			}
		}
		orig := bytes.Clone(doc)
		out, err := Apply(doc, p)
		if !bytes.Equal(doc, orig) {
			t.Fatal("Apply changed its input")
		}
		if err != nil {
			if out != nil || !isPackageError(err) {
				t.Fatalf("failed Apply: out %q, error %T %v", out, err, err)
			}
			return
		}
		if _, err := decode(out); err != nil {
			t.Fatalf("Apply gave invalid JSON %q: %v", out, err)
		}
		enc, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := ParsePatch(enc)
		if err != nil {
			t.Fatalf("an encoded patch doesn't parse: %v\n%s", err, enc)
		}
		out2, err := Apply(doc, p2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("the re-encoded patch %s gives %q (%v), the original %q", enc, out2, err, out)
		}
		checkDiff(t, doc, out)
	})
}

// FuzzDiff diffs two documents: the patch applied to the first must give the second, and the
// line diff must hold both documents' lines.
func FuzzDiff(f *testing.F) {
	for _, c := range suiteSeeds(f) {
		if c.Expected != nil {
			f.Add([]byte(c.Doc), []byte(c.Expected))
		}
	}
	profiles := sampleProfiles(f, 4)
	for i := 1; i < len(profiles); i++ {
		f.Add([]byte(profiles[i-1]), []byte(profiles[i]))
	}
	f.Add([]byte(`[1,2,3,4,5]`), []byte(`[1,9,3,4]`))
	f.Add([]byte(`{"a":1.0,"b":[{"c":"\u00e9"}]}`), []byte(`{"a":1,"b":[],"":{"~/":[null]}}`))

	f.Fuzz(func(t *testing.T, a, b []byte) {
		if _, err := decode(a); err != nil {
			return
		}
		if _, err := decode(b); err != nil {
			return
		}
		checkDiff(t, a, b)
		if p, err := Diff(a, a); err != nil || len(p) != 0 {
			t.Fatalf("a document differs from itself: %v %v", p, err)
		}
	})
}

// checkDiff asserts Apply(a, Diff(a, b)) == b and that the line diff of a and b is complete.
func checkDiff(t *testing.T, a, b []byte) {
	p, err := Diff(a, b)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if err := Validate(p); err != nil {
		t.Fatalf("Diff gave an invalid patch %v: %v", p, err)
	}
	got, err := Apply(a, p)
	if err != nil {
		t.Fatalf("Diff's patch doesn't apply: %v\npatch %v", err, p)
	}
	if eq, err := EqualJSON(got, b); err != nil || !eq {
		t.Fatalf("Apply(a, Diff(a, b)) = %s, want %s (patch %v)", got, b, p)
	}

	pa, err := Pretty(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := Pretty(b)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Count(pa, "\n") + strings.Count(pb, "\n") + 2
	hunks, err := Hunks(a, b, all)
	if err != nil {
		t.Fatal(err)
	}
	var before, after []string
	for _, h := range hunks {
		for _, l := range h.Lines {
			if l.Kind != Added {
				before = append(before, l.Text)
			}
			if l.Kind != Removed {
				after = append(after, l.Text)
			}
		}
	}
	if len(hunks) > 0 && (strings.Join(before, "\n") != pa || strings.Join(after, "\n") != pb) {
		t.Fatalf("the line diff with full context doesn't rebuild the documents:\n%q\n%q", strings.Join(before, "\n"), pa)
	}
	if len(hunks) == 0 && pa != pb {
		t.Fatalf("no hunks for different documents")
	}
	out, err := Render(a, b, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if utf8.RuneCountInString(line) > 20 {
			t.Fatalf("rendered line longer than 20 runes: %q", line)
		}
	}
}

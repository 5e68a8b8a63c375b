package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"warren/internal/shareddata"
)

// suiteCase is one record of the json-patch-tests conformance suite.
type suiteCase struct {
	Comment  string          `json:"comment"`
	Doc      json.RawMessage `json:"doc"`
	Patch    json.RawMessage `json:"patch"`
	Expected json.RawMessage `json:"expected"`
	Error    *string         `json:"error"`
	Disabled bool            `json:"disabled"`
}

// TestConformanceSuite runs every case of both files of the RFC 6902 conformance suite in
// ../shared/data/jsonpatch: cases with "error" must fail, cases with "expected" must produce a
// JSON-equal document, others must succeed. Disabled cases are skipped and counted.
func TestConformanceSuite(t *testing.T) {
	for _, file := range []string{"tests.json", "spec_tests.json"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(shareddata.Path(t, "jsonpatch/"+file))
			if err != nil {
				t.Fatal(err)
			}
			var cases []suiteCase
			if err := json.Unmarshal(data, &cases); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(cases) == 0 {
				t.Fatalf("%s has no cases", file)
			}
			var ran, passed, disabled, commentOnly int
			for i, c := range cases {
				name := c.Comment
				if name == "" {
					name = "unnamed"
				}
				name = fmt.Sprintf("%03d %s", i, name)
				if c.Disabled {
					disabled++
					continue
				}
				if c.Doc == nil && c.Patch == nil {
					commentOnly++
					continue
				}
				ran++
				if t.Run(name, func(t *testing.T) { runSuiteCase(t, c) }) {
					passed++
				}
			}
			t.Logf("%s: %d cases, %d ran, %d passed, %d disabled skipped, %d comment-only", file, len(cases), ran, passed, disabled, commentOnly)
			if passed != ran {
				t.Errorf("%s: %d of %d cases failed", file, ran-passed, ran)
			}
		})
	}
}

func runSuiteCase(t *testing.T, c suiteCase) {
	var p Patch
	perr := json.Unmarshal(c.Patch, &p)
	if c.Error != nil {
		if perr != nil {
			t.Logf("rejected while decoding (want %q): %v", *c.Error, perr)
			return
		}
		orig := bytes.Clone(c.Doc)
		out, err := Apply(c.Doc, p)
		if err == nil {
			t.Fatalf("want an error (%q), got success: %s", *c.Error, out)
		}
		if out != nil {
			t.Errorf("failed Apply returned a document: %s", out)
		}
		if !bytes.Equal(orig, c.Doc) {
			t.Errorf("failed Apply changed its input")
		}
		t.Logf("error (want %q): %v", *c.Error, err)
		return
	}
	if perr != nil {
		t.Fatalf("decoding the patch: %v", perr)
	}
	out, err := Apply(c.Doc, p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if c.Expected == nil {
		return
	}
	eq, err := EqualJSON(out, c.Expected)
	if err != nil {
		t.Fatalf("comparing: %v", err)
	}
	if !eq {
		t.Fatalf("got %s\nwant %s", out, c.Expected)
	}
}

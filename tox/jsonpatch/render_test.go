package jsonpatch

import (
	"strings"
	"testing"
)

// A hunk after one that joins two nearby edits starts at the right line on both sides (as
// GNU diff -u numbers it), and every line carries its line numbers in the two documents.
func TestRenderNumbersHunksAfterAJoinedOne(t *testing.T) {
	before := []byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16}`)
	after := []byte(`{"a":1,"b":2,"b2":0,"c":3,"d":4,"e":50,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":150,"p":16}`)
	got, err := Render(before, after, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `@@ -1,9 +1,10 @@
 {
   "a": 1,
   "b": 2,
+  "b2": 0,
   "c": 3,
   "d": 4,
-  "e": 5,
+  "e": 50,
   "f": 6,
   "g": 7,
   "h": 8,
@@ -13,6 +14,6 @@
   "l": 12,
   "m": 13,
   "n": 14,
-  "o": 15,
+  "o": 150,
   "p": 16
 }
`
	if got != want {
		t.Errorf("Render\n got:\n%s\nwant:\n%s", got, want)
	}

	pa, _ := Pretty(before)
	pb, _ := Pretty(after)
	a, b := strings.Split(pa, "\n"), strings.Split(pb, "\n")
	for _, context := range []int{0, 1, 3} {
		hunks, err := Hunks(before, after, context)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hunks {
			for _, l := range h.Lines {
				if l.Kind != Added && (l.Old < 1 || a[l.Old-1] != l.Text) {
					t.Errorf("context %d: %q is not line %d of before", context, l.Text, l.Old)
				}
				if l.Kind != Removed && (l.New < 1 || b[l.New-1] != l.Text) {
					t.Errorf("context %d: %q is not line %d of after", context, l.Text, l.New)
				}
			}
		}
	}
	// Only additions: the empty old side starts at the line before them.
	hunks, err := Hunks([]byte(`{"a":1,"c":3}`), []byte(`{"a":1,"b":2,"c":3}`), 0)
	if err != nil || len(hunks) != 1 || hunks[0].Header() != "@@ -2,0 +3 @@" {
		t.Errorf("an insertion: %+v, %v", hunks, err)
	}
}

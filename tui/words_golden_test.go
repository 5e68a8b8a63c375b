package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// internalNames are what the screens must not show: the program's identifiers where the
// analyst reads words. Each golden file (every view at 80×24, and at 120×40) is scanned for
// them.
var internalNames = []struct {
	pattern *regexp.Regexp
	what    string
}{
	{regexp.MustCompile(`\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b`), "a snake_case identifier (a field or node name: hmis_flammability, generate_queries)"},
	{regexp.MustCompile(`\b[A-Z]{2,}(_[A-Z]+)+\b`), "an ALL_CAPS constant (an edit type: NLI_EDIT, FORM_EDIT_STRUCTURED)"},
	{regexp.MustCompile(`builtin:hash|ollama:`), "an embedder id (builtin:hash-v1:512)"},
	{regexp.MustCompile(`\bmethod (parsed|structured|extract|analyst|sheet)\b`), "a method id after the word method"},
	{regexp.MustCompile(`\bempty \(empty\)`), "a status said twice (is empty (empty))"},
	{regexp.MustCompile(`by the analyst · analyst`), "who edited a value said three times"},
	{regexp.MustCompile(`\bby root\b`), "the account warren runs under, in place of an analyst's name"},
	{regexp.MustCompile(`\bnode [a-z(]`), "a graph's node named as such"},
	{regexp.MustCompile(`\b(tier|general):[a-z0-9]`), "a fill's method id (tier:suppliers)"},
}

// jsonText is a JSON key or value, or a JSON Pointer: the toxicology desk shows profiles and
// patches as JSON, whose keys are the data's own.
var jsonText = regexp.MustCompile(`"[^"]*"|(/[A-Za-z0-9_~-]+)+`)

// queryText is a gas table query's expression, in the query language whose names the analyst
// edits (any_text, hmis_flammability >= 3).
var queryText = regexp.MustCompile(`(query|filter|Expression): .*?(  →|$)`)

// internalNamesIn lists the lines of text that show an internal name, with what it is.
func internalNamesIn(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		plain := jsonText.ReplaceAllString(queryText.ReplaceAllString(line, "$1: $2"), `""`)
		for _, n := range internalNames {
			if m := n.pattern.FindString(plain); m != "" {
				out = append(out, fmt.Sprintf("%d: %q — %s", i+1, m, n.what))
			}
		}
	}
	return out
}

// No screen in the golden set shows an internal identifier; each finding names its file and
// line.
func TestGoldenScreensShowWordsNotInternalNames(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, found := range internalNamesIn(string(b)) {
			t.Errorf("%s:%s", f, found)
		}
	}
}

// The scan finds what the screens showed before they said words: lines of earlier goldens.
func TestInternalNamesAreFound(t *testing.T) {
	for _, line := range []string{
		"Collections: standards (3 docs, 41 chunks, builtin:hash-v1:512) · suppliers (10",
		"10:15:00 ledger  generate_queries fast   structured    210+48   tok   900ms  ok",
		"edit type NLI_EDIT · method parsed · model calls 0",
		"  ●  v2   2026-11-21 12:15  ana  FORM_EDIT_STRUCTURED  structured edit: replace…",
		"Edit HMIS Flammability of Silane: 7 · hmis_flammability",
		"96 vol %  edited by the analyst · analyst · by root",
		"undone: UEL (vol %) of Silane is empty (empty)",
		"Phase 1 refinement · node generate_queries · running",
		"-112 °C  filled (high confidence) · confidence 0.92 · tier:suppliers",
	} {
		if len(internalNamesIn(line)) == 0 {
			t.Errorf("not found in %q", line)
		}
	}
	// JSON keys and JSON Pointers are the profile's own data, not warren's names.
	for _, line := range []string{`-      "critical_effect": "liver",`, "  replace /noael/0/critical_effect: a → b", "Gas table fab-k2 · 5 rows"} {
		if got := internalNamesIn(line); len(got) != 0 {
			t.Errorf("%q: %q", line, got)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCountWords(t *testing.T) {
	order := []string{"followed", "skipped", "unresolved"}
	for _, c := range []struct {
		counts map[string]int
		want   string
	}{
		{map[string]int{"unresolved": 2, "followed": 18, "skipped": 3}, "18 followed, 3 skipped, 2 unresolved"},
		{map[string]int{"skipped": 1, "odd": 4, "another": 1}, "1 skipped, 1 another, 4 odd"},
		{map[string]int{"followed": 0}, "none"},
		{nil, "none"},
	} {
		if got := CountWords(c.counts, order...); got != c.want {
			t.Errorf("%v: got %q, want %q", c.counts, got, c.want)
		}
	}
}

func TestFailureJSONKeepsTheResult(t *testing.T) {
	data, err := failureJSON(Failure{Error: "e", Hint: "h", Code: 3}, map[string]any{"files": []int{1}})
	var got map[string]any
	if err != nil || json.Unmarshal(data, &got) != nil || got["error"] != "e" || got["code"] != 3.0 || got["files"] == nil {
		t.Errorf("%s %v", data, err)
	}
	data, _ = failureJSON(Failure{Error: "e", Hint: "h", Code: 1}, []string{"a"})
	if !bytes.Contains(data, []byte(`"result": [`)) {
		t.Errorf("a list goes under result: %s", data)
	}
}

func TestSplitHint(t *testing.T) {
	for _, c := range []struct{ msg, head, hint string }{
		{"no document \"x\" in the knowledge base: `warren kb list` shows what is there", `no document "x" in the knowledge base`, "`warren kb list` shows what is there"},
		{"interrupted; the run is saved: go on with `warren research --resume R`", "interrupted; the run is saved", "go on with `warren research --resume R`"},
		{"couldn't read the registry: open x.json: no such file or directory", "", ""},
	} {
		head, hint, _ := splitHint(c.msg)
		if head != c.head || hint != c.hint {
			t.Errorf("%q: got %q / %q", c.msg, head, hint)
		}
	}
}

// TestExitCodeAndFail: each kind of error ends with its status; Fail writes one line on stderr
// (with the hint the message lacks) and, asked for JSON, one object on stdout.
func TestExitCodeAndFail(t *testing.T) {
	cmd := &cobra.Command{Use: "warren"}
	for _, c := range []struct {
		err  error
		code int
		line string
	}{
		{errors.New("broken: run `warren doctor`"), ExitFailure, "warren: broken: run `warren doctor`\n"},
		{Usage("--k %d: allowed is 1 or more", 0), ExitUsage, "warren: --k 0: allowed is 1 or more\nRun 'warren --help' for usage.\n"},
		{fmt.Errorf("unknown command %q for %q", "x", "warren"), ExitUsage, "warren: unknown command \"x\" for \"warren\"\nRun 'warren --help' for usage.\n"},
		{Partial("fix them", "%d of %d failed", 1, 2), ExitPartial, "warren: 1 of 2 failed; fix them\n"},
		{NothingStored("add files", "nothing stored"), ExitNothingStored, "warren: nothing stored; add files\n"},
		{fmt.Errorf("wrapped: %w", WithHint(errors.New("x"), "do y")), ExitFailure, "warren: wrapped: x; do y\n"},
	} {
		var stdout, stderr bytes.Buffer
		err := Fail(&stdout, &stderr, true, cmd, nil, c.err)
		if ExitCode(err) != c.code || ExitCode(c.err) != c.code || stderr.String() != c.line {
			t.Errorf("%v: status %d, stderr %q", c.err, ExitCode(err), stderr.String())
		}
		var f Failure
		if json.Unmarshal(stdout.Bytes(), &f) != nil || f.Code != c.code || f.Hint == "" {
			t.Errorf("%v: stdout %s", c.err, stdout.String())
		}
	}
	if ExitCode(nil) != ExitOK || ExitCode(ExitError{Code: ExitWaiting}) != ExitWaiting {
		t.Error("nil is 0, and an ExitError is its own status")
	}
}

func TestArgsWantJSON(t *testing.T) {
	for args, want := range map[string]bool{"x --json": true, "--json=false x": false, "x -- --json": false, "x": false} {
		if got := ArgsWantJSON(strings.Fields(args)); got != want {
			t.Errorf("%q: got %v", args, got)
		}
	}
}

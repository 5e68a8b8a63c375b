package main

// The CLI contract: exit statuses, how a failure is reported (one line on stderr; with --json
// also one object on stdout) and counts printed in words.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses: the same class of outcome has the same status in every command.
const (
	exitOK            = 0
	exitFailure       = 1 // the command ran and something is wrong (a failed check, an error)
	exitUsage         = 2 // the command line itself is wrong
	exitPartial       = 3 // some items were done, others skipped or failed (each is listed)
	exitWaiting       = 4 // a run or proposal waits for the analyst's answer (it is saved)
	exitNothingStored = 5 // an ingest stored nothing: every file was skipped or failed, or there was none
)

// exitError carries an exit status through cobra once the failure has been reported.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError marks a mistake in the command line.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// cliError gives an error its own exit status (0: decided by the error inside) and the hint
// that says how to fix it, when the message itself does not end with one.
type cliError struct {
	err  error
	code int
	hint string
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return &cliError{err: err, hint: hint} }

// partialError: some items were done and others skipped or failed.
func partialError(hint, format string, args ...any) error {
	return &cliError{err: fmt.Errorf(format, args...), code: exitPartial, hint: hint}
}

// failure is how a failed command is reported: with --json this object (plus the command's
// result, when it has one) is what stdout holds.
type failure struct {
	Error string `json:"error"`
	Hint  string `json:"hint"`
	Code  int    `json:"code"`
}

// exitCode is the status an error ends the command with.
func exitCode(err error) int {
	var exit exitError
	var ce *cliError
	var usage usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &ce) && ce.code != 0:
		return ce.code
	case errors.As(err, &usage) || isCobraUsage(err):
		return exitUsage
	}
	return exitFailure
}

// isCobraUsage recognises cobra's own errors for an unknown command, which it returns as plain
// errors. Flag errors arrive as usageError through the flag error func, argument-count errors
// through usageArgs.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command ") || strings.Contains(msg, `unknown command "`)
}

// describe turns an error into its report: the message, the way to fix it and the status.
// The hint is the one given with withHint, else the fix the message ends with ("…: run `warren
// gas fill`"), else a pointer to the command's help.
func describe(cmd *cobra.Command, err error) failure {
	f := failure{Error: err.Error(), Code: exitCode(err)}
	var ce *cliError
	if errors.As(err, &ce) && ce.hint != "" {
		f.Hint = ce.hint
	} else if head, tail, ok := splitHint(f.Error); ok {
		f.Error, f.Hint = head, tail
	}
	if f.Hint == "" {
		path := "warren"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		switch f.Code {
		case exitUsage:
			f.Hint = fmt.Sprintf("`%s --help` shows the arguments, the flags and examples", path)
		default:
			f.Hint = fmt.Sprintf("`%s --help` describes the command; `warren doctor` checks the workspace and the models", path)
		}
	}
	return f
}

// fixVerbs start the fix at the end of a message ("…: use hybrid, dense or lexical").
var fixVerbs = []string{"add ", "answer ", "approve ", "check ", "choose ", "correct ", "did you mean", "edit ", "fix ",
	"give ", "go on ", "import ", "ingest ", "install ", "leave ", "move ", "name ", "point ", "propose ", "pull ",
	"remove ", "rephrase ", "run ", "see ", "set ", "start ", "try ", "use "}

// splitHint splits "what is wrong: how to fix it" at the last ": " or "; " whose rest names a
// command (`warren …`) or starts with a verb of fixing.
func splitHint(msg string) (head, hint string, ok bool) {
	if strings.Contains(msg, "\n") {
		return "", "", false
	}
	for i := len(msg) - 2; i > 0; i-- {
		if (msg[i] != ':' && msg[i] != ';') || msg[i+1] != ' ' {
			continue
		}
		rest := msg[i+2:]
		lower := strings.ToLower(rest)
		fix := strings.HasPrefix(rest, "`")
		for _, v := range fixVerbs {
			fix = fix || strings.HasPrefix(lower, v)
		}
		if fix || (strings.Contains(rest, "`") && !strings.Contains(rest, ": ")) {
			return msg[:i], rest, true
		}
	}
	return "", "", false
}

// fail reports a failure: one line on stderr ("warren: what is wrong; how to fix it" for a hint
// the message lacks) and, with --json, one object on stdout holding error, hint and code and,
// when result is not nil, the command's result. It returns the exit status to end with.
func (a *app) fail(cmd *cobra.Command, result any, err error) error {
	f := describe(cmd, err)
	line := err.Error()
	var ce *cliError
	if errors.As(err, &ce) && ce.hint != "" {
		sep := "; "
		if strings.Contains(line, "\n") {
			sep = "\n"
		}
		line += sep + ce.hint
	}
	fmt.Fprintf(a.stderr, "warren: %s\n", line)
	if f.Code == exitUsage && cmd != nil {
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	if a.jsonOut {
		data, merr := failureJSON(f, result)
		if merr != nil {
			return fmt.Errorf("couldn't encode the failure as JSON: %w", merr)
		}
		a.stdout.Write(data)
	}
	return exitError{code: f.Code}
}

// failureJSON is the failure object with the fields of result after error, hint and code; a
// result that is not an object goes under "result".
func failureJSON(f failure, result any) ([]byte, error) {
	head, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	out := head
	if result != nil {
		body, err := json.Marshal(result)
		if err != nil {
			return nil, err
		}
		if len(body) == 0 || body[0] != '{' {
			body, _ = json.Marshal(map[string]json.RawMessage{"result": body})
		}
		if string(body) != "{}" {
			out = append(append(head[:len(head)-1:len(head)-1], ','), body[1:]...)
		}
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, out, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// argsWantJSON reports whether the command line asks for --json, for failures found before
// cobra has parsed the flags (an unknown command or flag).
func argsWantJSON(args []string) bool {
	want := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--json" {
			want = true
		} else if v, ok := strings.CutPrefix(arg, "--json="); ok {
			want, _ = strconv.ParseBool(v)
		}
	}
	return want
}

// groupRun is the RunE of a command that only holds subcommands: alone it shows its help, with
// an argument it is an unknown subcommand (cobra would show the help and exit 0).
func groupRun(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return usageError{fmt.Errorf("unknown command %q for %q: use one of %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))}
}

// usageArgs makes the argument-count errors of every command usage errors that show the
// command's usage line, and gives every command that only holds subcommands groupRun.
func usageArgs(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if c.HasSubCommands() && c.RunE == nil && c.Run == nil {
			c.RunE = groupRun
			c.Args = cobra.ArbitraryArgs
		} else if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				var usage usageError
				if err == nil || errors.As(err, &usage) {
					return err
				}
				return usageError{withHint(err, "usage: "+cmd.UseLine())}
			}
		}
		usageArgs(c)
	}
}

// countWords prints counts as words, in the given order first and then alphabetically:
// "18 followed, 3 skipped, 2 unresolved"; empty counts are left out, and no counts at all is
// "none".
func countWords(counts map[string]int, order ...string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		seen[k] = true
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	var rest []string
	for k, n := range counts {
		if !seen[k] && n > 0 {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

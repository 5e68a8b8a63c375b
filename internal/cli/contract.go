// Package cli is the contract every warren command keeps, whatever it does: the exit statuses,
// how a failure is reported (one line on stderr; with --json also one object on stdout), the
// rules that check flags and arguments before any work, and the printing the commands share
// (JSON, tables, counts in words, a progress line, help texts kept apart from the code).
package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses: the same class of outcome has the same status in every command.
const (
	ExitOK            = 0
	ExitFailure       = 1 // the command ran and something is wrong (a failed check, an error)
	ExitUsage         = 2 // the command line itself is wrong
	ExitPartial       = 3 // some items were done, others skipped or failed (each is listed)
	ExitWaiting       = 4 // a run or proposal waits for the analyst's answer (it is saved)
	ExitNothingStored = 5 // an ingest stored nothing: every file was skipped or failed, or there was none
)

// ExitError carries an exit status through cobra once the failure has been reported.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// UsageError marks a mistake in the command line.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage is a UsageError with a formatted message.
func Usage(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// Error gives an error its own exit status (0: decided by the error inside) and the hint that
// says how to fix it, when the message itself does not end with one.
type Error struct {
	Err  error
	Code int
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// WithHint gives err the hint that says how to fix it.
func WithHint(err error, hint string) error { return &Error{Err: err, Hint: hint} }

// Partial is the failure of a command that did some items and skipped or failed others.
func Partial(hint, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Code: ExitPartial, Hint: hint}
}

// NothingStored is the failure of a command that had items to store and stored none.
func NothingStored(hint, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Code: ExitNothingStored, Hint: hint}
}

// Failure is how a failed command is reported: with --json this object (plus the command's
// result, when it has one) is what stdout holds.
type Failure struct {
	Error string `json:"error"`
	Hint  string `json:"hint"`
	Code  int    `json:"code"`
}

// ExitCode is the status an error ends the command with.
func ExitCode(err error) int {
	var exit ExitError
	var ce *Error
	var usage UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &ce) && ce.Code != 0:
		return ce.Code
	case errors.As(err, &usage) || isCobraUsage(err):
		return ExitUsage
	}
	return ExitFailure
}

// isCobraUsage recognises cobra's own errors for an unknown command, which it returns as plain
// errors. Flag errors arrive as UsageError through the flag error func, argument-count errors
// through UsageArgs.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command ") || strings.Contains(msg, `unknown command "`)
}

// Describe turns an error into its report: the message, the way to fix it and the status.
// The hint is the one given with WithHint, else the fix the message ends with ("…: run `warren
// gas fill`"), else a pointer to the command's help.
func Describe(cmd *cobra.Command, err error) Failure {
	f := Failure{Error: err.Error(), Code: ExitCode(err)}
	var ce *Error
	if errors.As(err, &ce) && ce.Hint != "" {
		f.Hint = ce.Hint
	} else if head, tail, ok := splitHint(f.Error); ok {
		f.Error, f.Hint = head, tail
	}
	if f.Hint == "" {
		path := "warren"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		switch f.Code {
		case ExitUsage:
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

// Fail reports a failure: one line on stderr ("warren: what is wrong; how to fix it" for a hint
// the message lacks) and, when asJSON, one object on stdout holding error, hint and code and,
// when result is not nil, the command's result. It returns the ExitError to end with.
func Fail(stdout, stderr io.Writer, asJSON bool, cmd *cobra.Command, result any, err error) error {
	f := Describe(cmd, err)
	line := err.Error()
	var ce *Error
	if errors.As(err, &ce) && ce.Hint != "" {
		sep := "; "
		if strings.Contains(line, "\n") {
			sep = "\n"
		}
		line += sep + ce.Hint
	}
	fmt.Fprintf(stderr, "warren: %s\n", line)
	if f.Code == ExitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	if asJSON {
		data, merr := failureJSON(f, result)
		if merr != nil {
			return fmt.Errorf("couldn't encode the failure as JSON: %w", merr)
		}
		stdout.Write(data)
	}
	return ExitError{Code: f.Code}
}

// failureJSON is the failure object with the fields of result after error, hint and code; a
// result that is not an object goes under "result".
func failureJSON(f Failure, result any) ([]byte, error) {
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

// ArgsWantJSON reports whether the command line asks for --json, for failures found before
// cobra has parsed the flags (an unknown command or flag).
func ArgsWantJSON(args []string) bool {
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
	return Usage("unknown command %q for %q: use one of %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
}

// UsageArgs makes the argument-count errors of every command under cmd usage errors that show
// the command's usage line, and gives every command that only holds subcommands a RunE that
// refuses an unknown subcommand.
func UsageArgs(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if c.HasSubCommands() && c.RunE == nil && c.Run == nil {
			c.RunE = groupRun
			c.Args = cobra.ArbitraryArgs
		} else if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				var usage UsageError
				if err == nil || errors.As(err, &usage) {
					return err
				}
				return UsageError{WithHint(err, "usage: "+cmd.UseLine())}
			}
		}
		UsageArgs(c)
	}
}

// CountWords prints counts as words, in the given order first and then alphabetically:
// "18 followed, 3 skipped, 2 unresolved"; empty counts are left out, and no counts at all is
// "none".
func CountWords(counts map[string]int, order ...string) string {
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

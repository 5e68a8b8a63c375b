package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/internal/termsafe"
)

// The helpers every command shares: open the workspace, print a result as JSON or text, report
// a failure. The printing itself is package cli's.

// screen is the standard output of a command: text through termsafe, so that no document,
// file name or model output drives the analyst's terminal (the same on a pipe or in a file:
// cheap and predictable), and JSON (--json) as it is, since encoding/json escapes control
// characters itself and scripts must read the exact values.
type screen struct {
	raw  io.Writer
	safe *termsafe.Writer
	json *bool // read at each write: a failure found before the flags were parsed sets it late
}

func (s *screen) Write(p []byte) (int, error) {
	if *s.json {
		return s.raw.Write(p)
	}
	return s.safe.Write(p)
}

// Unwrap is the stream itself, for the terminal's width and the progress line.
func (s *screen) Unwrap() io.Writer { return s.raw }

// screens wraps the command's standard output and error: see screen. Standard error carries
// only text.
func (a *app) screens(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	return &screen{raw: stdout, safe: termsafe.NewWriter(stdout), json: &a.jsonOut}, termsafe.NewWriter(stderr)
}

// flushScreens writes what the streams hold back (a character cut between two writes).
func (a *app) flushScreens() {
	if s, ok := a.stdout.(*screen); ok {
		s.safe.Flush()
	}
	if w, ok := a.stderr.(*termsafe.Writer); ok {
		w.Flush()
	}
}

// printJSON prints v as JSON on stdout.
func (a *app) printJSON(v any) error { return cli.PrintJSON(a.stdout, v) }

// fail reports a failure as the CLI contract says (cli.Fail) and returns the exit status to end
// with; result, when not nil, goes into the JSON failure object.
func (a *app) fail(cmd *cobra.Command, result any, err error) error {
	return cli.Fail(a.stdout, a.stderr, a.jsonOut, cmd, result, err)
}

// output prints v as JSON with --json, else through text.
func (a *app) output(v any, text func(w io.Writer) error) error {
	if a.jsonOut {
		return a.printJSON(v)
	}
	return text(a.stdout)
}

// inWorkspace opens the workspace for f and closes it after.
func (a *app) inWorkspace(f func(e *env) error) error {
	e, err := a.open()
	if err != nil {
		return err
	}
	defer e.Close()
	return f(e)
}

// call opens the workspace, gets one result from it and prints that as JSON or through text.
func call[T any](a *app, get func(e *env) (T, error), text func(w io.Writer, v T) error) error {
	return a.inWorkspace(func(e *env) error {
		v, err := get(e)
		if err != nil {
			return err
		}
		return a.output(v, func(w io.Writer) error { return text(w, v) })
	})
}

// serviceRun is a command's run on the open workspace, with a context that Ctrl-C cancels.
func (a *app) serviceRun(run func(ctx context.Context, e *env, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return a.onWorkspace(cmd, func(ctx context.Context, e *env) error { return run(ctx, e, args) })
	}
}

// onWorkspace opens the workspace for f and closes it after; f's context is cancelled by
// Ctrl-C.
func (a *app) onWorkspace(cmd *cobra.Command, f func(ctx context.Context, e *env) error) error {
	return a.inWorkspace(func(e *env) error {
		ctx, stop := interruptible(cmd)
		defer stop()
		return f(ctx, e)
	})
}

// table prints n rows (tab-separated columns) under a header on stdout, the columns aligned.
func (a *app) table(header string, n int, row func(i int) string) error {
	return cli.Rows(a.stdout, header, n, row)
}

// report prints a result that may be a failure too: its text (not with --json), then the
// failure outcome says it is, with v in the JSON failure object, or else v as JSON.
func (a *app) report(cmd *cobra.Command, v any, outcome error, text func(w io.Writer)) error {
	if !a.jsonOut {
		text(a.stdout)
	}
	if outcome != nil {
		return a.fail(cmd, v, outcome)
	}
	return a.output(v, func(io.Writer) error { return nil })
}

// listing prints list as JSON with --json, else its n rows under header (tab-separated
// columns, aligned), or the line empty when there are none.
func (a *app) listing(list any, empty, header string, n int, row func(i int) string) error {
	switch {
	case a.jsonOut:
		return a.printJSON(list)
	case n == 0 && empty != "":
		_, err := fmt.Fprintln(a.stdout, empty)
		return err
	}
	return a.table(header, n, row)
}

// resultJSON returns err when there is one, or else prints v as JSON.
func (a *app) resultJSON(v any, err error) error {
	if err != nil {
		return err
	}
	return a.printJSON(v)
}

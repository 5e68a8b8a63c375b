package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"warren/internal/cli"
)

// The helpers every command shares: open the workspace, print a result as JSON or text, report
// a failure. The printing itself is package cli's.

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
		return a.inWorkspace(func(e *env) error {
			ctx, stop := interruptible(cmd)
			defer stop()
			return run(ctx, e, args)
		})
	}
}

// table prints n rows (tab-separated columns) under a header on stdout, the columns aligned.
func (a *app) table(header string, n int, row func(i int) string) error {
	return cli.Rows(a.stdout, header, n, row)
}

// resultJSON returns err when there is one, or else prints v as JSON.
func (a *app) resultJSON(v any, err error) error {
	if err != nil {
		return err
	}
	return a.printJSON(v)
}

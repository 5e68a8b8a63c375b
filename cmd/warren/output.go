package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// The helpers every command shares: open the workspace, print a result as JSON or text, print
// a table, ask y/N.

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

// confirmed reads the answer to a y/N question from stdin.
func (a *app) confirmed() bool {
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes"
}

// table prints tab-separated lines aligned in columns.
func table(w io.Writer, lines func(tw io.Writer)) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	lines(tw)
	return tw.Flush()
}

// wrap is before+s+after, or "" for an empty s.
func wrap(before, s, after string) string {
	if s == "" {
		return ""
	}
	return before + s + after
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

// table prints n rows (tab-separated columns) under a header, the columns aligned.
func (a *app) table(header string, n int, row func(i int) string) error {
	return table(a.stdout, func(tw io.Writer) {
		fmt.Fprintln(tw, header)
		for i := range n {
			fmt.Fprintln(tw, row(i))
		}
	})
}

// resultJSON returns err when there is one, or else prints v as JSON.
func (a *app) resultJSON(v any, err error) error {
	if err != nil {
		return err
	}
	return a.printJSON(v)
}

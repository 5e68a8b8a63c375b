package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"warren/access"
	"warren/internal/cli"
	"warren/kb"
	"warren/service/grants"
)

// accessCommand manages who may read or ingest into which collection in `warren serve`.
func (a *app) accessCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "access"}
	grant := &cobra.Command{
		Use:  "grant ANALYST COLLECTION LEVEL",
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Checked before the workspace opens: a typo is a usage error, whatever is stored.
			if err := checkAccessNames(args[0], args[1]); err != nil {
				return err
			}
			level, err := grants.ParseLevel(args[2])
			if err != nil {
				return cli.UsageError{Err: err}
			}
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				g, err := e.Access().Grant(ctx, args[0], args[1], level)
				if err != nil {
					return err
				}
				return a.output(g, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "%s may now %s %s (from their next search or ingest).\n", g.Analyst, levelWords(g.Level), g.Collection)
					return err
				})
			})
		},
	}
	revoke := &cobra.Command{
		Use:  "revoke ANALYST COLLECTION",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkAccessNames(args[0], args[1]); err != nil {
				return err
			}
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				revoked, err := e.Access().Revoke(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				list, err := e.Access().List(ctx, "")
				if err != nil {
					return err
				}
				out := map[string]any{"analyst": args[0], "collection": args[1], "revoked": revoked, "level": list.Default}
				return a.output(out, func(w io.Writer) error {
					what := "had no grant on"
					if revoked {
						what = "no longer has a grant on"
					}
					_, err := fmt.Fprintf(w, "%s %s %s: serve.default_access applies (%s).\n", args[0], what, args[1], list.Default)
					return err
				})
			})
		},
	}
	var analyst string
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			list, err := e.Access().List(ctx, analyst)
			if err != nil {
				return err
			}
			return a.output(list, func(w io.Writer) error {
				if _, err := fmt.Fprintf(w, "Without a grant, an analyst may %s a collection (serve.default_access = %s); admins may write everywhere.\n",
					levelWords(list.Default), list.Default); err != nil {
					return err
				}
				if len(list.Grants) == 0 {
					_, err := fmt.Fprintln(w, "No grants yet: `warren access grant ANALYST COLLECTION LEVEL` adds one.")
					return err
				}
				return cli.Rows(w, "ANALYST\tCOLLECTION\tLEVEL\tGRANTED BY\tWHEN", len(list.Grants), func(i int) string {
					g := list.Grants[i]
					return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", g.Analyst, g.Collection, g.Level, g.GrantedBy, g.At.Local().Format("2006-01-02 15:04"))
				})
			})
		}),
	}
	list.Flags().StringVar(&analyst, "analyst", "", "only this analyst's grants")
	cmd.AddCommand(grant, revoke, list)
	return cmd
}

// checkAccessNames refuses an analyst or collection name that none could have.
func checkAccessNames(analyst, collection string) error {
	if err := access.CheckName(analyst); err != nil {
		return cli.UsageError{Err: err}
	}
	if !kb.CollectionName.MatchString(collection) {
		return cli.Usage("collection name %q: use 1 to 64 lower-case letters, digits, '-' and '_'", collection)
	}
	return nil
}

// levelWords says what a level lets an analyst do.
func levelWords(l grants.Level) string {
	switch l {
	case grants.Read:
		return "read"
	case grants.Write:
		return "read and ingest into"
	}
	return "neither read nor ingest into"
}

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/retrieval"
	"warren/retrieval/refs"
)

func (a *app) refsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "refs"}
	var detector, from, section string
	note := func(s string) { fmt.Fprintln(a.stderr, "note:", cli.Line(s)) }
	detect := &cobra.Command{
		Use:  "detect TEXT",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := cli.TextArg(a.stdin, args[0])
			if err != nil {
				return err
			}
			found := refs.DetectRegex(text) // the regex needs no workspace
			if detector != retrieval.DetectorRegex {
				err = a.serviceRun(func(ctx context.Context, e *env, _ []string) (err error) {
					found, err = e.Knowledge().DetectReferences(ctx, detector, text, note)
					return err
				})(cmd, args)
			}
			if err != nil || a.jsonOut {
				return a.resultJSON(cli.EmptyIfNil(found), err)
			}
			if len(found) == 0 {
				fmt.Fprintln(a.stdout, "No references found.")
			}
			for _, r := range found {
				ctxNote := ""
				if r.DocumentContext != "" {
					ctxNote = " in " + r.DocumentContext
				}
				fmt.Fprintf(a.stdout, "%-19s %s  «%s»  (%s)\n", r.Type, cli.Line(r.Target+ctxNote), cli.Line(r.OriginalText), r.Method)
			}
			return nil
		},
	}
	resolve := &cobra.Command{
		Use:  "resolve TEXT",
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			text, err := cli.TextArg(a.stdin, args[0])
			if err != nil {
				return err
			}
			results, err := e.Knowledge().ResolveReferences(ctx, detector, text, from, section, note)
			if err != nil || a.jsonOut {
				return a.resultJSON(results, err)
			}
			if len(results) == 0 {
				fmt.Fprintln(a.stdout, "No references found.")
			}
			for _, res := range results {
				if r := res.Resolved; r != nil {
					fmt.Fprintf(a.stdout, "«%s» → %s (%s; %s)\n", cli.Line(res.OriginalText), cli.Line(cli.DocSection(r.Doc, r.Section)), r.Method, cli.Line(strings.Join(r.ChunkIDs, ", ")))
				} else {
					fmt.Fprintf(a.stdout, "«%s» → unresolved: %s\n", cli.Line(res.OriginalText), cli.Line(res.Reason))
				}
			}
			return nil
		}),
	}
	for _, c := range []*cobra.Command{detect, resolve} {
		c.Flags().StringVar(&detector, "detector", "regex", "regex, model or hybrid")
		cli.Checked(c, cli.Text(0, "TEXT", "a text with references, or - for standard input"),
			cli.OneOf("detector", &detector, retrieval.DetectorRegex, retrieval.DetectorModel, retrieval.DetectorHybrid))
	}
	resolve.Flags().StringVar(&from, "from", "", "the document the text comes from")
	resolve.Flags().StringVar(&section, "section", "", "the section the text comes from")
	cmd.AddCommand(detect, resolve)
	return cmd
}

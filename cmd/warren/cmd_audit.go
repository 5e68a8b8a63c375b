package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/internal/snippet"
	"warren/service"
	"warren/service/audit"
)

// auditCommand lists the audit trail: who did what when, filtered, as a table, JSON or a CSV
// file for the auditor.
func (a *app) auditCommand() *cobra.Command {
	var since, analyst, csvFile string
	var limit int
	var from time.Time
	cmd := &cobra.Command{
		Use:  "audit",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			filter := audit.Filter{Since: from, Analyst: analyst, Limit: limit}
			if csvFile != "" {
				n, err := e.Audit().WriteCSV(ctx, filter, csvFile)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(map[string]any{"file": csvFile, "entries": n})
				}
				_, err = fmt.Fprintf(a.stdout, "Wrote %d entries to %s.\n", n, cli.Line(csvFile))
				return err
			}
			list, err := e.Audit().List(ctx, filter)
			if err != nil {
				return err
			}
			return a.listing(cli.EmptyIfNil(list), "No audit entries match.",
				"TIME\tANALYST\tACTION\tTARGET\tOUTCOME\tDETAIL", len(list), func(i int) string {
					en := list[i]
					return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", en.At.Local().Format("2006-01-02 15:04:05"), en.Analyst,
						en.Action, snippet.Cut(en.Target, 40), en.Outcome, snippet.Cut(en.Detail, 60))
				})
		}),
	}
	cmd.Flags().StringVar(&since, "since", "", "entries since a duration back (24h, 7d) or a date (2026-11-01)")
	cmd.Flags().StringVar(&analyst, "analyst", "", "only this analyst's entries")
	cmd.Flags().IntVar(&limit, "limit", 0, "only the latest N entries (0: all)")
	cmd.Flags().StringVar(&csvFile, "csv", "", "write the entries to this CSV file instead of printing them")
	return cli.Checked(cmd, cli.AtLeast("limit", &limit, 0), cli.Rule{Name: "since", Check: func(*cobra.Command, []string) error {
		var err error
		if from, err = service.ParseSince(since, time.Now()); err != nil {
			return fmt.Errorf("--since %q: %w", since, err)
		}
		return nil
	}})
}

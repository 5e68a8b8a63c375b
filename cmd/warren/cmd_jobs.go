package main

import (
	"context"
	"errors"
	"fmt"

	"warren/internal/snippet"
	"warren/service"
	"warren/service/jobs"

	"github.com/spf13/cobra"

	"warren/internal/cli"
)

func (a *app) jobsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "jobs"}
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			list, err := e.Jobs().List(ctx)
			if err != nil {
				return err
			}
			// The state in the words every listing uses (jobs.StateOf), in the table as in --json.
			return a.listing(cli.EmptyIfNil(jobs.ListOf(list)), "No jobs yet: `warren research \"question\"` starts one.",
				"JOB\tKIND\tOWNER\tSTATE\tPROGRESS\tUPDATED\tTITLE", len(list), func(i int) string {
					j := list[i]
					progress := "-"
					if j.Progress.Total > 0 {
						progress = fmt.Sprintf("%d/%d", j.Progress.Done, j.Progress.Total)
					}
					if left := service.TimeLeftWords(j.Progress.Remaining); left != "" && j.Active() {
						progress += ", " + left // an ingest's estimate, once it has one
					}
					return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", j.ID, j.Kind, j.Owner, jobs.StateOf(j), progress,
						j.Updated.Local().Format("2006-01-02 15:04"), snippet.Cut(j.Title, 50))
				})
		}),
	}
	cmd.AddCommand(list, a.jobsCancelCommand())
	return cmd
}

// jobsCancelCommand stops a running job of the analyst's own (any, for an admin), wherever it
// runs: a job of another warren process is asked to stop through the workspace.
func (a *app) jobsCancelCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "cancel JOB",
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			if err := e.Jobs().Cancel(ctx, args[0]); err != nil {
				if errors.Is(err, jobs.ErrNoJob) {
					return cli.WithHint(err, "`warren jobs list` lists the jobs and their states")
				}
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]string{"job": args[0], "state": "cancelling"})
			}
			fmt.Fprintf(a.stdout, "Asked %s to stop: it ends after the step in flight, keeping what it finished (`warren jobs list` shows it).\n", args[0])
			return nil
		}),
	}
}

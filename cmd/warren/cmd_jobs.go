package main

import (
	"context"
	"fmt"
	"warren/internal/snippet"

	"github.com/spf13/cobra"

	"warren/internal/cli"
)

func (a *app) jobsCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "jobs",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			list, err := e.Jobs().List(ctx)
			if err != nil {
				return err
			}
			return a.listing(cli.EmptyIfNil(list), "No jobs yet: `warren research \"question\"` starts one.",
				"JOB\tKIND\tOWNER\tSTATE\tPROGRESS\tUPDATED\tTITLE", len(list), func(i int) string {
					j := list[i]
					progress := "-"
					if j.Progress.Total > 0 {
						progress = fmt.Sprintf("%d/%d", j.Progress.Done, j.Progress.Total)
					}
					return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", j.ID, j.Kind, j.Owner, j.State, progress,
						j.Updated.Local().Format("2006-01-02 15:04"), snippet.Cut(j.Title, 50))
				})
		}),
	}
}

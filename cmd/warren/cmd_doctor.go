package main

import (
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"warren/doctor"
	"warren/internal/cli"
	"warren/llm"
)

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace, the configuration and every model role",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			report := doctor.Run(ctx, doctor.Input{Workspace: a.workspaceDir(), Sources: a.sources(),
				Options: []llm.Option{llm.WithLogger(a.logger)}, Logger: a.logger})
			if !a.jsonOut {
				fmt.Fprintf(a.stdout, "warren doctor: workspace %s\n\n%s", report.Workspace, report.Text())
			}
			if !report.OK {
				failed := 0
				for _, c := range report.Checks {
					if c.Status == doctor.Fail {
						failed++
					}
				}
				return a.fail(cmd, report, cli.WithHint(fmt.Errorf("%d of %d checks failed", failed, len(report.Checks)),
					"fix each as its check says, then run `warren doctor` again"))
			}
			if a.jsonOut {
				return a.printJSON(report)
			}
			return nil
		},
	}
}

package main

import (
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"warren/doctor"
	"warren/internal/cli"
	"warren/service"
)

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "doctor",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			report := service.DoctorAt(ctx, a.workspaceDir(), a.sources(), a.logger)
			var failed error
			if !report.OK {
				n := 0
				for _, c := range report.Checks {
					if c.Status == doctor.Fail {
						n++
					}
				}
				failed = cli.WithHint(fmt.Errorf("%d of %d checks failed", n, len(report.Checks)),
					"fix each as its check says, then run `warren doctor` again")
			}
			return a.report(cmd, report, failed, func(w io.Writer) {
				fmt.Fprintf(w, "warren doctor: workspace %s\n\n%s", report.Workspace, report.Text())
			})
		},
	}
}

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
	"warren/tui"
)

func (a *app) gasReviewCommand() *cobra.Command {
	var table string
	cmd := cli.Checked(&cobra.Command{
		Use:  "review",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.openWorkbench(func(ctx context.Context, e *env, m *tui.Model) error {
				var several *service.GasTableError // without --table the desk opens the first
				if _, err := e.Gas().Resolve(ctx, table); err != nil && !(errors.As(err, &several) && several.Name == "") {
					return gasErr(err)
				}
				if !cli.IsTerminal(a.stdin) {
					return fmt.Errorf("the review desk needs a terminal: run `warren gas review` in one (scripts use `warren gas query` and `warren gas export`)")
				}
				m.OpenGas(table)
				return nil
			})
		},
	}, cli.When("json", func(cmd *cobra.Command, args []string) error {
		if a.jsonOut {
			return fmt.Errorf("--json: the review desk is interactive; for JSON use `warren gas query --json`")
		}
		return nil
	}))
	cmd.Flags().StringVar(&table, "table", "", "the gas table to open (default: the first; t switches in the desk)")
	return cmd
}

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"warren/service"
	"warren/tui"
)

func (a *app) gasReviewCommand() *cobra.Command {
	var table string
	cmd := checked(&cobra.Command{
		Use:   "review",
		Short: "Open the review desk: the gas table in the workbench's Gas tab",
		Long: `review opens the workbench on its Gas tab: the table with every cell coloured by status, the
source passage of each filled value, and the keys to approve (a), edit (e) or reject (x) a cell,
approve a row's high-confidence cells (A), jump between cells to review (n/N), undo (u) and ask
the table in plain language (/). Every decision is saved at once. It needs a terminal; scripts
use warren gas query and warren gas export.`,
		Example: "  warren gas review\n  warren gas review --table fab-k2",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.openWorkbench(func(ctx context.Context, e *env, m *tui.Model) error {
				var several *service.GasTableError // without --table the desk opens the first
				if _, err := e.ResolveGasTable(ctx, table); err != nil && !(errors.As(err, &several) && several.Name == "") {
					return gasErr(err)
				}
				if !isTerminal(a.stdin) {
					return fmt.Errorf("the review desk needs a terminal: run `warren gas review` in one (scripts use `warren gas query` and `warren gas export`)")
				}
				m.OpenGas(table)
				return nil
			})
		},
	}, when("json", func(cmd *cobra.Command, args []string) error {
		if a.jsonOut {
			return fmt.Errorf("--json: the review desk is interactive; for JSON use `warren gas query --json`")
		}
		return nil
	}))
	cmd.Flags().StringVar(&table, "table", "", "the gas table to open (default: the first; t switches in the desk)")
	return cmd
}

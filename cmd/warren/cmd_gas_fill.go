package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
)

func (a *app) gasFillCommand() *cobra.Command {
	var table, rows, tiers string
	var resume bool
	cmd := cli.Checked(&cobra.Command{
		Use:  "fill",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				var ids []int
				if rows != "" {
					ids, _ = cli.ParseRows(rows) // checked before the command started
				}
				t, err := e.Gas().Table(ctx, table, ids...) // a row it lacks is refused: the fill would work none
				var rowErr *service.GasRowError
				if errors.As(err, &rowErr) {
					return cli.Usage("--rows %q: %w", rows, err)
				} else if err != nil {
					return gasErr(err)
				}
				table = t.Name
				var tierList []string
				if tiers != "" {
					tierList = cli.SplitList(tiers) // "suppliers, standards" names two collections
					if err := checkCollections(ctx, e, "tiers", tiers, tierList); err != nil {
						return err
					}
				}
				bar := cli.NewProgressLine(a.stderr)
				sink := func(ev service.RunEvent) {
					if done, total, name, ok := service.GasFillProgress(ev); ok {
						bar.Draw(fmt.Sprintf("filling: %d/%d rows · %s", done, total, name))
					}
				}
				var res service.GasFillResult
				if resume {
					res, err = e.Gas().ResumeFill(ctx, table, sink)
					if errors.Is(err, service.ErrNoUnfinishedFill) {
						return fmt.Errorf("no interrupted fill of %q to resume: run `warren gas fill` without --resume", table)
					}
					if err == nil && res.AlreadyDone {
						fmt.Fprintln(a.stderr, "Every row of the interrupted fill was already done.")
						return nil
					}
				} else {
					// Without --rows the desk picks the rows, as the Gas tab's F does.
					res, err = e.Gas().StartFill(ctx, table, ids, tierList, sink)
					if errors.Is(err, service.ErrGasNothingToFill) {
						bar.Done()
						fmt.Fprintf(a.stderr, "%s: %s.\n", cli.Line(table), err)
						return nil
					}
				}
				bar.Done()
				sum := res.Summary()
				sum.Table = table
				switch {
				case err != nil && ctx.Err() != nil:
					sum.Interrupted = true
				case err != nil:
					return fmt.Errorf("the fill stopped (finished rows are saved; `warren gas fill --resume` goes on): %w", err)
				}
				return a.report(cmd, sum, cli.FillOutcome(sum), func(w io.Writer) {
					fmt.Fprintf(w, "%s: %d rows, %d cells filled (%d need review); model calls per row: median %.0f, max %d.\n",
						cli.Line(sum.Table), sum.Rows, sum.Filled, sum.Review, sum.CallsMedian, sum.CallsMax)
					if sum.Unsupported > 0 {
						fmt.Fprintf(w, "  %d values no passage states were kept as unsupported, for review; they are not filled.\n", sum.Unsupported)
					}
					cli.Lines(w, "  not filled: ", sum.NotGrounded)
					for _, r := range sum.Results {
						if r.Err != "" && r.Name != "" {
							fmt.Fprintf(w, "  failed: row %d %s: %s\n", r.Row, cli.Line(r.Name), cli.Line(r.Err))
						}
					}
				})
			})
		},
	},
		cli.Parsed("rows", &rows, func(v string) error { _, err := cli.ParseRows(v); return err }),
		cli.CollectionList("tiers", &tiers),
		cli.When("resume", func(cmd *cobra.Command, args []string) error {
			if resume && (cli.Given(cmd, "rows") || cli.Given(cmd, "tiers")) {
				return fmt.Errorf("--resume with --rows or --tiers: --resume goes on with the interrupted fill's rows and tiers; leave out --rows and --tiers")
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVar(&table, "table", "", "the gas table (default: the only one)")
	f.StringVar(&rows, "rows", "", "rows to fill, e.g. 1-20,25 (default: the rows with cells to fill)")
	f.StringVar(&tiers, "tiers", "", "collections to search, in order (default suppliers,standards,regulatory,general)")
	f.BoolVar(&resume, "resume", false, "go on with an interrupted fill: only the rows it had not finished")
	return cmd
}

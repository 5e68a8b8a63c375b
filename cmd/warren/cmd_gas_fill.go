package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"warren/agent"
	"warren/internal/cli"
	"warren/service"
)

// maxRows bounds one --rows range: far above any gas table, far below an allocation to fear.
const maxRows = 100_000

// parseRows reads "1-20,25" into row IDs.
func parseRows(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, fmt.Errorf("--rows %q: allowed is row numbers and ranges such as 1-20,25", s)
		}
		if b-a >= maxRows {
			return nil, fmt.Errorf("--rows %q: allowed is ranges of at most %d rows (leave out --rows to fill every row)", s, maxRows)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--rows %q: allowed is row numbers and ranges such as 1-20,25 (leave out --rows to fill every row)", s)
	}
	return out, nil
}

// fillSummary is what `warren gas fill --json` prints.
type fillSummary = service.GasFillSummary

func (a *app) gasFillCommand() *cobra.Command {
	var table, rows, tiers string
	var resume bool
	cmd := cli.Checked(&cobra.Command{
		Use:   "fill",
		Short: "Fill empty cells from the knowledge base, each with its source, confidence and method",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			var ids []int
			if rows != "" {
				ids, _ = parseRows(rows) // checked before the command started
			}
			t, err := e.LoadGasTable(ctx, table, ids...) // a row it lacks is refused: the fill would work none
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
			sink := func(ev agent.Event) {
				if done, total, name, ok := service.GasFillProgress(ev); ok {
					bar.Draw(fmt.Sprintf("filling: %d/%d rows · %s", done, total, name))
				}
			}
			var res service.GasFillResult
			if resume {
				res, err = e.ResumeGasFill(ctx, table, sink)
				if errors.Is(err, service.ErrNoUnfinishedFill) {
					return fmt.Errorf("no interrupted fill of %q to resume: run `warren gas fill` without --resume", table)
				}
				if err == nil && res.AlreadyDone {
					fmt.Fprintln(a.stderr, "Every row of the interrupted fill was already done.")
					return nil
				}
			} else {
				res, err = e.StartGasFill(ctx, table, ids, tierList, sink)
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
			if !a.jsonOut {
				fmt.Fprintf(a.stdout, "%s: %d rows, %d cells filled (%d need review); model calls per row: median %.0f, max %d.\n",
					sum.Table, sum.Rows, sum.Filled, sum.Review, sum.CallsMedian, sum.CallsMax)
				for _, n := range sum.NotGrounded {
					fmt.Fprintf(a.stdout, "  not filled: %s\n", n)
				}
				for _, r := range sum.Results {
					if r.Err != "" && r.Name != "" {
						fmt.Fprintf(a.stdout, "  failed: row %d %s: %s\n", r.Row, r.Name, r.Err)
					}
				}
			}
			if err := fillOutcome(sum); err != nil {
				return a.fail(cmd, sum, err)
			}
			if a.jsonOut {
				return a.printJSON(sum)
			}
			return nil
		},
	},
		cli.Parsed("rows", &rows, func(v string) error { _, err := parseRows(v); return err }),
		cli.CollectionList("tiers", &tiers),
		cli.When("resume", func(cmd *cobra.Command, args []string) error {
			if resume && (cli.Given(cmd, "rows") || cli.Given(cmd, "tiers")) {
				return fmt.Errorf("--resume with --rows or --tiers: --resume goes on with the interrupted fill's rows and tiers; leave out --rows and --tiers")
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVar(&table, "table", "", "the gas table (default: the only one)")
	f.StringVar(&rows, "rows", "", "rows to fill, e.g. 1-20,25 (default: all)")
	f.StringVar(&tiers, "tiers", "", "collections to search, in order (default suppliers,standards,regulatory,general)")
	f.BoolVar(&resume, "resume", false, "go on with an interrupted fill: only the rows it had not finished")
	return cmd
}

// fillOutcome is the exit class of a fill: interrupted (1), every row failed (1), some rows
// failed (3), or nil. The message names the first failed row's error.
func fillOutcome(sum fillSummary) error {
	if sum.Interrupted {
		return cli.WithHint(errors.New("interrupted: every finished row is saved"), "`warren gas fill --resume` goes on with the rest")
	}
	if sum.Failed == 0 {
		return nil
	}
	first := ""
	if r, ok := sum.FirstFailure(); ok {
		first = fmt.Sprintf(" (first: row %d %s: %s)", r.Row, r.Name, r.Err)
	}
	hint := "`warren gas fill --resume` retries the failed rows"
	if sum.Failed == sum.Rows {
		return cli.WithHint(fmt.Errorf("every row failed (%d, listed)%s", sum.Failed, first), hint)
	}
	return cli.Partial(hint, "%d of %d rows failed (listed)%s; the others are saved", sum.Failed, sum.Rows, first)
}

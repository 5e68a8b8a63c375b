package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"warren/agent"
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
	cmd := checked(&cobra.Command{
		Use:   "fill",
		Short: "Fill empty cells from the knowledge base, each with its source, confidence and method",
		Long: `fill works row by row, one checkpointed step per row: it grounds the substance first (its
CAS number and names must be found in the knowledge base, or the row is left alone), searches
the collections tier by tier, extracts every still-empty field in one model call per tier,
validates each value for its field (CAS check digit, ranges, units converted to the table's),
and fills an empty cell at confidence ≥ thresholds.fill_confidence. A filled value is replaced
only by one thresholds.overwrite_margin more confident; approved and edited cells are never
touched. Each finished row is saved at once, so Ctrl-C keeps everything done, and --resume
goes on with the rows the latest unfinished fill had not finished (the model calls the row in
flight had made are replayed from the run's journal, not made again). The exit status is 3
when some rows failed (each is listed; the others are saved) and 1 when every row failed or
the fill stopped.`,
		Example: "  warren gas fill\n  warren gas fill --rows 1-20 --tiers suppliers,standards --json\n  warren gas fill --resume",
		Args:    cobra.NoArgs,
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
				return usageError{fmt.Errorf("--rows %q: %w", rows, err)}
			} else if err != nil {
				return gasErr(err)
			}
			table = t.Name
			var tierList []string
			if tiers != "" {
				tierList = splitList(tiers) // "suppliers, standards" names two collections
				if err := checkCollections(ctx, e, "tiers", tiers, tierList); err != nil {
					return err
				}
			}
			bar := newProgressLine(a.stderr)
			sink := func(ev agent.Event) {
				if done, total, name, ok := service.GasFillProgress(ev); ok {
					bar.draw(fmt.Sprintf("filling: %d/%d rows · %s", done, total, name))
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
			bar.done()
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
		parsed("rows", &rows, func(v string) error { _, err := parseRows(v); return err }),
		collectionList("tiers", &tiers),
		when("resume", func(cmd *cobra.Command, args []string) error {
			if resume && (given(cmd, "rows") || given(cmd, "tiers")) {
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
		return withHint(errors.New("interrupted: every finished row is saved"), "`warren gas fill --resume` goes on with the rest")
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
		return withHint(fmt.Errorf("every row failed (%d, listed)%s", sum.Failed, first), hint)
	}
	return partialError(hint, "%d of %d rows failed (listed)%s; the others are saved", sum.Failed, sum.Rows, first)
}

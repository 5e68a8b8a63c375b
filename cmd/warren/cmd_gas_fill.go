package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"warren/agent/gasfill"
	"warren/kb/hmis"
	"warren/llm"
	"warren/retrieval"
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
type fillSummary struct {
	Table       string              `json:"table"`
	Rows        int                 `json:"rows"`
	Filled      int                 `json:"filled"`
	Review      int                 `json:"review"`
	CallsMedian float64             `json:"calls_per_row_median"`
	CallsMax    int                 `json:"calls_per_row_max"`
	NotGrounded []string            `json:"not_grounded,omitempty"`
	Failed      int                 `json:"failed,omitempty"`
	Results     []gasfill.RowResult `json:"results"`
	Interrupted bool                `json:"interrupted,omitempty"`
	LedgerRun   string              `json:"ledger_run"` // the fill's model calls in the workspace ledger
}

func (a *app) gasFillCommand() *cobra.Command {
	var table, rows, tiers string
	var resume bool
	cmd := checked(&cobra.Command{
		Use:   "fill",
		Short: "Fill empty cells from the knowledge base, each with its source, confidence and method",
		Long: `fill works row by row (several at once): it grounds the substance first (its CAS number and
names must be found in the knowledge base, or the row is left alone), searches the collections
tier by tier, extracts every still-empty field in one model call per tier, validates each value
for its field (CAS check digit, ranges, units converted to the table's), and fills an empty cell
at confidence ≥ thresholds.fill_confidence. A filled value is replaced only by one
thresholds.overwrite_margin more confident; approved and edited cells are never touched. Each
finished row is saved at once, so Ctrl-C keeps everything done, and --resume goes on with the
rows an interrupted fill had not finished. The exit status is 3 when some rows failed (each is
listed; the others are saved) and 1 when every row failed or the fill stopped.`,
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
			st, t, err := loadGasTable(ctx, e, &table)
			if err != nil {
				return err
			}
			var ids []int
			if rows != "" {
				ids, _ = parseRows(rows) // checked before the command started
				for _, id := range ids {
					if t.Row(id) == nil { // else the fill would work no row and say it filled nothing
						return usageError{fmt.Errorf("--rows %q: gas table %q has no row %d (it has %d rows)", rows, table, id, len(t.Rows))}
					}
				}
			}
			opts := gasfill.DefaultOptions()
			opts.Concurrency = max(e.WS.Config.Ollama.MaxConcurrency, 1)
			opts.MinConfidence = e.WS.Config.Thresholds.FillConfidence
			opts.OverwriteMargin = e.WS.Config.Thresholds.OverwriteMargin
			if tiers != "" {
				opts.Tiers = splitList(tiers) // "suppliers, standards" names two collections
				if err := checkCollections(ctx, e, "tiers", tiers, opts.Tiers); err != nil {
					return err
				}
			}
			var fillID int64
			if resume {
				last, ok, err := st.LastFill(ctx, table)
				if err != nil {
					return err
				}
				if !ok || last.Finished {
					return fmt.Errorf("no interrupted fill of %q to resume: run `warren gas fill` without --resume", table)
				}
				fillID, opts.Tiers = last.ID, last.Tiers
				ids = remainingRows(t, last)
				if len(ids) == 0 {
					if err := st.FinishFill(ctx, fillID); err != nil {
						return err
					}
					fmt.Fprintln(a.stderr, "Every row of the interrupted fill was already done.")
					return nil
				}
			} else if fillID, err = st.StartFill(ctx, table, ids, opts.Tiers); err != nil {
				return err
			}
			decisions, err := st.Decisions(ctx, table, 0, "")
			if err != nil {
				return err
			}
			f := &gasfill.Filler{Gateway: e.Gateway, Searcher: &retrieval.Searcher{Store: e.Store, Gateway: e.Gateway}, Store: e.Store,
				Options: opts, Rejected: gasfill.RejectedValues(decisions)}
			ledgerRun := fmt.Sprintf("gasfill-%d", fillID)
			f.Ledger = func(le llm.LedgerEntry) { e.KeepLedger(ctx, ledgerRun, le) }
			total := len(t.Rows)
			if len(ids) > 0 {
				total = len(ids)
			}
			bar := newProgressLine(a.stderr)
			var mu sync.Mutex
			done := 0
			results, err := f.Fill(ctx, t, ids, func(r *gasfill.RowResult) error {
				if err := saveFilledRow(context.WithoutCancel(ctx), st, fillID, table, r); err != nil {
					return err
				}
				mu.Lock()
				done++
				bar.draw(fmt.Sprintf("filling: %d/%d rows · %s", done, total, r.Name))
				mu.Unlock()
				return nil
			})
			bar.done()
			sum := summarizeFill(table, results)
			sum.LedgerRun = ledgerRun
			switch {
			case err != nil && ctx.Err() != nil:
				sum.Interrupted = true
			case err != nil:
				return fmt.Errorf("the fill stopped (finished rows are saved; `warren gas fill --resume` goes on): %w", err)
			case sum.Failed == 0:
				if err := st.FinishFill(context.WithoutCancel(ctx), fillID); err != nil {
					return err
				}
			}
			if !a.jsonOut {
				printFill(a, sum)
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

// printFill prints what a fill did, and the rows it could not ground or fill.
func printFill(a *app, sum fillSummary) {
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
	for _, r := range sum.Results {
		if r.Err != "" {
			first = fmt.Sprintf(" (first: row %d %s: %s)", r.Row, r.Name, r.Err)
			break
		}
	}
	hint := "`warren gas fill --resume` retries the failed rows"
	if sum.Failed == sum.Rows {
		return withHint(fmt.Errorf("every row failed (%d, listed)%s", sum.Failed, first), hint)
	}
	return partialError(hint, "%d of %d rows failed (listed)%s; the others are saved", sum.Failed, sum.Rows, first)
}

// saveFilledRow writes a finished row in one transaction and marks it done in the fill run;
// cells the analyst changed meanwhile are kept, and dropped from the row's result.
func saveFilledRow(ctx context.Context, st *hmis.Store, fill int64, table string, r *gasfill.RowResult) error {
	changes := make([]hmis.FillChange, len(r.Changes))
	for i, c := range r.Changes {
		changes[i] = hmis.FillChange{Field: c.Field, Before: c.Before, After: c.After, Reason: "fill: " + c.Reason}
	}
	if r.Err != "" {
		fill = 0 // what the row found is kept, but it is not done: --resume tries it again
	}
	written, err := st.SaveFillRow(ctx, fill, table, r.Row, changes)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, w := range written {
		kept[w.Field] = true
	}
	r.Changes = slices.DeleteFunc(r.Changes, func(c gasfill.CellChange) bool { return !kept[c.Field] })
	r.Filled = len(r.Changes)
	return nil
}

// remainingRows lists the rows of an interrupted fill it had not finished.
func remainingRows(t *hmis.Table, last hmis.Fill) []int {
	done := map[int]bool{}
	for _, id := range last.Done {
		done[id] = true
	}
	want := map[int]bool{}
	for _, id := range last.Rows {
		want[id] = true
	}
	var out []int
	for _, r := range t.Rows {
		if (len(want) == 0 || want[r.ID]) && !done[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

func summarizeFill(table string, results []gasfill.RowResult) fillSummary {
	sum := fillSummary{Table: table, Results: results}
	var calls []int
	for _, r := range results {
		if r.Name == "" && r.Row == 0 {
			continue // a row never started (interrupted)
		}
		sum.Rows++
		calls = append(calls, r.Calls)
		sum.CallsMax = max(sum.CallsMax, r.Calls)
		for _, c := range r.Changes {
			sum.Filled++
			if c.After.Status == hmis.StatusReview {
				sum.Review++
			}
		}
		if r.Err != "" {
			sum.Failed++
			continue
		}
		if !r.Grounded {
			name := r.Name
			if strings.TrimSpace(name) == "" {
				name = fmt.Sprintf("row %d", r.Row)
			}
			sum.NotGrounded = append(sum.NotGrounded, fmt.Sprintf("%s (%s)", name, r.Identity))
		}
	}
	sort.Ints(calls)
	if n := len(calls); n > 0 {
		sum.CallsMedian = float64(calls[n/2])
		if n%2 == 0 {
			sum.CallsMedian = float64(calls[n/2-1]+calls[n/2]) / 2
		}
	}
	return sum
}

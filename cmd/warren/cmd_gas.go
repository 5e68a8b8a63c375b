package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"warren/agent/gasfill"
	"warren/agent/llm"
	"warren/agent/tablequery"
	"warren/kb/hmis"
	"warren/retrieval"
)

func (a *app) gasCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gas",
		Short: "The HMIS gas table: import, fill from the knowledge base, query, export",
		Long: `gas keeps HMIS hazardous-gas tables in the workspace. fill sets empty cells from the knowledge
base, each value with its source passage, confidence and method, and marks uncertain ones for
review; cells you approved or edited are never touched. query asks the table in plain language.`,
		Example: `  warren gas import sample/gas/hmis-sample.csv
  warren gas fill --rows 1-5
  warren gas query "flammable gases without a CAS number"
  warren gas export exports/hmis.xlsx`,
	}
	cmd.AddCommand(a.gasImportCommand(), a.gasListCommand(), a.gasFillCommand(), a.gasQueryCommand(), a.gasExportCommand(), a.gasReviewCommand())
	return cmd
}

// gasTable resolves --table: the named table, or the only one there is.
func gasTable(ctx context.Context, st *hmis.Store, name string) (string, error) {
	if name != "" {
		return name, nil
	}
	names, err := st.Tables(ctx)
	if err != nil {
		return "", err
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("no gas table in the workspace: import one with `warren gas import FILE`")
	case 1:
		return names[0], nil
	}
	return "", usageError{fmt.Errorf("the workspace has %d gas tables (%s): choose one with --table", len(names), strings.Join(names, ", "))}
}

// loadGasTable opens the gas store of the workspace and loads the table --table names (the
// only one when it names none), setting *name to it.
func loadGasTable(ctx context.Context, e *env, name *string) (*hmis.Store, *hmis.Table, error) {
	st := &hmis.Store{DB: e.ws.DB}
	var err error
	if *name, err = gasTable(ctx, st, *name); err != nil {
		return nil, nil, err
	}
	t, err := st.LoadTable(ctx, *name)
	if err != nil {
		return nil, nil, err
	}
	return st, t, nil
}

func (a *app) gasImportCommand() *cobra.Command {
	var name string
	var replace bool
	cmd := &cobra.Command{
		Use:     "import FILE",
		Short:   "Import a gas table from xlsx or CSV (headers matched to the 47 HMIS fields; other columns kept)",
		Example: "  warren gas import hmis.xlsx\n  warren gas import sample/gas/hmis-sample.csv --name fab-k2",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			var t *hmis.Table
			switch strings.ToLower(filepath.Ext(args[0])) {
			case ".xlsx":
				t, err = hmis.ImportXLSX(args[0])
			case ".csv":
				t, err = hmis.ImportCSV(args[0])
			default:
				return usageError{fmt.Errorf("%s: give an .xlsx or .csv file", args[0])}
			}
			if err != nil {
				return err
			}
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
			}
			t.Name = name
			st := &hmis.Store{DB: e.ws.DB}
			existing, err := st.Tables(cmd.Context())
			if err != nil {
				return err
			}
			replacing := slices.Contains(existing, name)
			if replacing && !replace {
				return fmt.Errorf("a gas table %q exists: import with --replace to overwrite it, or --name to keep both", name)
			}
			if err := st.SaveTable(cmd.Context(), t); err != nil {
				return err
			}
			if replacing {
				if err := st.ClearHistory(cmd.Context(), name); err != nil {
					return err
				}
			}
			empty, flagged := len(t.EmptyCells()), t.Counts()[hmis.StatusReview]
			sum := map[string]any{"table": name, "rows": len(t.Rows), "columns": len(t.Columns), "empty_cells": empty, "flagged_in_sheet": flagged}
			if a.jsonOut {
				return a.printJSON(sum)
			}
			fmt.Fprintf(a.stdout, "Imported %q: %d rows, %d columns, %d empty cells of %d", name, len(t.Rows), len(t.Columns), empty, len(t.Rows)*len(hmis.Fields()))
			if flagged > 0 {
				fmt.Fprintf(a.stdout, ", %d invalid values kept and flagged for review", flagged)
			}
			fmt.Fprintln(a.stdout, ".")
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "table name (default: the file name)")
	cmd.Flags().BoolVar(&replace, "replace", false, "replace a table of the same name (its decision log and fill runs start afresh)")
	return cmd
}

func (a *app) gasListCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the gas tables",
		Example: "  warren gas list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			names, err := (&hmis.Store{DB: e.ws.DB}).Tables(cmd.Context())
			if err != nil {
				return err
			}
			if a.jsonOut {
				names = emptyIfNil(names)
				return a.printJSON(names)
			}
			if len(names) == 0 {
				fmt.Fprintln(a.stdout, "No gas tables: import one with `warren gas import FILE`.")
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, n)
			}
			return nil
		},
	}
}

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
			return nil, fmt.Errorf("--rows %q: use row numbers and ranges such as 1-20,25", s)
		}
		if b-a >= maxRows {
			return nil, fmt.Errorf("--rows %q: a range of more than %d rows; leave out --rows to fill every row", s, maxRows)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
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
	cmd := &cobra.Command{
		Use:   "fill",
		Short: "Fill empty cells from the knowledge base, each with its source, confidence and method",
		Long: `fill works row by row (several at once): it grounds the substance first (its CAS number and
names must be found in the knowledge base, or the row is left alone), searches the collections
tier by tier, extracts every still-empty field in one model call per tier, validates each value
for its field (CAS check digit, ranges, units converted to the table's), and fills an empty cell
at confidence ≥ thresholds.fill_confidence. A filled value is replaced only by one
thresholds.overwrite_margin more confident; approved and edited cells are never touched. Each
finished row is saved at once, so Ctrl-C keeps everything done, and --resume goes on with the
rows an interrupted fill had not finished.`,
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
				if ids, err = parseRows(rows); err != nil {
					return usageError{err}
				}
				for _, id := range ids {
					if t.Row(id) == nil { // else the fill would work no row and say it filled nothing
						return usageError{fmt.Errorf("--rows %q: gas table %q has no row %d (it has %d rows)", rows, table, id, len(t.Rows))}
					}
				}
			}
			opts := gasfill.DefaultOptions()
			opts.Concurrency = max(e.ws.Config.Ollama.MaxConcurrency, 1)
			opts.MinConfidence = e.ws.Config.Thresholds.FillConfidence
			opts.OverwriteMargin = e.ws.Config.Thresholds.OverwriteMargin
			if tiers != "" {
				opts.Tiers = nil
				for _, tier := range strings.Split(tiers, ",") {
					if tier = strings.TrimSpace(tier); tier != "" { // "suppliers, standards" names two collections
						opts.Tiers = append(opts.Tiers, tier)
					}
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
				if rows != "" || tiers != "" {
					return usageError{fmt.Errorf("--resume goes on with the interrupted fill's rows and tiers: leave out --rows and --tiers")}
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
			f := &gasfill.Filler{Gateway: e.gateway, Searcher: &retrieval.Searcher{Store: e.store, Gateway: e.gateway}, Store: e.store,
				Options: opts, Rejected: gasfill.RejectedValues(decisions)}
			ledgerRun := fmt.Sprintf("gasfill-%d", fillID)
			f.Ledger = func(le llm.LedgerEntry) { keepLedger(ctx, e, ledgerRun, le) }
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
			if a.jsonOut {
				return a.printJSON(sum)
			}
			fmt.Fprintf(a.stdout, "%s: %d rows, %d cells filled (%d need review); model calls per row: median %.0f, max %d.\n",
				table, sum.Rows, sum.Filled, sum.Review, sum.CallsMedian, sum.CallsMax)
			for _, n := range sum.NotGrounded {
				fmt.Fprintf(a.stdout, "  not filled: %s\n", n)
			}
			for _, r := range sum.Results {
				if r.Err != "" && r.Name != "" {
					fmt.Fprintf(a.stdout, "  failed: row %d %s: %s\n", r.Row, r.Name, r.Err)
				}
			}
			if sum.Failed > 0 && !sum.Interrupted {
				return fmt.Errorf("%d rows failed (listed above); the others are saved, and `warren gas fill --resume` retries the failed ones", sum.Failed)
			}
			if sum.Interrupted {
				return fmt.Errorf("interrupted: every finished row is saved; `warren gas fill --resume` goes on with the rest")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&table, "table", "", "the gas table (default: the only one)")
	f.StringVar(&rows, "rows", "", "rows to fill, e.g. 1-20,25 (default: all)")
	f.StringVar(&tiers, "tiers", "", "collections to search, in order (default suppliers,standards,regulatory,general)")
	f.BoolVar(&resume, "resume", false, "go on with an interrupted fill: only the rows it had not finished")
	return cmd
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

// querySchema describes the table to the query engine.
func querySchema(t *hmis.Table) tablequery.Schema {
	var s tablequery.Schema
	for _, f := range hmis.Fields() {
		typ := "string"
		switch f.Kind {
		case hmis.KindNumber, hmis.KindTemperature, hmis.KindPressure, hmis.KindPercent, hmis.KindPPM:
			typ = "number"
		case hmis.KindRating:
			typ = "int"
		case hmis.KindBool:
			typ = "bool"
		}
		var examples []string
		for _, r := range t.Rows {
			if v := r.Cells[f.Name].Value; v != "" && len(examples) < 3 {
				examples = append(examples, v)
			}
		}
		s = append(s, tablequery.Field{Name: f.Name, Type: typ, Unit: f.Unit, Doc: f.Label, Examples: examples})
	}
	return s
}

// queryRows turns the table into typed rows; an empty or unreadable value is nil.
func queryRows(t *hmis.Table, schema tablequery.Schema) []map[string]any {
	rows := make([]map[string]any, len(t.Rows))
	for i, r := range t.Rows {
		m := map[string]any{}
		for _, f := range schema {
			v := r.Cells[f.Name].Value
			if v == "" {
				m[f.Name] = nil
				continue
			}
			switch f.Type {
			case "number":
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					m[f.Name] = x
				} else {
					m[f.Name] = nil
				}
			case "int":
				if x, err := strconv.Atoi(v); err == nil {
					m[f.Name] = x
				} else {
					m[f.Name] = nil
				}
			case "bool":
				switch v {
				case "yes", "true":
					m[f.Name] = true
				case "no", "false":
					m[f.Name] = false
				default: // "n/a", or sheet text that didn't validate: unknown, not "no"
					m[f.Name] = nil
				}
			default:
				m[f.Name] = v
			}
		}
		rows[i] = m
	}
	return rows
}

func (a *app) gasQueryCommand() *cobra.Command {
	var table, expression string
	cmd := &cobra.Command{
		Use:   "query QUESTION",
		Short: "Ask the gas table in plain language (or give a filter expression with --expr)",
		Long: `query has the model write a filter expression over the table's fields, checks it against the
typed schema before it runs, and lists the matching rows with the expression, which you can
edit and run again with --expr. When the model cannot produce a valid expression in six calls,
a simple word match is used instead and the output says so.`,
		Example: `  warren gas query "flammable gases without a CAS number"
  warren gas query --expr 'ghs02_flammable == true && empty(cas_number)'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 0) == (expression == "") {
				return usageError{fmt.Errorf("give a QUESTION or --expr EXPRESSION")}
			}
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			_, t, err := loadGasTable(ctx, e, &table)
			if err != nil {
				return err
			}
			schema := querySchema(t)
			answer := &tablequery.Answer{Expression: expression}
			ledgerRun := ""
			if expression == "" {
				answer, err = tablequery.Ask(ctx, e.gateway, schema, args[0])
				if answer != nil {
					ledgerRun = queryLedgerRun()
					keepLedger(ctx, e, ledgerRun, answer.Ledger...)
				}
				if err != nil {
					return err
				}
			}
			program, err := tablequery.Compile(schema, answer.Expression)
			if err != nil {
				return err
			}
			hits, err := tablequery.Run(program, queryRows(t, schema))
			if err != nil {
				return err
			}
			var names []string
			for _, i := range hits {
				names = append(names, t.Rows[i].Name())
			}
			if a.jsonOut {
				names = emptyIfNil(names)
				return a.printJSON(map[string]any{"expression": answer.Expression, "fallback": answer.Fallback, "note": answer.Note,
					"calls": answer.Calls, "ledger_run": ledgerRun, "rows": names})
			}
			label := "expression"
			if answer.Fallback {
				label = "fallback word match (no expression from the model)"
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", label, answer.Expression)
			if answer.Fallback && answer.Note != "" {
				fmt.Fprintln(a.stdout, answer.Note) // why: the model's answers failed, or it could not be asked (and the fix)
			}
			fmt.Fprintf(a.stdout, "%d of %d rows match:\n", len(names), len(t.Rows))
			for _, n := range names {
				fmt.Fprintf(a.stdout, "  %s\n", n)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	cmd.Flags().StringVar(&expression, "expr", "", "run this filter expression instead of asking the model")
	return cmd
}

func (a *app) gasExportCommand() *cobra.Command {
	var table string
	cmd := &cobra.Command{
		Use:     "export FILE.xlsx",
		Short:   "Export the table to xlsx: original columns, cells coloured by status, sources in comments, a provenance sheet",
		Example: "  warren gas export exports/hmis.xlsx",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !strings.EqualFold(filepath.Ext(args[0]), ".xlsx") {
				return usageError{fmt.Errorf("%s: the export is an .xlsx file", args[0])}
			}
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			_, t, err := loadGasTable(cmd.Context(), e, &table)
			if err != nil {
				return err
			}
			if err := hmis.ExportXLSX(t, args[0]); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"table": table, "file": args[0], "rows": len(t.Rows)})
			}
			fmt.Fprintf(a.stdout, "Exported %q (%d rows) to %s.\n", table, len(t.Rows), args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"warren/gas"
	"warren/internal/cli"
	"warren/service"
)

// The analyst's decisions on the cells of a gas table from the command line. They are the gas
// desk's methods (service.Gas), the ones the Gas tab calls: the same rules, the same refusals.

// gasFixCommands word the way out of a refused decision in commands.
var gasFixCommands = map[service.GasFix]string{
	service.GasFixType:           "set one with `warren gas edit ROW FIELD VALUE`",
	service.GasFixTypeOrUndo:     "set one with `warren gas edit ROW FIELD VALUE`, or take the rejection back with `warren gas undo`",
	service.GasFixCorrect:        "correct it with `warren gas edit ROW FIELD VALUE`",
	service.GasFixApproveOne:     "approve cells one at a time with `warren gas approve ROW FIELD`",
	service.GasFixRejectOrCancel: "give one, or empty the cell with `warren gas reject ROW FIELD`",
	service.GasFixEditOrReject:   "correct it with `warren gas edit ROW FIELD VALUE`, or empty the cell with `warren gas reject ROW FIELD`",
}

// gasDecisionErr words the desk's refusal of a decision (and of a table) for the command line.
func gasDecisionErr(err error) error {
	var refusal *service.GasRefusal
	if errors.As(err, &refusal) {
		if hint := gasFixCommands[refusal.Fix]; hint != "" {
			return cli.WithHint(err, hint)
		}
		return err
	}
	return gasErr(err)
}

// gasRowArg checks that ROW (argument 0) is a row number.
var gasRowArg = cli.When("ROW", func(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		if n, err := strconv.Atoi(args[0]); err != nil || n < 1 {
			return fmt.Errorf("ROW %q: allowed is a row number, 1 or more (`warren gas query --expr 'true'` lists the rows)", args[0])
		}
	}
	return nil
})

// gasFieldArg checks that FIELD (argument 1) names a field of the HMIS schema.
var gasFieldArg = cli.When("FIELD", func(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		if _, ok := gas.FieldByName(args[1]); !ok {
			return fmt.Errorf("FIELD %q: allowed is a field name such as boiling_point_c (docs/hmis-fields.md lists them)", args[1])
		}
	}
	return nil
})

// gasCell loads the table that --table names and the cell a decision is made on: the
// decision is made on the cell as it is stored now.
func gasCell(ctx context.Context, e *env, table string, args []string) (*gas.Table, *gas.Row, gas.Field, error) {
	row, _ := strconv.Atoi(args[0]) // checked before the command started
	t, err := e.Gas().Table(ctx, table, row)
	var rowErr *service.GasRowError
	if errors.As(err, &rowErr) {
		return nil, nil, gas.Field{}, cli.Usage("ROW %q: %w", args[0], err)
	} else if err != nil {
		return nil, nil, gas.Field{}, gasErr(err)
	}
	var f gas.Field
	if len(args) > 1 {
		f, _ = gas.FieldByName(args[1])
	}
	return t, t.Row(row), f, nil
}

// printDecided prints what a decision stored, in words or as JSON.
func (a *app) printDecided(res service.GasDecided, r *gas.Row, verb string) error {
	res.Cells = cli.EmptyIfNil(res.Cells)
	return a.output(res, func(w io.Writer) error {
		if res.Unchanged {
			_, err := fmt.Fprintln(w, "The value is unchanged: nothing stored.")
			return err
		}
		for _, ch := range res.Cells {
			f, _ := gas.FieldByName(ch.Field)
			what := service.GasValueUnit(ch.Cell)
			if what == "" {
				what = "empty"
			}
			fmt.Fprintf(w, "%s %s of %s (row %d): %s\n", verb, f.Label, cli.Line(r.Name()), ch.Row, cli.Line(what))
		}
		return nil
	})
}

func (a *app) gasApproveCommand() *cobra.Command {
	var table string
	cmd := cli.Checked(&cobra.Command{
		Use:  "approve ROW [FIELD]",
		Args: cobra.RangeArgs(1, 2),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			t, r, f, err := gasCell(ctx, e, table, args)
			if err != nil {
				return err
			}
			var res service.GasDecided
			if len(args) == 1 {
				res, err = e.Gas().ApproveRow(ctx, t.Name, r.ID, r.Cells)
			} else {
				res, err = e.Gas().Approve(ctx, t.Name, r.ID, f.Name, r.Cells[f.Name])
			}
			if err != nil && len(res.Cells) == 0 {
				return gasDecisionErr(err)
			}
			if perr := a.printDecided(res, r, "Approved"); perr != nil || err == nil {
				return perr
			}
			return gasDecisionErr(err) // some cells of the row approved, then a refusal
		}),
	}, gasRowArg, gasFieldArg)
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

func (a *app) gasRejectCommand() *cobra.Command {
	var table string
	cmd := cli.Checked(&cobra.Command{
		Use:  "reject ROW FIELD",
		Args: cobra.ExactArgs(2),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			t, r, f, err := gasCell(ctx, e, table, args)
			if err != nil {
				return err
			}
			res, err := e.Gas().Reject(ctx, t.Name, r.ID, f.Name, r.Cells[f.Name])
			if err != nil {
				return gasDecisionErr(err)
			}
			return a.printDecided(res, r, "Rejected")
		}),
	}, gasRowArg, gasFieldArg)
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

func (a *app) gasEditCommand() *cobra.Command {
	var table string
	cmd := cli.Checked(&cobra.Command{
		Use:  "edit ROW FIELD VALUE",
		Args: cobra.ExactArgs(3),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			t, r, f, err := gasCell(ctx, e, table, args)
			if err != nil {
				return err
			}
			res, err := e.Gas().Edit(ctx, t.Name, r.ID, f.Name, args[2], r.Cells[f.Name])
			if err != nil {
				return gasDecisionErr(err)
			}
			return a.printDecided(res, r, "Saved")
		}),
	}, gasRowArg, gasFieldArg)
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

// gasUndone is what an undo restored.
type gasUndone struct {
	Table string   `json:"table"`
	Row   int      `json:"row"`
	Field string   `json:"field"`
	Cell  gas.Cell `json:"cell"`
}

func (a *app) gasUndoCommand() *cobra.Command {
	var table string
	cmd := &cobra.Command{
		Use:  "undo",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			name, err := e.Gas().Resolve(ctx, table)
			if err != nil {
				return gasErr(err)
			}
			row, field, err := e.Gas().Undo(ctx, name)
			if errors.Is(err, gas.ErrNothingToUndo) {
				return cli.WithHint(err, "only your own decisions are undone, latest first")
			} else if err != nil {
				return err
			}
			t, err := e.Gas().Table(ctx, name)
			if err != nil {
				return err
			}
			out := gasUndone{Table: name, Row: row, Field: field}
			rowName := fmt.Sprintf("row %d", row)
			if r := t.Row(row); r != nil {
				out.Cell, rowName = r.Cells[field], r.Name()
			}
			return a.output(out, func(w io.Writer) error {
				f, _ := gas.FieldByName(field)
				what := service.GasValueUnit(out.Cell)
				if what == "" {
					what = "empty"
				}
				_, err := fmt.Fprintf(w, "Undone: %s of %s (row %d) is %s again.\n", f.Label, cli.Line(rowName), row, cli.Line(what))
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

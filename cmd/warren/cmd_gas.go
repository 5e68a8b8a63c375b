package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"warren/gas"
	"warren/internal/cli"
	"warren/service"
)

func (a *app) gasCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "gas"}
	cmd.AddCommand(a.gasImportCommand(), a.gasListCommand(), a.gasFillCommand(), a.gasQueryCommand(), a.gasExportCommand(), a.gasReviewCommand(),
		a.gasApproveCommand(), a.gasRejectCommand(), a.gasEditCommand(), a.gasUndoCommand())
	return cmd
}

// gasErr words the service's refusals of a gas table for the command line.
func gasErr(err error) error {
	var te *service.GasTableError
	switch {
	case errors.Is(err, service.ErrNoGasTable):
		return fmt.Errorf("%w: import one with `warren gas import FILE`", err)
	case errors.As(err, &te) && te.Name != "":
		return cli.Usage("--table %q: no such gas table; allowed is %s", te.Name, cli.OrList(te.Tables))
	case errors.As(err, &te):
		return cli.Usage("the workspace has %d gas tables (%s): choose one with --table", len(te.Tables), strings.Join(te.Tables, ", "))
	}
	return err
}

func (a *app) gasImportCommand() *cobra.Command {
	var name string
	var replace bool
	cmd := &cobra.Command{
		Use:  "import FILE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) (service.GasImportSummary, error) {
				sum, err := e.Gas().Import(cmd.Context(), args[0], name, replace)
				switch {
				case errors.Is(err, service.ErrGasFileFormat):
					return sum, cli.UsageError{Err: err}
				case errors.Is(err, service.ErrGasTableExists):
					return sum, fmt.Errorf("a gas table %q exists: import with --replace to overwrite it, or --name to keep both", sum.Table)
				}
				return sum, err
			}, func(w io.Writer, sum service.GasImportSummary) error {
				fmt.Fprintf(w, "Imported %q: %d rows, %d columns, %d empty cells of %d.\n",
					sum.Table, sum.Rows, sum.Columns, sum.EmptyCells, sum.Rows*len(gas.Fields()))
				return cli.Lines(w, "", sum.Lines())
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "table name (default: the file name)")
	cmd.Flags().BoolVar(&replace, "replace", false, "replace a table of the same name (its decision log and fill runs start afresh)")
	return cmd
}

func (a *app) gasListCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) ([]string, error) {
				names, err := e.Gas().Tables(cmd.Context())
				return cli.EmptyIfNil(names), err
			}, func(w io.Writer, names []string) error {
				if len(names) == 0 {
					fmt.Fprintln(w, "No gas tables: import one with `warren gas import FILE`.")
				}
				return cli.Lines(w, "", names)
			})
		},
	}
}

func (a *app) gasQueryCommand() *cobra.Command {
	var table, expression string
	cmd := cli.Checked(&cobra.Command{
		Use:  "query QUESTION",
		Args: cobra.MaximumNArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			answer, err := e.Gas().Query(ctx, table, strings.Join(args, ""), expression) // no QUESTION: ""
			if err != nil {
				return gasErr(err)
			}
			answer.Names = cli.EmptyIfNil(answer.Names)
			return a.output(answer, func(w io.Writer) error {
				label := "expression"
				if answer.Fallback {
					label = "fallback word match (no expression from the model)"
				}
				fmt.Fprintf(w, "%s: %s\n", label, cli.Line(answer.Expression))
				if answer.Fallback && answer.Note != "" {
					fmt.Fprintln(w, cli.Line(answer.Note)) // why: the model's answers failed, or it could not be asked (and the fix)
				}
				fmt.Fprintf(w, "%d of %d rows match:\n", len(answer.Names), answer.Total)
				return cli.Lines(w, "  ", answer.Names)
			})
		}),
	},
		cli.Text(0, "QUESTION", "a question in words"),
		cli.When("expr", func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && cli.Given(cmd, "expr") && strings.TrimSpace(expression) == "":
				return fmt.Errorf("--expr %q: allowed is a filter expression (or a QUESTION instead)", expression)
			case len(args) == 0 && !cli.Given(cmd, "expr"):
				return fmt.Errorf("no QUESTION and no --expr: allowed is a QUESTION or --expr EXPRESSION")
			case len(args) == 1 && cli.Given(cmd, "expr"):
				return fmt.Errorf("--expr %q with QUESTION %q: allowed is a QUESTION or --expr EXPRESSION, not both", expression, args[0])
			}
			return nil
		}))
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	cmd.Flags().StringVar(&expression, "expr", "", "run this filter expression instead of asking the model")
	return cmd
}

func (a *app) gasExportCommand() *cobra.Command {
	var table string
	cmd := cli.Checked(&cobra.Command{
		Use:  "export FILE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// .xlsx is the table to work on; the other formats are a summary to hand on.
			if format := strings.TrimPrefix(strings.ToLower(filepath.Ext(args[0])), "."); format != "xlsx" {
				return call(a, func(e *env) (map[string]any, error) {
					path, err := e.Gas().ExportSummary(cmd.Context(), table, format, args[0])
					return map[string]any{"format": format, "path": path}, gasErr(err)
				}, func(w io.Writer, out map[string]any) error {
					_, err := fmt.Fprintf(w, "Exported the table's summary (%s) to %s.\n", format, cli.Line(out["path"].(string)))
					return err
				})
			}
			return call(a, func(e *env) (service.GasExport, error) {
				out, err := e.Gas().Export(cmd.Context(), table, args[0])
				return out, gasErr(err)
			}, func(w io.Writer, out service.GasExport) error {
				_, err := fmt.Fprintf(w, "Exported %q (%d rows) to %s.\n", out.Table, out.Rows, cli.Line(out.File))
				return err
			})
		},
	}, cli.Extension(0, "FILE", ".xlsx", ".docx", ".odt", ".pdf", ".html", ".md"))
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

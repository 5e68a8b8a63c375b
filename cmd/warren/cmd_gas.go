package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/kb/hmis"
	"warren/service"
)

func (a *app) gasCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gas",
		Short: "The HMIS gas table: import, fill from the knowledge base, query, export",
	}
	cmd.AddCommand(a.gasImportCommand(), a.gasListCommand(), a.gasFillCommand(), a.gasQueryCommand(), a.gasExportCommand(), a.gasReviewCommand())
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
		Use:   "import FILE",
		Short: "Import a gas table from xlsx or CSV (headers matched to the 47 HMIS fields; other columns kept)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			sum, err := e.ImportGas(cmd.Context(), args[0], name, replace)
			switch {
			case errors.Is(err, service.ErrGasFileFormat):
				return cli.UsageError{Err: err}
			case errors.Is(err, service.ErrGasTableExists):
				return fmt.Errorf("a gas table %q exists: import with --replace to overwrite it, or --name to keep both", sum.Table)
			case err != nil:
				return err
			case a.jsonOut:
				return a.printJSON(sum)
			}
			fmt.Fprintf(a.stdout, "Imported %q: %d rows, %d columns, %d empty cells of %d.\n",
				sum.Table, sum.Rows, sum.Columns, sum.EmptyCells, sum.Rows*len(hmis.Fields()))
			for _, line := range sum.Lines() {
				fmt.Fprintln(a.stdout, line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "table name (default: the file name)")
	cmd.Flags().BoolVar(&replace, "replace", false, "replace a table of the same name (its decision log and fill runs start afresh)")
	return cmd
}

func (a *app) gasListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the gas tables",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			names, err := e.GasTables(cmd.Context())
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(cli.EmptyIfNil(names))
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

func (a *app) gasQueryCommand() *cobra.Command {
	var table, expression string
	cmd := cli.Checked(&cobra.Command{
		Use:   "query QUESTION",
		Short: "Ask the gas table in plain language (or give a filter expression with --expr)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			question := ""
			if len(args) > 0 {
				question = args[0]
			}
			answer, err := e.GasQuery(ctx, table, question, expression)
			if err != nil {
				return gasErr(err)
			}
			names := answer.Names
			if a.jsonOut {
				answer.Names = cli.EmptyIfNil(names)
				return a.printJSON(answer)
			}
			label := "expression"
			if answer.Fallback {
				label = "fallback word match (no expression from the model)"
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", label, answer.Expression)
			if answer.Fallback && answer.Note != "" {
				fmt.Fprintln(a.stdout, answer.Note) // why: the model's answers failed, or it could not be asked (and the fix)
			}
			fmt.Fprintf(a.stdout, "%d of %d rows match:\n", len(names), answer.Total)
			for _, n := range names {
				fmt.Fprintf(a.stdout, "  %s\n", n)
			}
			return nil
		},
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
		Use:   "export FILE.xlsx",
		Short: "Export the table to xlsx: original columns, cells coloured by status, sources in comments, a provenance sheet",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			out, err := e.ExportGas(cmd.Context(), table, args[0])
			if err != nil {
				return gasErr(err)
			}
			if a.jsonOut {
				return a.printJSON(out)
			}
			fmt.Fprintf(a.stdout, "Exported %q (%d rows) to %s.\n", out.Table, out.Rows, out.File)
			return nil
		},
	}, cli.Extension(0, "FILE", ".xlsx"))
	cmd.Flags().StringVar(&table, "table", "", "the gas table (default: the only one)")
	return cmd
}

package main

import (
	"context"
	"fmt"
	"strings"
	"warren/internal/snippet"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
)

// runAllowed is what a RUN argument may be.
const runAllowed = "a run ID (`warren sessions list` shows them)"

func (a *app) sessionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "sessions"}
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			runs, err := e.Research().Sessions(ctx)
			if err != nil {
				return err
			}
			return a.listing(cli.EmptyIfNil(runs), "No saved runs: start one with `warren research \"question\"`.",
				"RUN\tSTATE\tSTEPS\tUPDATED\tQUESTION", len(runs), func(i int) string {
					r := runs[i]
					return fmt.Sprintf("%s\t%s\t%d\t%s\t%s", r.ID, r.Shown(), r.Steps, r.UpdatedAt.Local().Format("2006-01-02 15:04"), snippet.Cut(r.Title, 60))
				})
		}),
	}
	show := cli.Checked(&cobra.Command{
		Use:  "show RUN",
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			s, err := e.Research().Session(ctx, args[0])
			if err != nil || a.jsonOut {
				return a.resultJSON(s, err)
			}
			latest, st, usage := s.Checkpoint, s.State, s.Usage
			fmt.Fprintf(a.stdout, "Run %s: %s after step %d (%s)", args[0], latest.Status, latest.Step, latest.Node)
			if latest.Next != "" && latest.Status != service.RunDone {
				fmt.Fprintf(a.stdout, ", goes on at %s", latest.Next)
			}
			fmt.Fprintln(a.stdout)
			if latest.Error != "" {
				fmt.Fprintf(a.stdout, "Error: %s\n", cli.Line(latest.Error))
			}
			fmt.Fprintf(a.stdout, "Question: %s\n", cli.Line(st.Question))
			if st.Termination != "" {
				fmt.Fprintf(a.stdout, "Refinement ended: %s\n", cli.Line(st.Termination))
			}
			for _, t := range st.Plan {
				fmt.Fprintf(a.stdout, "  [%s] %s (%s)\n", cli.Line(t.ID), cli.Line(t.Query), cli.Line(t.Status))
			}
			if len(s.Decisions) > 0 {
				fmt.Fprintln(a.stdout, "Decisions:")
				for _, d := range s.Decisions {
					fmt.Fprintf(a.stdout, "  %s round %d: %s by %s at %s\n", d.Kind, d.Round, cli.Line(d.Action), cli.Line(cli.OrDash(d.By)), d.At.Local().Format("2006-01-02 15:04"))
				}
			}
			fmt.Fprintf(a.stdout, "References: %s\nModel calls: %d, tokens %d (prompt %d, completion %d)\n",
				cli.ReferenceCounts(s.References), usage.Calls, usage.Tokens(), usage.PromptTokens, usage.CompletionTokens)
			if hosts := callsByHost(s.Ledger); hosts != "" {
				fmt.Fprintf(a.stdout, "Calls by host: %s\n", cli.Line(hosts))
			}
			return a.table("STEP\tNODE\tSTATUS", len(s.Steps), func(i int) string {
				return fmt.Sprintf("%d\t%s\t%s", s.Steps[i].Step, s.Steps[i].Node, s.Steps[i].Status)
			})
		}),
	}, cli.Text(0, "RUN", runAllowed))
	rm := cli.Checked(&cobra.Command{
		Use:  "rm RUN...",
		Args: cobra.MinimumNArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			if err := e.Research().RemoveRuns(ctx, args); err != nil || a.jsonOut {
				return a.resultJSON(map[string]any{"removed": args}, err)
			}
			fmt.Fprintf(a.stdout, "Removed %d run(s).\n", len(args))
			return nil
		}),
	}, cli.When("RUN", func(cmd *cobra.Command, args []string) error {
		for _, run := range args {
			if strings.TrimSpace(run) == "" {
				return fmt.Errorf("RUN %q: allowed is %s", run, runAllowed)
			}
		}
		return nil
	}))
	cmd.AddCommand(list, show, rm)
	return cmd
}

// callsByHost counts a run's calls by the host that answered them, hosts in the order they
// first answered ("" when the ledger names none).
func callsByHost(ledger []service.LedgerEntry) string {
	var order []string
	counts := map[string]int{}
	for _, e := range ledger {
		if e.Host == "" {
			continue
		}
		if counts[e.Host] == 0 {
			order = append(order, e.Host)
		}
		counts[e.Host]++
	}
	parts := make([]string, len(order))
	for i, h := range order {
		parts[i] = fmt.Sprintf("%s %d", h, counts[h])
	}
	return strings.Join(parts, ", ")
}

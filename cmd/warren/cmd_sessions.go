package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"warren/agent"
	"warren/agent/research"
)

// runAllowed is what a RUN argument may be.
const runAllowed = "a run ID (`warren sessions list` shows them)"

func (a *app) sessionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "sessions",
		Short:   "List, inspect and remove saved runs",
		Example: "  warren sessions list\n  warren sessions show 20261121-201500-a1b2c3 --json\n  warren sessions rm 20261121-201500-a1b2c3",
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "Saved runs, newest first, with their status",
		Example: "  warren sessions list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			runs, err := (&agent.Store{DB: e.WS.DB}).Runs(cmd.Context())
			if err != nil {
				return err
			}
			if a.jsonOut {
				runs = emptyIfNil(runs)
				return a.printJSON(runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(a.stdout, "No saved runs: start one with `warren research \"question\"`.")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTATUS\tSTEPS\tUPDATED\tQUESTION")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.ID, r.Status, r.Steps, r.UpdatedAt.Local().Format("2006-01-02 15:04"), snippet(r.Title, 60))
			}
			return tw.Flush()
		},
	}
	show := checked(&cobra.Command{
		Use:     "show RUN",
		Short:   "A run's trail of steps, where it stands, its ledger and references",
		Example: "  warren sessions show 20261121-201500-a1b2c3",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			store := &agent.Store{DB: e.WS.DB}
			latest, err := store.Latest(ctx, args[0])
			if err != nil {
				return err
			}
			steps, _ := store.Checkpoints(ctx, args[0])
			ledger, _ := store.Ledger(ctx, args[0])
			usage, _ := store.Usage(ctx, args[0])
			var s research.State
			json.Unmarshal(latest.State, &s)
			if a.jsonOut {
				return a.printJSON(map[string]any{"checkpoint": latest, "steps": steps, "ledger": ledger, "usage": usage})
			}
			fmt.Fprintf(a.stdout, "Run %s: %s after step %d (%s)", args[0], latest.Status, latest.Step, latest.Node)
			if latest.Next != "" && latest.Status != agent.StatusDone {
				fmt.Fprintf(a.stdout, ", goes on at %s", latest.Next)
			}
			fmt.Fprintln(a.stdout)
			if latest.Error != "" {
				fmt.Fprintf(a.stdout, "Error: %s\n", latest.Error)
			}
			fmt.Fprintf(a.stdout, "Question: %s\n", s.Question)
			if s.Termination != "" {
				fmt.Fprintf(a.stdout, "Refinement ended: %s\n", s.Termination)
			}
			for _, t := range s.Plan {
				fmt.Fprintf(a.stdout, "  [%s] %s (%s)\n", t.ID, t.Query, t.Status)
			}
			states := map[string]int{}
			for _, r := range s.References {
				states[r.State]++
			}
			fmt.Fprintf(a.stdout, "References: %s\nModel calls: %d, tokens %d (prompt %d, completion %d)\n", referenceCounts(states), usage.Calls, usage.Tokens(), usage.PromptTokens, usage.CompletionTokens)
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "STEP\tNODE\tSTATUS")
			for _, st := range steps {
				fmt.Fprintf(tw, "%d\t%s\t%s\n", st.Step, st.Node, st.Status)
			}
			return tw.Flush()
		},
	}, text(0, "RUN", runAllowed))
	rm := checked(&cobra.Command{
		Use:     "rm RUN...",
		Short:   "Remove saved runs with their checkpoints, ledger and call journal",
		Example: "  warren sessions rm 20261121-201500-a1b2c3",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			store := &agent.Store{DB: e.WS.DB}
			for _, run := range args {
				ok, err := store.DeleteRun(cmd.Context(), run)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("no run %q: `warren sessions list` shows the runs there are", run)
				}
			}
			if !a.jsonOut {
				fmt.Fprintf(a.stdout, "Removed %d run(s).\n", len(args))
				return nil
			}
			return a.printJSON(map[string]any{"removed": args})
		},
	}, when("RUN", func(cmd *cobra.Command, args []string) error {
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

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/agent/toxedit"
	"warren/internal/cli"
	"warren/service"
)

// toxEditResult is what `warren tox edit --json` prints.
type toxEditResult = service.ToxEditResult

func (a *app) toxEditCommand() *cobra.Command {
	var yes bool
	cmd := cli.Checked(&cobra.Command{
		Use:   "edit INCI \"instruction or JSON\"",
		Short: "Propose an edit of a toxicology profile as a JSON Patch diff, and approve it",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			return a.inWorkspace(func(e *env) error {
				res, err := e.ToxEdit(ctx, args[0], args[1], yes)
				if err == nil && res.Status == service.ToxPending && !a.jsonOut && cli.IsTerminal(a.stdin) {
					p := res.Proposal
					a.printProposal(a.stdout, p)
					fmt.Fprintf(a.stderr, "Save as version %d of %s? [y/N] ", p.BaseVersion+1, p.INCI)
					if !cli.Confirmed(a.stdin) {
						if _, err := e.ToxDecide(ctx, p, true, "declined at the prompt"); err != nil {
							return err
						}
						fmt.Fprintln(a.stdout, "Not saved.")
						return nil
					}
					res, err = e.ToxDecide(ctx, p, false, "")
					p.Diff = "" // shown already
				}
				if err != nil {
					return err
				}
				if err := a.printToxEdit(res); err != nil || res.Status != service.ToxPending {
					return err
				}
				return cli.ExitError{Code: cli.ExitWaiting}
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.Text(1, "INSTRUCTION", "an instruction, a JSON payload or a correction form"))
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "save the proposal without asking")
	return cmd
}

func (a *app) printProposal(w io.Writer, p *toxedit.Proposal) {
	fmt.Fprintf(w, "%s · %s · method %s · %d %s · base version %d\n", p.INCI, p.EditType, p.Method,
		p.ModelCalls, cli.Plural(p.ModelCalls, "model call", "model calls"), p.BaseVersion)
	if p.Note != "" {
		fmt.Fprintf(w, "Note: %s\n", p.Note)
	}
	if p.Summary != "" {
		fmt.Fprintf(w, "Summary: %s\n", p.Summary)
	}
	fmt.Fprint(w, p.Diff)
}

func (a *app) printToxEdit(res *toxEditResult) error {
	return a.output(res, func(w io.Writer) error {
		p := res.Proposal
		a.printProposal(w, p)
		switch res.Status {
		case service.ToxSaved:
			fmt.Fprintf(w, "Saved %s version %d.\n", p.INCI, res.Version)
		case service.ToxPending:
			fmt.Fprintf(w, "Proposal %s waits for approval: `warren tox approve %s`, or the Toxicology tab of the workbench.\n", p.ID, p.ID)
		}
		return nil
	})
}

// toxApproveCommand approves (or rejects) a proposal made earlier, e.g. by `tox edit` without
// --yes in a script.
func (a *app) toxApproveCommand() *cobra.Command {
	var reject, summary string
	cmd := cli.Checked(&cobra.Command{
		Use:   "approve RUN",
		Short: "Approve or reject a waiting toxicology edit proposal",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			note := summary
			if cli.Given(cmd, "reject") {
				note = reject
			}
			return a.inWorkspace(func(e *env) error {
				res, err := e.ToxDecideRun(ctx, args[0], cli.Given(cmd, "reject"), note)
				if err != nil {
					return err
				}
				return a.printToxEdit(res)
			})
		},
	}, cli.Text(0, "RUN", "the run ID of a waiting proposal"), cli.When("reject", func(cmd *cobra.Command, args []string) error {
		switch {
		case cli.Given(cmd, "reject") && strings.TrimSpace(reject) == "":
			return fmt.Errorf("--reject %q: allowed is the reason for the rejection, in words", reject)
		case cli.Given(cmd, "reject") && cli.Given(cmd, "summary"):
			return fmt.Errorf("--summary %q with --reject: a summary is for a saved version; allowed is one of the two", summary)
		}
		return nil
	}))
	cmd.Flags().StringVar(&reject, "reject", "", "reject the proposal, giving the reason")
	cmd.Flags().StringVar(&summary, "summary", "", "the version's summary (default: the proposal's)")
	return cmd
}

func (a *app) toxBatchCommand() *cobra.Command {
	var yes bool
	cmd := cli.Checked(&cobra.Command{
		Use:   "batch FILE.jsonl",
		Short: "Propose many toxicology edits from a JSONL file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			return a.inWorkspace(func(e *env) error {
				bar := cli.NewProgressLine(a.stderr)
				res, err := e.ToxBatch(ctx, args[0], yes, func(done, total int) { bar.Draw(fmt.Sprintf("%d/%d lines", done, total)) })
				bar.Done()
				if err != nil && res == nil {
					return err
				}
				if err == nil {
					err = batchOutcome(res)
				}
				if !a.jsonOut {
					a.printBatch(res)
				} else if err == nil {
					return a.printJSON(res)
				}
				if err != nil {
					return a.fail(cmd, res, err)
				}
				return nil
			})
		},
	}, cli.Text(0, "FILE", "a JSONL file of edits"))
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "save the edits that need no model at once")
	return cmd
}

// batchOutcome is the exit class of a batch: every line failed (5), some failed (3), or nil.
func batchOutcome(res *toxedit.BatchResult) error {
	switch {
	case res.Failed == 0:
		return nil
	case res.Applied+res.Proposed+res.NoChange == 0:
		return cli.NothingStored("fix the lines listed and run the batch again",
			"nothing saved or proposed: all %d %s failed (each is listed with its error)", res.Failed, cli.Plural(res.Failed, "line", "lines"))
	}
	return cli.Partial("fix the lines listed and run them again (the others are done)",
		"%d of %d lines failed (each is listed with its error)", res.Failed, res.Failed+res.Applied+res.Proposed+res.NoChange)
}

func (a *app) printBatch(res *toxedit.BatchResult) {
	cli.Table(a.stdout, func(tw io.Writer) {
		fmt.Fprintln(tw, "LINE\tINCI\tEDIT TYPE\tSTATUS\tVERSION\tRUN / ERROR")
		for _, l := range res.Lines {
			detail := l.Error
			if l.Status == toxedit.StatusProposed && l.Proposal != nil {
				detail = l.Proposal.ID
			} else if l.Status == toxedit.StatusApplied {
				detail = l.Proposal.Summary
			}
			version := "-"
			if l.Version > 0 {
				version = fmt.Sprint(l.Version)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", l.Line, cli.OrDash(l.INCI), cli.OrDash(string(l.EditType)), l.Status, version, detail)
		}
	})
	fmt.Fprintf(a.stdout, "Batch %s: %d applied, %d proposed, %d without change, %d failed.\n",
		res.ID, res.Applied, res.Proposed, res.NoChange, res.Failed)
	if res.Proposed > 0 {
		fmt.Fprintln(a.stdout, "Approve the proposals in the workbench's Toxicology tab, or with `warren tox approve RUN`.")
	}
}

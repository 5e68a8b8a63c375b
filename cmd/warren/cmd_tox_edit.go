package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
)

func (a *app) toxEditCommand() *cobra.Command {
	var yes bool
	cmd := cli.Checked(&cobra.Command{
		Use:  "edit INCI \"instruction or JSON\"",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				// The desk's two decisions, as the Toxicology tab makes them: a proposal, then
				// its approval (at once with --yes, or at the prompt) or its rejection.
				p, err := e.Tox().Propose(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				res := &service.ToxEditResult{Proposal: p, Status: service.ToxPending}
				switch {
				case p.Empty():
					res.Status = service.ToxNoChange
				case !yes && !a.jsonOut && cli.IsTerminal(a.stdin):
					cli.WriteProposal(a.stdout, p)
					fmt.Fprintf(a.stderr, "Save as version %d of %s? [y/N] ", p.BaseVersion+1, cli.Line(p.INCI))
					if !cli.Confirmed(a.stdin) {
						if err := e.Tox().Reject(ctx, p, "declined at the prompt"); err != nil {
							return err
						}
						fmt.Fprintln(a.stdout, "Not saved.")
						return nil
					}
					p.Diff = "" // shown already
					fallthrough
				case yes:
					if res.Version, err = e.Tox().Approve(ctx, p, ""); err != nil {
						return err
					}
					res.Status = service.ToxSaved
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

func (a *app) printToxEdit(res *service.ToxEditResult) error {
	return a.output(res, func(w io.Writer) error {
		p := res.Proposal
		cli.WriteProposal(w, p)
		switch res.Status {
		case service.ToxSaved:
			fmt.Fprintf(w, "Saved %s version %d.\n", cli.Line(p.INCI), res.Version)
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
		Use:  "approve RUN",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			note := summary
			if cli.Given(cmd, "reject") {
				note = reject
			}
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				p, err := e.Tox().WaitingProposal(ctx, args[0])
				if err != nil {
					return err
				}
				res := &service.ToxEditResult{Proposal: p, Status: service.ToxRejected}
				if cli.Given(cmd, "reject") {
					err = e.Tox().Reject(ctx, p, note)
				} else if res.Version, err = e.Tox().Approve(ctx, p, note); err == nil {
					res.Status = service.ToxSaved
				}
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
		Use:  "batch FILE.jsonl",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				bar := cli.NewProgressLine(a.stderr)
				res, err := e.Tox().Batch(ctx, args[0], yes, func(done, total int) { bar.Draw(fmt.Sprintf("%d/%d lines", done, total)) })
				bar.Done()
				if err != nil && res == nil {
					return err
				}
				if err == nil {
					err = cli.BatchOutcome(res)
				}
				return a.report(cmd, res, err, func(w io.Writer) { cli.WriteBatch(w, res) })
			})
		},
	}, cli.Text(0, "FILE", "a JSONL file of edits"))
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "save the edits that need no model at once")
	return cmd
}

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/agent/toxedit"
	"warren/service"
)

// toxEditResult is what `warren tox edit --json` prints.
type toxEditResult = service.ToxEditResult

func (a *app) toxEditCommand() *cobra.Command {
	var yes bool
	cmd := checked(&cobra.Command{
		Use:   "edit INCI \"instruction or JSON\"",
		Short: "Propose an edit of a toxicology profile as a JSON Patch diff, and approve it",
		Long: `edit turns an instruction, a JSON payload or a pasted correction form into a proposed JSON
Patch against the profile's latest version and shows its diff, the edit type (FORM_EDIT_STRUCTURED,
FORM_EDIT_RAW, NLI_EDIT or NO_EDIT), how the patch was made and how many model calls it took.

JSON payloads and simple instructions ("Set NOAEL to 200 mg/kg bw/day", "set DAP to 10 %",
"remove statement 2", "add reference: …") need no model; other instructions and forms are read by
the chat model. With --yes the proposal is saved at once as a new version; on a terminal you are
asked y/N; elsewhere the proposal is printed and kept (exit status 4): approve it later in the
workbench's Toxicology tab or with ` + "`warren tox approve RUN`" + `. If the profile changed
meanwhile, the approval is refused and nothing is lost: propose the edit again.

Payload: {"noael": [{…}]} adds entries; {"noael": {"update": {"0": {"value": 200}}}},
{"dap": {"replace": {"0": {…}}, "remove": [1], "add": [{…}]}}, {"cas": "…"} and a JSON Patch
array also work (docs/tox-profile.md).`,
		Example: `  warren tox edit COUMARIN "Set NOAEL to 200 mg/kg bw/day" --yes
  warren tox edit RETINOL "set DAP to 10 %"
  warren tox edit RETINOL '{"noael":{"update":{"0":{"species":"mouse"}}}}' --yes --json
  warren tox edit RETINOL "$(cat correction-form.txt)"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			return a.inWorkspace(func(e *env) error {
				res, err := e.ToxEdit(ctx, args[0], args[1], yes)
				if err == nil && res.Status == service.ToxPending && !a.jsonOut && isTerminal(a.stdin) {
					p := res.Proposal
					a.printProposal(a.stdout, p)
					fmt.Fprintf(a.stderr, "Save as version %d of %s? [y/N] ", p.BaseVersion+1, p.INCI)
					if !a.confirmed() {
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
				return exitError{code: exitWaiting}
			})
		},
	}, text(0, "INCI", inciAllowed), text(1, "INSTRUCTION", "an instruction, a JSON payload or a correction form"))
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "save the proposal without asking")
	return cmd
}

func (a *app) printProposal(w io.Writer, p *toxedit.Proposal) {
	fmt.Fprintf(w, "%s · %s · method %s · %d %s · base version %d\n", p.INCI, p.EditType, p.Method,
		p.ModelCalls, plural(p.ModelCalls, "model call", "model calls"), p.BaseVersion)
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
	cmd := checked(&cobra.Command{
		Use:   "approve RUN",
		Short: "Approve or reject a waiting toxicology edit proposal",
		Long: `approve saves a proposal that ` + "`warren tox edit`" + ` or ` + "`warren tox batch`" + ` left waiting, as a
new version made from the proposal's base version. If the profile changed since, nothing is
saved: propose the edit again. --reject records the rejection and its reason instead.`,
		Example: "  warren tox approve tox-20250101-120000-ab12cd\n  warren tox approve tox-20250101-120000-ab12cd --reject \"wrong study\"",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			note := summary
			if given(cmd, "reject") {
				note = reject
			}
			return a.inWorkspace(func(e *env) error {
				res, err := e.ToxDecideRun(ctx, args[0], given(cmd, "reject"), note)
				if err != nil {
					return err
				}
				return a.printToxEdit(res)
			})
		},
	}, text(0, "RUN", "the run ID of a waiting proposal"), when("reject", func(cmd *cobra.Command, args []string) error {
		switch {
		case given(cmd, "reject") && strings.TrimSpace(reject) == "":
			return fmt.Errorf("--reject %q: allowed is the reason for the rejection, in words", reject)
		case given(cmd, "reject") && given(cmd, "summary"):
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
	cmd := checked(&cobra.Command{
		Use:   "batch FILE.jsonl",
		Short: "Propose many toxicology edits from a JSONL file",
		Long: `batch reads one edit a line, {"inci": "…", "instruction": "…"} or {"inci": "…", "payload": {…}},
and proposes each under one batch id. Each line stands alone: a malformed line or a failing
ingredient is reported with its line number and never affects the others. Blank lines and lines
starting with # are skipped.

With --yes the edits that need no model (JSON payloads and simply parsed instructions) are saved
at once; the others stay proposals to approve one by one in the workbench's Toxicology tab (or
with ` + "`warren tox approve RUN`" + `). Progress goes to stderr, a results table to stdout. The exit status is
3 when some lines failed, and 5 when every line failed (nothing was saved or proposed).`,
		Example: `  warren tox batch corrections.jsonl
  warren tox batch corrections.jsonl --yes
  warren tox batch corrections.jsonl --yes --json > results.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := interruptible(cmd)
			defer cancel()
			return a.inWorkspace(func(e *env) error {
				bar := newProgressLine(a.stderr)
				res, err := e.ToxBatch(ctx, args[0], yes, func(done, total int) { bar.draw(fmt.Sprintf("%d/%d lines", done, total)) })
				bar.done()
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
	}, text(0, "FILE", "a JSONL file of edits"))
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "save the edits that need no model at once")
	return cmd
}

// batchOutcome is the exit class of a batch: every line failed (5), some failed (3), or nil.
func batchOutcome(res *toxedit.BatchResult) error {
	switch {
	case res.Failed == 0:
		return nil
	case res.Applied+res.Proposed+res.NoChange == 0:
		return &cliError{err: fmt.Errorf("nothing saved or proposed: all %d %s failed (each is listed with its error)", res.Failed, plural(res.Failed, "line", "lines")),
			code: exitNothingStored, hint: "fix the lines listed and run the batch again"}
	}
	return partialError("fix the lines listed and run them again (the others are done)",
		"%d of %d lines failed (each is listed with its error)", res.Failed, res.Failed+res.Applied+res.Proposed+res.NoChange)
}

func (a *app) printBatch(res *toxedit.BatchResult) {
	table(a.stdout, func(tw io.Writer) {
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
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", l.Line, orDash(l.INCI), orDash(string(l.EditType)), l.Status, version, detail)
		}
	})
	fmt.Fprintf(a.stdout, "Batch %s: %d applied, %d proposed, %d without change, %d failed.\n",
		res.ID, res.Applied, res.Proposed, res.NoChange, res.Failed)
	if res.Proposed > 0 {
		fmt.Fprintln(a.stdout, "Approve the proposals in the workbench's Toxicology tab, or with `warren tox approve RUN`.")
	}
}

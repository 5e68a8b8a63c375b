package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
)

func (a *app) researchCommand() *cobra.Command {
	var answersPath, out, resume string
	var yes, noHITL bool
	var budgetCalls, iterations int
	cmd := cli.Checked(&cobra.Command{
		Use: "research QUESTION",
		Args: func(cmd *cobra.Command, args []string) error {
			if resume == "" && len(args) != 1 {
				return cli.Usage("give the QUESTION, or --resume RUN")
			}
			if resume != "" && len(args) > 0 {
				return cli.Usage("--resume continues a run; it takes no QUESTION")
			}
			// `--resume --yes` would take "--yes" as the run: a run id never starts with "-".
			if strings.HasPrefix(resume, "-") {
				return cli.Usage("--resume %q: allowed is %s; give the RUN right after --resume, e.g. `--resume RUN --yes`", resume, runAllowed)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			answers, err := service.ReadAnswers(answersPath)
			if err != nil {
				return err
			}
			answers.Yes = yes
			question, fromStdin := "", false
			if resume == "" {
				question = args[0]
				// "-" reads the question from stdin, as other tools read a file named "-".
				if question == "-" {
					if question, err = readQuestion(a.stdin); err != nil {
						return err
					}
					fromStdin = true
				}
			}
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				trail := &cli.ResearchTrail{W: a.stderr}
				d := &cli.ResearchPrompter{In: a.stdin, Out: a.stderr, Quiet: a.jsonOut, Answers: answers,
					Interactive: cli.IsTerminal(a.stdin) && answersPath == "" && !yes && !fromStdin}
				req := service.ResearchRequest{Resume: resume, Options: service.ResearchOptions{HITL: !noHITL, MaxIterations: iterations},
					BudgetCalls: budgetCalls, Sink: trail.Event, Note: trail.Note, Answer: d.Answer, Out: out,
					Started: func(run string) { fmt.Fprintf(a.stderr, "run %s: started\n", cli.Line(run)) }}
				req.Question = question
				sum, err := e.Research().Run(ctx, req)
				var failed *service.RunError
				switch {
				case errors.As(err, &failed) && ctx.Err() != nil:
					return fmt.Errorf("interrupted; the run is saved: go on with `warren research --resume %s`", failed.Run)
				case errors.As(err, &failed):
					return cli.WithHint(failed.Err, fmt.Sprintf("the run is saved: go on with `warren research --resume %s`", failed.Run))
				case err != nil:
					return err
				case sum.Finished && a.jsonOut:
					return a.printJSON(map[string]any{"run": sum.Run, "status": sum.Status, "finished": true, "report": sum.Report})
				case sum.Finished:
					fmt.Fprintf(a.stdout, "Run %s has finished; its report is %s.\n", sum.Run, cli.Line(sum.Report))
					return nil
				case sum.Status == service.RunInterrupted:
					if a.jsonOut {
						if err := a.printJSON(sum); err != nil {
							return err
						}
					} else {
						fmt.Fprintf(a.stdout, "Run %s waits for your answer to its %s. Go on with `warren research --resume %s` (with --answers FILE or --yes).\n",
							sum.Run, sum.Waiting, sum.Run)
					}
					return cli.ExitError{Code: cli.ExitWaiting}
				case a.jsonOut:
					return a.printJSON(sum)
				}
				partial := ""
				if sum.Partial {
					partial = " (partial: " + cli.Line(sum.PartialNote) + ")"
				}
				fmt.Fprintf(a.stdout, "Report written to %s%s.\n%d tasks, references: %s; quality %d/500, %d model calls, %d tokens.\n",
					cli.Line(sum.Report), partial, len(sum.Tasks), cli.ReferenceCounts(sum.References), sum.Quality.Total, sum.Calls, sum.Tokens.Tokens())
				if len(sum.NotDone) > 0 {
					fmt.Fprintln(a.stdout, "Not done:")
					for _, line := range sum.NotDone {
						fmt.Fprintf(a.stdout, "  - %s\n", cli.Line(line))
					}
				}
				return nil
			})
		},
	},
		cli.Text(0, "QUESTION", "a question in words"),
		cli.AtLeast("iterations", &iterations, 1),
		cli.AtLeast("budget-calls", &budgetCalls, 1))
	f := cmd.Flags()
	f.StringVar(&answersPath, "answers", "", "answer questions and the plan from this YAML or JSON file")
	f.BoolVarP(&yes, "yes", "y", false, "end refinement after the first round and approve the plan")
	f.BoolVar(&noHITL, "no-hitl", false, "no analyst in the refinement: one round of search and analysis, no questions")
	f.IntVar(&budgetCalls, "budget-calls", 0, "model calls this run may make, 1 or more (default budgets.model_calls; with --resume, replaces the run's own call budget)")
	f.IntVar(&iterations, "iterations", 3, "most rounds of questions, 1 or more")
	f.StringVar(&resume, "resume", "", "go on with a saved run")
	f.StringVarP(&out, "out", "o", "", "write the report here (default exports/research-RUN.md)")
	cmd.AddCommand(a.researchExportCommand())
	return cmd
}

// researchExportCommand is `warren research export RUN`: a finished run's report as a
// document for readers without warren.
func (a *app) researchExportCommand() *cobra.Command {
	var format, out string
	formats := service.ReportFormats()
	cmd := cli.Checked(&cobra.Command{
		Use:  "export RUN",
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			start := time.Now()
			path, err := e.Research().Export(ctx, args[0], format, out)
			if err != nil {
				return err
			}
			size := int64(-1)
			if fi, err := os.Stat(path); err == nil {
				size = fi.Size()
			}
			return a.output(map[string]any{"run": args[0], "format": format, "path": path, "bytes": size}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Report of run %s written to %s (%s, %s, %s).\n", cli.Line(args[0]), cli.Line(path), format,
					humanBytes(size), time.Since(start).Round(time.Millisecond))
				return err
			})
		}),
	}, cli.Text(0, "RUN", runAllowed), cli.OneOf("format", &format, formats...))
	f := cmd.Flags()
	f.StringVarP(&format, "format", "f", "md", "the file format: "+strings.Join(formats, ", "))
	f.StringVarP(&out, "out", "o", "", "write the document here (default exports/research-RUN.FORMAT)")
	return cmd
}

// humanBytes writes a file size for a reader: "12.3 kB".
func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// readQuestion reads the question of `warren research -` from stdin: all of it, trimmed.
func readQuestion(r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return "", fmt.Errorf("couldn't read the question from stdin: %w", err)
	}
	q := strings.TrimSpace(string(data))
	if q == "" {
		return "", cli.Usage("QUESTION \"-\" reads the question from stdin, which was empty: pipe the question in, e.g. `echo \"What …?\" | warren research -`")
	}
	return q, nil
}

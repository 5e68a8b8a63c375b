package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/cli"
	"warren/service"
)

// researchSummary is what `warren research --json` prints.
type researchSummary = service.ResearchSummary

func (a *app) researchCommand() *cobra.Command {
	var answersPath, out, resume string
	var yes, noHITL bool
	var budgetCalls, iterations int
	cmd := cli.Checked(&cobra.Command{
		Use:   "research QUESTION",
		Short: "Research a question headless: refine it with you, plan, follow references, write a cited report",
		Args: func(cmd *cobra.Command, args []string) error {
			if resume == "" && len(args) != 1 {
				return cli.Usage("give the QUESTION, or --resume RUN")
			}
			if resume != "" && len(args) > 0 {
				return cli.Usage("--resume continues a run; it takes no QUESTION")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			answers, err := service.ReadAnswers(answersPath)
			if err != nil {
				return err
			}
			answers.Yes = yes
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			p := &researchProgress{w: a.stderr}
			d := &researchDriver{a: a, answers: answers, interactive: cli.IsTerminal(a.stdin) && answersPath == "" && !yes}
			req := service.ResearchRequest{Resume: resume, Options: research.Options{HITL: !noHITL, MaxIterations: iterations},
				BudgetCalls: budgetCalls, Sink: p.event, Note: p.note, Answer: d.answer, Out: out,
				Started: func(run string) { fmt.Fprintf(a.stderr, "run %s: started\n", run) }}
			if resume == "" {
				req.Question = args[0]
			}
			sum, err := e.RunResearch(ctx, req)
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
				fmt.Fprintf(a.stdout, "Run %s has finished; its report is %s.\n", sum.Run, sum.Report)
				return nil
			case sum.Status == agent.StatusInterrupted:
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
				partial = " (partial: " + sum.PartialNote + ")"
			}
			fmt.Fprintf(a.stdout, "Report written to %s%s.\n%d tasks, references: %s; quality %d/500, %d model calls, %d tokens.\n",
				sum.Report, partial, len(sum.Tasks), referenceCounts(sum.References), sum.Quality.Total, sum.Calls, sum.Tokens.Tokens())
			return nil
		},
	},
		cli.Text(0, "QUESTION", "a question in words"),
		cli.AtLeast("iterations", &iterations, 1),
		cli.AtLeast("budget-calls", &budgetCalls, 1))
	f := cmd.Flags()
	f.StringVar(&answersPath, "answers", "", "answer questions and the plan from this YAML or JSON file")
	f.BoolVarP(&yes, "yes", "y", false, "end refinement after the first round and approve the plan")
	f.BoolVar(&noHITL, "no-hitl", false, "no questions: one clarification step instead of the loop")
	f.IntVar(&budgetCalls, "budget-calls", 0, "model calls this run may make, 1 or more (default budgets.model_calls; with --resume, replaces the run's own call budget)")
	f.IntVar(&iterations, "iterations", 3, "most rounds of questions, 1 or more")
	f.StringVar(&resume, "resume", "", "go on with a saved run")
	f.StringVarP(&out, "out", "o", "", "write the report here (default exports/research-RUN.md)")
	return cmd
}

// researchProgress prints the run's trail on standard error.
type researchProgress struct {
	w     io.Writer
	mu    sync.Mutex
	calls int
}

func (p *researchProgress) event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventLedger:
		p.calls++
	case agent.EventNodeStarted:
		fmt.Fprintf(p.w, "  %-16s …\n", e.Node)
	case agent.EventNodeFinished:
		fmt.Fprintf(p.w, "  %-16s done in %s (%d model calls so far)\n", e.Node, e.Duration.Round(time.Millisecond), p.calls)
	case agent.EventError:
		fmt.Fprintf(p.w, "  %-16s failed: %s\n", e.Node, e.Summary)
	}
}

func (p *researchProgress) note(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "    %s\n", text)
}

// researchDriver shows each interrupt and answers it from the prepared answers, or else at the
// terminal.
type researchDriver struct {
	a           *app
	answers     service.Answers
	interactive bool
	in          *bufio.Reader
}

func (r *researchDriver) answer(in *agent.Interrupt) (json.RawMessage, bool, error) {
	label := "Your answer (/end to stop refining): "
	switch in.Kind {
	case research.InterruptQuestions:
		var p research.QuestionsPayload
		json.Unmarshal(in.Payload, &p)
		if !r.a.jsonOut {
			fmt.Fprintf(r.a.stderr, "\nCoverage %.0f %%. Gaps: %s\n", 100*p.Coverage, strings.Join(p.Gaps, "; "))
			for i, q := range p.Questions {
				fmt.Fprintf(r.a.stderr, "  %d. %s\n", i+1, q)
			}
		}
	case research.InterruptPlan:
		label = "Approve the plan? [Y]es, or write what to change for a new plan (edit tasks with --answers): "
		var p research.PlanPayload
		json.Unmarshal(in.Payload, &p)
		if !r.a.jsonOut {
			fmt.Fprintln(r.a.stderr, "\nProposed plan:")
			for i, t := range p.Tasks {
				fmt.Fprintf(r.a.stderr, "  %d. [%s] %s — %s\n", i+1, t.ID, t.Query, t.Rationale)
			}
		}
	}
	if answer, ok, err := r.answers.Answer(in); ok || err != nil || !r.interactive {
		return answer, ok, err // not ok: nobody to answer, the run waits
	}
	if r.in == nil {
		r.in = bufio.NewReader(r.a.stdin)
	}
	fmt.Fprint(r.a.stderr, label)
	line, err := r.in.ReadString('\n')
	if err != nil && line == "" {
		return nil, false, fmt.Errorf("no answer on standard input: %w", err)
	}
	return service.Reply(in, strings.TrimSpace(line)), true, nil
}

// referenceCounts says how many references a run followed, skipped and left unresolved.
func referenceCounts(counts map[string]int) string {
	return cli.CountWords(counts, research.RefFollowed, research.RefSkipped, research.RefUnresolved)
}

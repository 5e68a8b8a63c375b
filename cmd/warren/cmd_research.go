package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/atomicfile"
	"warren/llm"
)

// answerFile holds prepared answers: one per round of questions ("/end" ends refinement), and
// the decision(s) on the plan.
type answerFile struct {
	Questions []string              `yaml:"questions" json:"questions"`
	Plan      []research.PlanAnswer `yaml:"plan" json:"plan"`
}

func (f *answerFile) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Questions []string  `yaml:"questions"`
		Plan      yaml.Node `yaml:"plan"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	f.Questions = raw.Questions
	switch raw.Plan.Kind {
	case 0:
	case yaml.SequenceNode:
		return raw.Plan.Decode(&f.Plan)
	default:
		var one research.PlanAnswer
		if err := raw.Plan.Decode(&one); err != nil {
			return err
		}
		f.Plan = []research.PlanAnswer{one}
	}
	return nil
}

// researchSummary is what `warren research --json` prints.
type researchSummary struct {
	Run         string           `json:"run"`
	Status      string           `json:"status"`
	Waiting     string           `json:"waiting_for,omitempty"`
	Termination string           `json:"termination,omitempty"`
	Tasks       []research.Task  `json:"tasks"`
	References  map[string]int   `json:"references"`
	Quality     research.Quality `json:"quality"`
	Calls       int              `json:"calls"`
	Tokens      llm.Usage        `json:"usage"`
	Report      string           `json:"report,omitempty"`
	Partial     bool             `json:"partial"`
}

func (a *app) researchCommand() *cobra.Command {
	var answersPath, out, resume string
	var yes, noHITL bool
	var budgetCalls, iterations int
	cmd := checked(&cobra.Command{
		Use:   "research QUESTION",
		Short: "Research a question headless: refine it with you, plan, follow references, write a cited report",
		Long: `research runs the research agent without the workbench. It asks sharpening questions (answer
at the prompt, or "/end" to stop refining), proposes a plan to approve, works each task by
following references through the knowledge base, and writes a Markdown report whose every
citation names a retrieved passage.

Answers can come from a file (--answers, YAML or JSON):

  questions: ["Es geht um Stoffe und Gemische", "/end"]
  plan: {action: approve}          # or replan with a comment, or an edited task list

--yes ends refinement after the first round and approves the plan. Every step is checkpointed:
a run interrupted (Ctrl-C, a dropped connection, a killed process) goes on with --resume RUN,
without repeating a completed model call. A run that runs out of budget ends with a partial
report, marked as such.`,
		Example: `  warren research "Welche Pflichten gelten für die Gefährdungsbeurteilung?" --yes
  warren research "Which purge sequence applies to silane?" --answers answers.yaml --out silane.md
  warren research --resume 20261121-201500-a1b2c3 --yes --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if resume == "" && len(args) != 1 {
				return usageError{fmt.Errorf("give the QUESTION, or --resume RUN")}
			}
			if resume != "" && len(args) > 0 {
				return usageError{fmt.Errorf("--resume continues a run; it takes no QUESTION")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var answers answerFile
			if answersPath != "" {
				data, err := os.ReadFile(answersPath)
				if err != nil {
					return fmt.Errorf("couldn't read the answers: %w", err)
				}
				if err := yaml.Unmarshal(data, &answers); err != nil {
					return fmt.Errorf("couldn't parse the answers %s: %w", answersPath, err)
				}
			}
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			progress := &researchProgress{w: a.stderr, quiet: a.jsonOut}
			svc, err := e.Research(budgetCalls, progress.event, progress.note)
			if err != nil {
				return err
			}
			r := &researchDriver{a: a, svc: svc, answers: answers, yes: yes, interactive: isTerminal(a.stdin) && answersPath == "" && !yes}
			var outcome agent.Outcome
			var state *research.State
			if resume != "" {
				outcome, state, err = e.InJob(ctx, resume, "", svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
					return svc.Resume(ctx, resume, nil)
				})
				var finished *research.FinishedError
				if errors.As(err, &finished) {
					return a.finishedResearch(e, resume, state, out)
				}
			} else {
				run := research.NewRunID()
				fmt.Fprintf(a.stderr, "run %s: started\n", run)
				outcome, state, err = e.InJob(ctx, run, args[0], svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
					return svc.Start(ctx, run, args[0], research.Options{HITL: !noHITL, MaxIterations: iterations})
				})
			}
			for err == nil && outcome.Status == agent.StatusInterrupted {
				answer, ok, aerr := r.answer(outcome.Interrupt, state)
				if aerr != nil {
					return aerr
				}
				if !ok {
					break
				}
				next := outcome.Run
				outcome, state, err = e.InJob(ctx, next, "", svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
					return svc.Resume(ctx, next, answer)
				})
			}
			if err != nil {
				if outcome.Run == "" {
					return err
				}
				if ctx.Err() != nil {
					return fmt.Errorf("interrupted; the run is saved: go on with `warren research --resume %s`", outcome.Run)
				}
				return withHint(err, fmt.Sprintf("the run is saved: go on with `warren research --resume %s`", outcome.Run))
			}
			return a.finishResearch(ctx, e, outcome, state, out)
		},
	},
		text(0, "QUESTION", "a question in words"),
		atLeast("iterations", &iterations, 1),
		atLeast("budget-calls", &budgetCalls, 1))
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
	quiet bool
	mu    sync.Mutex
	calls int
}

func (p *researchProgress) event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventLedger:
		p.calls++
		return
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

// researchDriver answers interrupts from a file, --yes, or the terminal.
type researchDriver struct {
	a           *app
	svc         *research.Service
	answers     answerFile
	yes         bool
	interactive bool
	in          *bufio.Reader
}

func (r *researchDriver) answer(in *agent.Interrupt, s *research.State) (json.RawMessage, bool, error) {
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
		// Answers are picked by the round the run is in, so a resumed run never gets one twice.
		switch {
		case p.Iteration >= 1 && p.Iteration <= len(r.answers.Questions):
			return mustJSON(r.answers.Questions[p.Iteration-1]), true, nil
		case r.yes:
			return mustJSON(research.EndCommand), true, nil
		case r.interactive:
			text, err := r.prompt("Your answer (/end to stop refining): ")
			return mustJSON(text), err == nil, err
		}
	case research.InterruptPlan:
		var p research.PlanPayload
		json.Unmarshal(in.Payload, &p)
		if !r.a.jsonOut {
			fmt.Fprintln(r.a.stderr, "\nProposed plan:")
			for i, t := range p.Tasks {
				fmt.Fprintf(r.a.stderr, "  %d. [%s] %s — %s\n", i+1, t.ID, t.Query, t.Rationale)
			}
		}
		switch {
		case p.Round >= 1 && p.Round <= len(r.answers.Plan):
			return mustJSON(r.answers.Plan[p.Round-1]), true, nil
		case r.yes:
			return mustJSON(research.PlanAnswer{Action: "approve"}), true, nil
		case r.interactive:
			text, err := r.prompt("Approve the plan? [Y]es, or write what to change for a new plan (edit tasks with --answers): ")
			if err != nil {
				return nil, false, err
			}
			if t := strings.ToLower(strings.TrimSpace(text)); t == "" || t == "y" || t == "yes" {
				return mustJSON(research.PlanAnswer{Action: "approve"}), true, nil
			}
			return mustJSON(research.PlanAnswer{Action: "replan", Comment: text}), true, nil
		}
	default:
		return nil, false, fmt.Errorf("the run asks %q, which this command cannot answer", in.Kind)
	}
	return nil, false, nil // nobody to answer: the run waits
}

func (r *researchDriver) prompt(label string) (string, error) {
	if r.in == nil {
		r.in = bufio.NewReader(r.a.stdin)
	}
	fmt.Fprint(r.a.stderr, label)
	line, err := r.in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("no answer on standard input: %w", err)
	}
	return strings.TrimSpace(line), nil
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd()) // /dev/null is a character device, not a terminal
}

// finishResearch writes the report and prints the summary.
func (a *app) finishResearch(ctx context.Context, e *env, outcome agent.Outcome, s *research.State, out string) error {
	store := &agent.Store{DB: e.WS.DB}
	usage, err := store.Usage(ctx, outcome.Run)
	if err != nil {
		return err
	}
	sum := researchSummary{Run: outcome.Run, Status: outcome.Status, Termination: s.Termination, Tasks: s.Plan,
		References: map[string]int{}, Quality: s.Quality, Calls: usage.Calls, Tokens: usage, Partial: s.Exhausted}
	for _, r := range s.References {
		sum.References[r.State]++
	}
	if outcome.Status == agent.StatusInterrupted {
		sum.Waiting = outcome.Interrupt.Kind
		if a.jsonOut {
			if err := a.printJSON(sum); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(a.stdout, "Run %s waits for your answer to its %s. Go on with `warren research --resume %s` (with --answers FILE or --yes).\n",
				outcome.Run, outcome.Interrupt.Kind, outcome.Run)
		}
		return exitError{code: exitWaiting}
	}
	if out == "" {
		out = filepath.Join(e.WS.Dir, "exports", "research-"+outcome.Run+".md")
	}
	if err := atomicfile.WriteFile(out, []byte(research.FullReport(s)), 0o644); err != nil {
		return err
	}
	sum.Report = out
	if a.jsonOut {
		return a.printJSON(sum)
	}
	partial := ""
	if s.Exhausted {
		partial = " (partial: " + s.PartialNote + ")"
	}
	fmt.Fprintf(a.stdout, "Report written to %s%s.\n%d tasks, references: %s; quality %d/500, %d model calls, %d tokens.\n",
		out, partial, len(s.Plan), referenceCounts(sum.References), s.Quality.Total, usage.Calls, usage.Tokens())
	return nil
}

// referenceCounts says how many references a run followed, skipped and left unresolved.
func referenceCounts(counts map[string]int) string {
	return countWords(counts, research.RefFollowed, research.RefSkipped, research.RefUnresolved)
}

// finishedResearch answers --resume of a run that has finished: only that, and where its
// report is. The report is written (from the saved run) when the file is not there, or to
// --out when that is given.
func (a *app) finishedResearch(e *env, run string, s *research.State, out string) error {
	path := out
	if path == "" {
		path = filepath.Join(e.WS.Dir, "exports", "research-"+run+".md")
	}
	if _, err := os.Stat(path); out != "" || err != nil {
		if err := atomicfile.WriteFile(path, []byte(research.FullReport(s)), 0o644); err != nil {
			return fmt.Errorf("couldn't write the report of run %s: %w", run, err)
		}
	}
	if a.jsonOut {
		return a.printJSON(map[string]any{"run": run, "status": agent.StatusDone, "finished": true, "report": path})
	}
	fmt.Fprintf(a.stdout, "Run %s has finished; its report is %s.\n", run, path)
	return nil
}

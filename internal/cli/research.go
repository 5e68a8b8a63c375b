package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"warren/service"
)

// ReferenceCounts says how many references a run followed, skipped and left unresolved.
func ReferenceCounts(counts map[string]int) string {
	return CountWords(counts, service.RefFollowed, service.RefSkipped, service.RefUnresolved)
}

// ResearchTrail prints a headless research run's trail: each step as it starts and ends, with
// the model calls so far, and the notes between.
type ResearchTrail struct {
	W     io.Writer // standard error
	mu    sync.Mutex
	calls int
}

// Event prints e, when it is a step's start, end or failure.
func (p *ResearchTrail) Event(e service.RunEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case service.EventLedger:
		p.calls++
	case service.EventNodeStarted:
		fmt.Fprintf(p.W, "  %-24s …\n", service.StepWords(e.Node))
	case service.EventNodeFinished:
		fmt.Fprintf(p.W, "  %-24s done in %s (%d model calls so far)\n", service.StepWords(e.Node), e.Duration.Round(time.Millisecond), p.calls)
	case service.EventError:
		fmt.Fprintf(p.W, "  %-24s failed: %s\n", service.StepWords(e.Node), Line(e.Summary))
	}
}

// Note prints a note of the run.
func (p *ResearchTrail) Note(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.W, "    %s\n", Line(text))
}

// ResearchPrompter shows each interrupt of a headless research run (the questions, the plan)
// and answers it from the prepared answers, or else, when Interactive, at the terminal.
type ResearchPrompter struct {
	In          io.Reader // standard input
	Out         io.Writer // standard error
	Quiet       bool      // show no interrupt (--json)
	Answers     service.Answers
	Interactive bool
	in          *bufio.Reader
}

// Answer answers an interrupt; not ok means nobody answered, and the run waits.
func (r *ResearchPrompter) Answer(in *service.RunInterrupt) (json.RawMessage, bool, error) {
	label := "Your answer (/end to stop refining): "
	switch in.Kind {
	case service.InterruptQuestions:
		var p service.ResearchQuestions
		json.Unmarshal(in.Payload, &p)
		if !r.Quiet {
			fmt.Fprintf(r.Out, "\nCoverage %.0f %%. Gaps: %s\n", 100*p.Coverage, Line(strings.Join(p.Gaps, "; ")))
			for i, q := range p.Questions {
				fmt.Fprintf(r.Out, "  %d. %s\n", i+1, Line(q))
			}
		}
	case service.InterruptPlan:
		label = "Approve the plan? [Y]es, or write what to change for a new plan (edit tasks with --answers): "
		var p service.ResearchPlan
		json.Unmarshal(in.Payload, &p)
		if !r.Quiet {
			fmt.Fprintln(r.Out, "\nProposed plan:")
			for i, t := range p.Tasks {
				fmt.Fprintf(r.Out, "  %d. [%s] %s — %s\n", i+1, Line(t.ID), Line(t.Query), Line(t.Rationale))
			}
		}
	}
	if answer, ok, err := r.Answers.Answer(in); ok || err != nil || !r.Interactive {
		return answer, ok, err // not ok: nobody to answer, the run waits
	}
	if r.in == nil {
		r.in = bufio.NewReader(r.In)
	}
	fmt.Fprint(r.Out, label)
	line, err := r.in.ReadString('\n')
	if err != nil && line == "" {
		return nil, false, fmt.Errorf("no answer on standard input: %w", err)
	}
	return service.Reply(in, strings.TrimSpace(line)), true, nil
}

package research

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"warren/service"
	"warren/service/jobs"
)

// phaseOf names the phase a node belongs to.
func phaseOf(node string) string {
	switch node {
	case "init", "generate_queries", "retrieve", "analyze", "ask", "process_answer", "finalize":
		return "1 refinement"
	case "plan":
		return "2 plan"
	case "execute":
		return "3 working the plan"
	case "synthesize", "quality", "remediate", "attribute", "write_partial":
		return "4 report"
	}
	return node
}

// View draws the Research tab's current view.
func (r *Model) View() string {
	switch r.view {
	case viewEditor:
		return r.editorView()
	case viewRun:
		return r.withBanner(r.runView())
	case viewRefine:
		return r.withBanner(r.refineView())
	case viewPlan:
		return r.withBanner(r.planView())
	case viewReport:
		if r.exportPick {
			return truncate(r.exportChooser(), r.width) + "\n" + r.report.view()
		}
		return r.st.Title.Render("Report") + r.st.Subtle.Render(fmt.Sprintf("  run %s", r.run)) + "\n" + r.report.view()
	case viewTree:
		return r.st.Title.Render("Rabbit-hole tree") + r.st.Subtle.Render("  tasks → chunks → references") + "\n" + r.tree.view(r.st)
	case viewSessions:
		return r.sessionsView()
	case viewPassage:
		return r.passageView()
	}
	return ""
}

// withBanner puts a line above a run's views that says whose run is watched, keeping the
// view within the tab's height.
func (r *Model) withBanner(view string) string {
	var banner string
	switch {
	case r.readOnly():
		owner := safeLine(r.owner)
		banner = fmt.Sprintf("watching %s's run · only %s or an admin answers, approves or cancels it · esc stops watching", owner, owner)
	case r.watching:
		banner = "following your run live · ctrl+x cancels it (it stays resumable) · esc stops watching"
	default:
		return view
	}
	lines := strings.Split(view, "\n")
	if len(lines) >= r.height {
		lines = lines[:max(r.height-1, 1)]
	}
	return r.st.Unresolved.Render(truncate(banner, r.width)) + "\n" + strings.Join(lines, "\n")
}

func (r *Model) editorView() string {
	var b strings.Builder
	// The field shows whether it has the keyboard: a prompt and a cursor, or neither.
	q := r.question
	if q.Focused() {
		q.Prompt = "> "
		b.WriteString(r.st.Title.Render("Research question") + r.st.Subtle.Render("  typing · esc leaves the field") + "\n\n")
	} else {
		q.Prompt = "  "
		b.WriteString(r.st.Title.Render("Research question") + r.st.Subtle.Render("  not typing · any key types again · ctrl+c quits") + "\n\n")
	}
	b.WriteString(q.View() + "\n\n")
	b.WriteString(wrap(r.st.Subtle.Render("warren will sharpen the question with you, propose a plan for your approval, follow the "+
		"references in the documents, and write a report in which every sentence cites a passage."), min(r.width, 100)))
	b.WriteString("\n\n" + r.st.Subtle.Render("ctrl+o: earlier runs (open, resume)"))
	return b.String()
}

func (r *Model) runView() string {
	var b strings.Builder
	q := ""
	if r.state != nil {
		q = r.state.Question
	}
	b.WriteString(r.st.Title.Render("Run "+r.run) + "  " + r.st.Subtle.Render(safeLine(q)) + "\n")
	node, phase := "", ""
	if n := len(r.trail); n > 0 {
		node, phase = r.trail[n-1].node, phaseOf(r.trail[n-1].node)
	}
	status := "running"
	if !r.running() {
		status = r.status
	}
	if node != "" {
		node = service.StepWords(node) // what the step does, not the graph's name for it
	}
	step := " · step " + orNone(node)
	if node != "" && strings.HasSuffix(phase, node) {
		step = "" // the phase says it already ("Phase 3 working the plan")
	}
	b.WriteString(fmt.Sprintf("Phase %s%s · %s\n", orNone(phase), step, status))
	budgets := r.be.Budgets()
	refTokens := 0
	if r.state != nil {
		for _, n := range r.state.RefTokens {
			refTokens = max(refTokens, n)
		}
		if b := r.state.Budget; b != nil {
			// The run's own budget, which it keeps across resumes, not today's configuration.
			budgets.ModelCalls, budgets.Tokens = b.Calls, b.Tokens
		}
	}
	b.WriteString(bar(r.st, "calls", r.calls, budgets.ModelCalls, r.width) + "\n")
	b.WriteString(bar(r.st, "tokens", r.tokens, budgets.Tokens, r.width) + "\n")
	b.WriteString(bar(r.st, "ref tokens", refTokens, budgets.ReferenceTokens, r.width) + "\n")
	if r.state != nil {
		counts := map[string]int{}
		for _, ref := range r.state.References {
			counts[ref.State]++
		}
		done := 0
		for _, t := range r.state.Plan {
			if t.Status == "done" {
				done++
			}
		}
		tasks := "no plan yet"
		if len(r.state.Plan) > 0 {
			tasks = fmt.Sprintf("%d of %s done", done, plural(len(r.state.Plan), "task"))
		}
		b.WriteString(truncate(r.st.Subtle.Render(fmt.Sprintf("%s · %s · references: %d followed, %d skipped, %d unresolved, %d over budget",
			tasks, plural(len(r.state.Findings), "finding"), counts[service.RefFollowed], counts[service.RefSkipped], counts[service.RefUnresolved], counts[service.RefOverBudget])), r.width) + "\n")
	}
	b.WriteString("\n" + r.st.Title.Render("Trail") + "\n")
	room := max(r.height-9, 1)
	start := max(len(r.trail)-room, 0)
	for _, t := range r.trail[start:] {
		mark := r.st.Followed.Render("✓")
		dur := t.duration.Round(1e6).String()
		if t.failed {
			mark = r.st.Unresolved.Render("✗")
		}
		if !t.done {
			mark, dur = r.st.Selected.Render("…"), "running"
			if !t.started.IsZero() {
				dur = time.Since(t.started).Round(time.Second).String()
			}
		}
		b.WriteString(fmt.Sprintf("%s %-24s %-9s %s\n", mark, service.StepWords(t.node), dur, r.st.Subtle.Render(safeLine(t.summary))))
	}
	if s := r.report.streamed.String(); s != "" && r.running() {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		b.WriteString("\n" + r.st.Subtle.Render("writing: "+safeLine(lines[len(lines)-1])))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r *Model) refineView() string {
	var p service.ResearchQuestions
	if r.pending != nil {
		json.Unmarshal(r.pending.Payload, &p)
	}
	var b strings.Builder
	found := 0
	if r.state != nil {
		found = len(r.state.Evidence)
	}
	passages, passagesAt := "", -1
	b.WriteString(r.st.Title.Render(fmt.Sprintf("Refinement, round %d", p.Iteration)) +
		r.st.Subtle.Render(fmt.Sprintf("  coverage %.0f %% · %s found", 100*p.Coverage, plural(found, "passage"))) + "\n")
	if r.state != nil && r.state.Question != "" {
		b.WriteString(clip(wrap("Question: "+safe(r.state.Question), r.width), 2) + "\n")
	}
	if len(p.Gaps) > 0 {
		b.WriteString(clip(wrap(r.st.Subtle.Render("Gaps: "+safe(strings.Join(p.Gaps, "; "))), r.width), 2) + "\n")
	}
	if a := p.Analysis; a != nil && a.String() != "" {
		// How the question is read so far: the analyst corrects it in the answer.
		b.WriteString(clip(wrap(r.st.Subtle.Render("Analysis: "+safe(a.String())), r.width), 2) + "\n")
	}
	if r.state != nil && len(r.state.Evidence) > 0 {
		var docs []string
		seen := map[string]bool{}
		for _, e := range r.state.Evidence {
			name := safeLine(e.Doc)
			if e.Section != "" {
				name += " § " + safeLine(e.Section)
			}
			if !seen[name] {
				seen[name] = true
				docs = append(docs, name)
			}
		}
		// Wrapped into the rows the view leaves free (inserted below), not cut to one line.
		passages, passagesAt = wrap(r.st.Subtle.Render("Passages: "+strings.Join(docs, " · ")), r.width), b.Len()
	}
	if r.state != nil {
		for _, a := range r.state.Answers {
			b.WriteString(truncate(r.st.Subtle.Render(fmt.Sprintf("Your answer, round %d: %s", a.Iteration+1, oneLine(a.Text))), r.width) + "\n")
		}
	}
	b.WriteString("\n")
	for i, q := range p.Questions {
		b.WriteString(wrap(fmt.Sprintf("%d. %s", i+1, safe(q)), r.width) + "\n")
	}
	b.WriteString("\n" + r.answer.View())
	out := b.String()
	if passagesAt >= 0 {
		room := max(r.height-lineCount(out), 1)
		out = out[:passagesAt] + clip(passages, room) + "\n" + out[passagesAt:]
	}
	return out
}

func (r *Model) planView() string {
	var b strings.Builder
	b.WriteString(r.st.Title.Render("Proposed plan") + r.st.Subtle.Render(fmt.Sprintf("  %s · change it, then approve", plural(len(r.plan), "task"))) + "\n\n")
	// The selected task's rationale and done-when take the lines below the list.
	detail := ""
	if r.planCursor < len(r.plan) {
		t := r.plan[r.planCursor]
		detail = r.st.Title.Render(fmt.Sprintf("Task %d", r.planCursor+1)) + "\n" +
			wrap("Why: "+orNone(oneLine(t.Rationale)), r.width) + "\n" + wrap("Done when: "+orNone(oneLine(t.DoneWhen)), r.width)
	}
	room := max(r.height-3-lineCount(detail)-1, 3)
	if r.editing != "" {
		room = max(room-3, 1)
	}
	b.WriteString(listWindow(len(r.plan), r.planCursor, room, func(i int) string {
		return fmt.Sprintf("%2d. %s", i+1, oneLine(r.plan[i].Query))
	}, r.st, r.width) + "\n")
	if r.editing != "" {
		label := map[string]string{"task": "Edit the task:", "add": "New task:", "comment": "Comment for a new plan:"}[r.editing]
		b.WriteString("\n" + label + "\n" + r.edit.View() + "\n")
	}
	b.WriteString("\n" + detail)
	return strings.TrimRight(b.String(), "\n")
}

// plural writes a count with its noun: 1 task, 3 tasks.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// clip keeps the first n lines of s.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = strings.TrimRight(lines[n-1], " ") + "…"
	}
	return strings.Join(lines, "\n")
}

func (r *Model) sessionsView() string {
	var b strings.Builder
	b.WriteString(r.st.Title.Render("Sessions") + r.st.Subtle.Render("  enter opens a run (a running one live), r resumes one that did not finish") + "\n\n")
	var others []string
	for _, j := range r.others {
		progress := ""
		if j.Progress.Total > 0 {
			progress = fmt.Sprintf(" %d/%d", j.Progress.Done, j.Progress.Total)
		}
		others = append(others, fmt.Sprintf("%s (%s%s)", safeLine(j.Title), safeLine(j.Owner), progress))
	}
	if len(others) > 0 {
		b.WriteString(truncate(r.st.Subtle.Render("Also running: "+strings.Join(others, " · ")), r.width) + "\n")
	}
	if len(r.runs) == 0 {
		return b.String() + r.st.Subtle.Render("No saved runs yet.")
	}
	room := max(r.height-3-min(len(others), 1), 1)
	start := max(r.runsCur-room+1, 0)
	// The state column is as wide as its widest word on screen ("waiting for alice" is long,
	// "done" is not), so that titles keep their room at 80 columns.
	states, width := map[string]string{}, 12
	for i := start; i < len(r.runs) && i < start+room; i++ {
		states[r.runs[i].ID] = safeLine(runState(r.runs[i], r.runJobs))
		width = max(width, len([]rune(states[r.runs[i].ID])))
	}
	for i := start; i < len(r.runs) && i < start+room; i++ {
		run := r.runs[i]
		status, owner := states[run.ID], ""
		if j, ok := r.runJobs[run.ID]; ok {
			owner = safeLine(j.Owner)
		}
		title := safeLine(run.Title)
		line := fmt.Sprintf("%-24s %-*s %3d steps  %s", run.ID, width, status, run.Steps, title)
		if owner != "" {
			line = fmt.Sprintf("%-24s %-*s %-10s %3d steps  %s", run.ID, width, status, owner, run.Steps, title)
		}
		if i == r.runsCur {
			line = r.st.Selected.Render("▸ " + line)
		} else {
			line = "  " + line
		}
		b.WriteString(truncate(line, r.width) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r *Model) passageView() string {
	c := r.passage
	if c == nil {
		return ""
	}
	head := safeLine(fmt.Sprintf("%s %s — %s", c.Doc, c.Place(), c.Heading))
	return r.st.Title.Render(head) + "\n" +
		r.st.Subtle.Render(fmt.Sprintf("collection %s · %s · chunk %s · bytes %d–%d", safeLine(c.Collection), orNone(c.SectionPath), safeLine(c.ID), c.Start, c.End)) +
		"\n\n" + wrap(safe(c.Text), min(r.width, 110))
}

// runState is a saved run's state in the words every listing uses (jobs.RunStateOf), read with
// its job when it has one: the sessions list, the header and `warren sessions list` agree.
func runState(run service.RunInfo, byRun map[string]jobs.Job) string {
	var job *jobs.Job
	if j, ok := byRun[run.ID]; ok {
		job = &j
	}
	return jobs.RunStateOf(run, job).String()
}

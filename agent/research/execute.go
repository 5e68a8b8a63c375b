package research

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"warren/agent"
	"warren/config"
	"warren/internal/snippet"
	"warren/kb/chunk"
	"warren/llm"
	"warren/retrieval"
	"warren/retrieval/refs"
)

// Guards of reference following, per task. How deep references are followed is the run's
// budgets.reference_depth, and how much they may read its budgets.reference_tokens.
const (
	// sameDocLimit: when references of a task lead into one document for the third time,
	// the task's reference loop has converged and stops (the design's "when one document
	// keeps coming back").
	sameDocLimit    = 3
	chunksPerSearch = 4
	// maxTaskPasses bounds how often one task is worked when the re-evaluation finds it not
	// done: the first pass and two more, each searching for what is still missing.
	maxTaskPasses = 3
)

type extractOut struct {
	Relevant    bool   `json:"relevant"`
	Information string `json:"information" desc:"what the passage says that the task needs, condensed in your own words; empty when not relevant"`
}

type gateOut struct {
	Follow bool   `json:"follow"`
	Reason string `json:"reason" schema:"minLength=3"`
}

type relevanceOut struct {
	Relevance float64 `json:"relevance" desc:"how much the passage helps the task, 0 to 1" schema:"min=0,max=1,clamp"`
}

type reevaluateOut struct {
	TaskDone bool       `json:"task_done"`
	NewTasks []planTask `json:"new_tasks" desc:"tasks the findings call for, if any" schema:"maxItems=3"`
	// NextQuery is what a task that is not done searches for in its next pass.
	NextQuery string `json:"next_query,omitempty" desc:"when the task is not done: a search query for what is still missing"`
}

// frontierChunk is a chunk to read at some depth of reference following.
type frontierChunk struct {
	chunk chunk.Chunk
	depth int
}

// workTask works one pass of the task at s.Plan[idx]: a search, then the references of what
// it finds, round by round down to the reference depth, then the re-evaluation. execute (see
// schedule.go) runs it for the pending tasks, each on its own copy of the state.
func (d *Deps) workTask(ctx context.Context, call caller, s *State, idx int) (*agent.Interrupt, error) {
	task := s.Plan[idx]
	query := task.Query
	if task.NextQuery != "" {
		query = task.NextQuery // a later pass searches for what the last one left open
	}
	pass := ""
	if task.Passes > 0 {
		pass = fmt.Sprintf(" (pass %d: %s)", task.Passes+1, query)
	}
	d.note(fmt.Sprintf("task %d/%d: %s%s", idx+1, len(s.Plan), task.Query, pass))
	results, err := d.searcher(call).Search(ctx, retrieval.Request{Query: query, K: chunksPerSearch, Language: s.Language})
	if err != nil {
		return nil, err
	}
	var frontier []frontierChunk
	for _, r := range results {
		frontier = append(frontier, frontierChunk{chunk: r.Chunk})
	}
	w := &taskWork{d: d, s: s, task: task, visited: map[string]bool{}, queued: map[string]bool{}, docCount: map[string]int{},
		refTokens: s.RefTokens[task.ID]}
	for _, id := range s.Read[task.ID] {
		w.visited[id] = true // read in an earlier pass
	}
	// Each round reads one level; passages at the depth limit are read but their references
	// are not followed, so the loop ends after at most reference_depth + 1 rounds.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	w.stopAll = stop
	for len(frontier) > 0 {
		if frontier, err = w.round(ctx, call, frontier, d.Budgets.ReferenceDepth); err != nil {
			break
		}
	}
	if err != nil && !errors.Is(err, llm.ErrBudgetExhausted) {
		stop(err) // the extractions still running are of no use
	}
	urgent(call)
	if ferr := w.takeFindings(); ferr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	if s.RefTokens == nil {
		s.RefTokens = map[string]int{}
	}
	s.RefTokens[task.ID] = w.refTokens
	if s.Read == nil {
		s.Read = map[string][]string{}
	}
	before := len(s.Read[task.ID])
	s.Read[task.ID] = w.read(s.Read[task.ID])
	if task.Passes > 0 && len(s.Read[task.ID]) == before {
		// A later pass that found nothing new would be re-evaluated on the same findings.
		s.Plan[idx].Passes++
		s.Plan[idx].Status, s.Plan[idx].NextQuery, s.Plan[idx].Unfinished = "done", "", true
		d.progress(fmt.Sprintf("%s: the pass found nothing new; left as it is", task.ID), nil)
		return nil, nil
	}
	return nil, d.reevaluate(ctx, call, s, idx)
}

// taskWork holds one task's guards while its references are followed.
type taskWork struct {
	d         *Deps
	s         *State
	task      Task
	visited   map[string]bool
	queued    map[string]bool // passages a reference of this round already leads to
	docCount  map[string]int  // how often references led into each document
	refTokens int
	// stop is set when the task's reference following ends before the depth limit: its
	// state (RefSkipped on convergence, RefOverBudget on the token budget) and the reason.
	// Later references of the task end in that state; passages already followed are read.
	stop, stopReason string

	// Extraction feeds the findings and nothing else: reference following does not wait for
	// it. Each round's extraction runs beside the following (see extract) and takeFindings
	// adds the findings in round order once the following is done, so the findings are the
	// same as if each round had waited for its extraction.
	extractions []*extraction
	running     sync.WaitGroup
	stopAll     context.CancelCauseFunc // ends the task's work when an extraction fails
}

// extraction is one round's reading of its fresh passages.
type extraction struct {
	chunks []frontierChunk
	out    []extractOut
	err    error
	done   chan struct{} // closed when out and err are final
}

// read returns the chunk IDs this task has read, earlier passes' first.
func (w *taskWork) read(earlier []string) []string {
	out := append([]string(nil), earlier...)
	seen := map[string]bool{}
	for _, id := range out {
		seen[id] = true
	}
	for id := range w.visited {
		if !seen[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out[len(earlier):])
	return out
}

// round reads a frontier: extracts from each chunk, detects and gates its references, follows
// the ones worth following, and returns the relevant chunks they lead to.
func (w *taskWork) round(ctx context.Context, call caller, frontier []frontierChunk, maxDepth int) ([]frontierChunk, error) {
	w.harvest()
	var fresh []frontierChunk
	for _, f := range frontier {
		if !w.visited[f.chunk.ID] {
			w.visited[f.chunk.ID] = true
			fresh = append(fresh, f)
		}
	}
	w.extract(ctx, call, fresh)
	// References are followed from passages shallower than the depth limit, until the task's
	// following stops.
	var sources []frontierChunk
	for _, f := range fresh {
		if f.depth < maxDepth && w.stop == "" {
			sources = append(sources, f)
		}
	}
	found := make([][]refs.Reference, len(sources))
	err := parallel(ctx, call, len(sources), w.d.Concurrency, func(ctx context.Context, call caller, i int) error {
		c := sources[i].chunk
		r, err := retrieval.DetectHybrid(ctx, ModelDetector(w.d.Gateway, call.Call), c.Text)
		found[i] = r
		if err == nil && len(r) > 0 {
			w.d.progress(fmt.Sprintf("found %d reference(s) in %s", len(r), place(c.Doc, c.Section)), nil)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	type candidate struct {
		from frontierChunk
		ref  refs.Reference
	}
	var cands []candidate
	seen := map[string]bool{}
	for i, f := range sources {
		for _, r := range found[i] {
			key := r.Key() + "|" + r.DocumentContext + "|" + f.chunk.Doc
			if !seen[key] {
				seen[key] = true
				cands = append(cands, candidate{from: f, ref: r})
			}
		}
	}
	gates := make([]gateOut, len(cands))
	err = parallel(ctx, call, len(cands), w.d.Concurrency, func(ctx context.Context, call caller, i int) error {
		c := cands[i]
		if c.ref.Type == refs.TypeExternal {
			return nil // never followed: no call needed
		}
		prompt := fmt.Sprintf("Task: %s\nIn %s %s (reached at depth %d of %d) the passage refers to «%s» (%s %s%s).\nShould this reference be followed for the task?",
			w.task.Query, c.from.chunk.Doc, c.from.chunk.Section, c.from.depth, w.d.Budgets.ReferenceDepth, c.ref.OriginalText, c.ref.Type, c.ref.Target, contextNote(c.ref))
		if err := w.d.structured(ctx, call, w.s, config.RoleFast, "You decide which references in a document are worth following.", prompt, &gates[i]); err != nil {
			return err
		}
		decision := "skip"
		if gates[i].Follow {
			decision = "follow"
		}
		w.d.progress(fmt.Sprintf("gate: %s «%s»: %s", decision, oneLine(c.ref.OriginalText), gates[i].Reason), nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var nested []frontierChunk
	for i, c := range cands {
		rec := RefRecord{Task: w.task.ID, Depth: c.from.depth, FromChunk: c.from.chunk.ID, Type: c.ref.Type, Target: c.ref.Target,
			Text: c.ref.OriginalText, Context: c.ref.DocumentContext}
		chunks := w.follow(ctx, call, c.ref, c.from, gates[i], &rec)
		w.s.References = append(w.s.References, rec)
		w.d.progress(refProgress(rec), w.s)
		for _, ch := range chunks {
			nested = append(nested, frontierChunk{chunk: ch, depth: c.from.depth + 1})
		}
	}
	return w.filter(ctx, call, nested)
}

// extract reads a round's fresh passages beside the rest of the task's work: whether each
// is relevant to the task, and what it says that the task needs. Its calls wait behind the
// calls reference following waits on (see background), and an error ends the task's work.
func (w *taskWork) extract(ctx context.Context, call caller, fresh []frontierChunk) {
	if len(fresh) == 0 {
		return
	}
	e := &extraction{chunks: fresh, out: make([]extractOut, len(fresh)), done: make(chan struct{})}
	w.extractions = append(w.extractions, e)
	w.running.Go(func() {
		defer close(e.done)
		e.err = parallel(ctx, background(call), len(fresh), w.d.Concurrency, func(ctx context.Context, call caller, i int) error {
			c := fresh[i].chunk
			prompt := fmt.Sprintf("Task: %s\nPassage (%s %s):\n%s\nIs the passage relevant to the task? If so, extract the information the task needs.",
				w.task.Query, c.Doc, c.Section, c.Text)
			if err := w.d.structured(ctx, call, w.s, config.RoleFast, "You extract information from document passages.", prompt, &e.out[i]); err != nil {
				return err
			}
			verdict := "not relevant"
			if e.out[i].Relevant {
				verdict = "relevant"
			}
			w.d.progress(fmt.Sprintf("read %s: %s", place(c.Doc, c.Section), verdict), nil)
			return nil
		})
		if e.err != nil && !errors.Is(e.err, llm.ErrBudgetExhausted) && w.stopAll != nil {
			w.stopAll(e.err)
		}
	})
}

// harvest adds the findings of the rounds whose extraction has ended, as long as every round
// before them has too, so that the findings (and the rabbit-hole tree drawn from them) grow
// while the task works, in the order takeFindings would give them.
func (w *taskWork) harvest() {
	before := len(w.s.Findings)
	taken := 0
	for _, e := range w.extractions {
		select {
		case <-e.done:
		default:
			e = nil
		}
		if e == nil || e.err != nil {
			break // a failed round is left to takeFindings, which reports it
		}
		w.addFindings(e)
		taken++
	}
	w.extractions = w.extractions[taken:]
	if n := len(w.s.Findings) - before; n > 0 {
		w.d.progress(fmt.Sprintf("%d new finding(s) for %s", n, w.task.ID), w.s)
	}
}

func (w *taskWork) addFindings(e *extraction) {
	for i, f := range e.chunks {
		if e.out[i].Relevant && strings.TrimSpace(e.out[i].Information) != "" {
			c := f.chunk
			w.s.Findings = append(w.s.Findings, Finding{Task: w.task.ID, ChunkID: c.ID, Doc: c.Doc, Collection: c.Collection,
				Section: c.Section, Depth: f.depth, Information: e.out[i].Information, Excerpt: snippet.Cut(c.Text, 400)})
		}
	}
}

// takeFindings waits for the extractions and adds their findings to the state in the order
// the passages were read. It returns the first failure, an exhausted budget before any other;
// the rounds read before the budget ran out keep their findings.
func (w *taskWork) takeFindings() error {
	w.running.Wait()
	before := len(w.s.Findings)
	var failed error
	for _, e := range w.extractions {
		if e.err != nil {
			if failed == nil || errors.Is(e.err, llm.ErrBudgetExhausted) && !errors.Is(failed, llm.ErrBudgetExhausted) {
				failed = e.err
			}
			continue
		}
		w.addFindings(e)
	}
	w.extractions = nil
	if n := len(w.s.Findings) - before; n > 0 {
		w.d.progress(fmt.Sprintf("%d new finding(s) for %s", n, w.task.ID), w.s)
	}
	return failed
}

// refProgress says what became of a reference, and where it led.
func refProgress(r RefRecord) string {
	text := fmt.Sprintf("«%s» %s", oneLine(r.Text), strings.ReplaceAll(r.State, "_", " "))
	if r.Resolved != nil && r.State == RefFollowed {
		text += " → " + place(r.Resolved.Doc, r.Resolved.Section)
	}
	if r.Reason != "" {
		text += ": " + r.Reason
	}
	return text
}

// place names a passage: "doc § section".
func place(doc, section string) string {
	if section == "" {
		return doc
	}
	return doc + " § " + section
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func contextNote(r refs.Reference) string {
	if r.DocumentContext != "" {
		return " in " + r.DocumentContext
	}
	return ""
}

// follow decides a reference's fate and returns the chunks it leads to, recording the state.
func (w *taskWork) follow(ctx context.Context, call caller, ref refs.Reference, from frontierChunk, gate gateOut, rec *RefRecord) []chunk.Chunk {
	switch {
	case ref.Type == refs.TypeExternal:
		rec.State, rec.Reason = RefSkipped, "external reference: never followed"
		return nil
	case !gate.Follow:
		rec.State, rec.Reason = RefSkipped, gate.Reason
		return nil
	case w.stop != "":
		rec.State, rec.Reason = w.stop, w.stopReason
		return nil
	}
	res := w.d.resolver(call).Resolve(ctx, ref, retrieval.Origin{Doc: from.chunk.Doc, Section: from.chunk.Section, Context: from.chunk.Text})
	if res.Resolved == nil {
		rec.State, rec.Reason = RefUnresolved, res.Reason
		return nil
	}
	rec.Resolved = res.Resolved
	w.docCount[res.Resolved.Doc]++
	if n := w.docCount[res.Resolved.Doc]; n >= sameDocLimit {
		// The references keep leading into one document: the task's following has converged.
		w.stop, w.stopReason = RefSkipped, fmt.Sprintf("converged: %s came back %d times; the task follows no more references", res.Resolved.Doc, n)
		rec.State, rec.Reason = w.stop, w.stopReason
		return nil
	}
	var ids []string
	for _, id := range res.Resolved.ChunkIDs {
		if !w.visited[id] && !w.queued[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		rec.State, rec.Reason = RefSkipped, "already read"
		return nil
	}
	chunks, err := w.d.Store.Chunks(ctx, ids)
	if err != nil {
		rec.State, rec.Reason = RefUnresolved, err.Error()
		return nil
	}
	tokens := 0
	for _, c := range chunks {
		tokens += approxTokens(c.Text)
	}
	if budget := w.d.Budgets.ReferenceTokens; budget > 0 && w.refTokens+tokens > budget {
		// The budget stops the task's following: a smaller passage later would fit, but
		// reading it would make the budget depend on the order references come in.
		rec.State, rec.Reason = RefOverBudget, fmt.Sprintf("would exceed the task's reference budget of %d tokens (%d used, %d more needed)", budget, w.refTokens, tokens)
		w.stop, w.stopReason = RefOverBudget, fmt.Sprintf("the task's reference budget of %d tokens is spent (%d used); it follows no more references", budget, w.refTokens)
		return nil
	}
	w.refTokens += tokens
	for _, id := range ids {
		w.queued[id] = true // a second reference to the same passage in this round is "already read"
	}
	rec.State = RefFollowed
	if gate.Reason != "" {
		rec.Reason = gate.Reason
	}
	return chunks
}

// filter scores the chunks that references led to and keeps the relevant ones, backfilling
// to min_results from the best of the rest.
func (w *taskWork) filter(ctx context.Context, call caller, nested []frontierChunk) ([]frontierChunk, error) {
	scores := make([]relevanceOut, len(nested))
	err := parallel(ctx, call, len(nested), w.d.Concurrency, func(ctx context.Context, call caller, i int) error {
		c := nested[i].chunk
		prompt := fmt.Sprintf("Task: %s\nPassage (%s %s):\n%s\nScore how much this passage helps the task.", w.task.Query, c.Doc, c.Section, snippet.Cut(c.Text, 1500))
		return w.d.structured(ctx, call, w.s, config.RoleFast, "You score passages for relevance.", prompt, &scores[i])
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(nested))
	for i := range idx {
		idx[i] = i
	}
	kept, _ := retrieval.FilterRelevant(idx, func(i int) float64 { return scores[i].Relevance }, w.d.Thresholds.Relevance, w.d.Thresholds.MinResults)
	out := make([]frontierChunk, 0, len(kept))
	for _, i := range kept {
		out = append(out, nested[i])
	}
	return out, nil
}

// reevaluate asks whether the task is done and what new tasks its findings call for. A task
// that is not done stays open for another pass, up to maxTaskPasses, searching for what the
// model says is missing. A plan that already holds MaxTasks cannot take new tasks: then the
// task is done after its pass and no call is made.
func (d *Deps) reevaluate(ctx context.Context, call caller, s *State, idx int) error {
	task := &s.Plan[idx]
	task.Passes++
	if len(s.Plan) >= MaxTasks {
		task.Status, task.NextQuery = "done", ""
		d.progress(fmt.Sprintf("%s done: the plan holds its %d tasks, so it is not re-evaluated", task.ID, MaxTasks), nil)
		return nil
	}
	var found []string
	for _, f := range s.Findings {
		if f.Task == task.ID {
			found = append(found, fmt.Sprintf("- %s %s: %s", f.Doc, f.Section, f.Information))
		}
	}
	prompt := fmt.Sprintf("Research question: %s\nTask: %s (done when: %s)\nFindings:\n%s\nIs the task done? Which new tasks, if any, do the findings call for? If the task is not done, give a search query for what is still missing.",
		s.Question, task.Query, task.DoneWhen, strings.Join(found, "\n"))
	var out reevaluateOut
	if err := d.structured(ctx, call, s, config.RoleFast, "You re-evaluate a research plan as findings come in.", prompt, &out); err != nil {
		task.Passes-- // the pass is worked again on resume
		return err
	}
	switch {
	case out.TaskDone:
		task.Status, task.NextQuery = "done", ""
	case task.Passes >= maxTaskPasses:
		task.Status, task.NextQuery = "done", ""
		task.Unfinished = true
		d.progress(fmt.Sprintf("%s still not done after %d passes: left as it is", task.ID, task.Passes), nil)
	default:
		task.Status = "pending"
		if q := strings.TrimSpace(out.NextQuery); q != "" {
			task.NextQuery = q
		}
		d.progress(fmt.Sprintf("%s not done yet: another pass%s", task.ID, orEmpty(" for «", task.NextQuery, "»")), nil)
	}
	for _, t := range out.NewTasks {
		if len(s.Plan) >= MaxTasks {
			break
		}
		s.Plan = append(s.Plan, Task{ID: newTaskID(s.Plan), Query: t.Query, Rationale: t.Rationale,
			DoneWhen: t.DoneWhen, Status: "pending", Added: true})
	}
	return nil
}

// orEmpty wraps s in before and after, or gives "" for an empty s.
func orEmpty(before, s, after string) string {
	if s == "" {
		return ""
	}
	return before + s + after
}

func afterExecute(s *State) string {
	if s.Exhausted {
		return "write_partial"
	}
	for _, t := range s.Plan {
		if t.Status != "done" {
			return "execute"
		}
	}
	return "synthesize"
}

// newTaskID returns the first "tN" not used by the plan.
func newTaskID(plan []Task) string {
	used := map[string]bool{}
	for _, t := range plan {
		used[t.ID] = true
	}
	for n := len(plan) + 1; ; n++ {
		if id := fmt.Sprintf("t%d", n); !used[id] {
			return id
		}
	}
}

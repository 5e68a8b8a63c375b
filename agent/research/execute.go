package research

import (
	"cmp"
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

// extractOut is the reading of a passage whose references are not followed (at the depth
// limit, or once the task's following has stopped).
type extractOut struct {
	Relevant    bool   `json:"relevant"`
	Information string `json:"information" desc:"what the passage says that the task needs, condensed in your own words; empty when not relevant"`
}

// readOut is the reading of a passage whose references are followed: what it says for the
// task and the references the regular expressions did not find, in one call.
type readOut struct {
	Relevant    bool             `json:"relevant"`
	Information string           `json:"information" desc:"what the passage says that the task needs, condensed in your own words; empty when not relevant"`
	References  []modelReference `json:"references" desc:"references in the passage that are not in the list of those already found" schema:"maxItems=40"`
}

// gatesOut decides the references found in one passage, one decision per listed number.
type gatesOut struct {
	Gates []gateOut `json:"gates" schema:"maxItems=60"`
}

type gateOut struct {
	N      int    `json:"n" desc:"the reference's number in the list"`
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
	for len(frontier) > 0 && err == nil {
		frontier, err = w.round(ctx, call, frontier, d.Budgets.ReferenceDepth)
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

// candidate is a reference found in a passage the task read.
type candidate struct {
	from frontierChunk
	ref  refs.Reference
}

// round reads a frontier, one call per passage that extracts what it says for the task and,
// where its references are followed, finds those the regular expressions miss; then one call
// per passage gates its references, the ones worth following are followed, and the relevant
// chunks they lead to are returned. Which calls a round makes depends on the passages only,
// never on how many run at once.
func (w *taskWork) round(ctx context.Context, call caller, frontier []frontierChunk, maxDepth int) ([]frontierChunk, error) {
	var fresh []frontierChunk
	taken := map[string]bool{}
	for _, f := range frontier {
		if !w.visited[f.chunk.ID] && !taken[f.chunk.ID] {
			taken[f.chunk.ID] = true
			fresh = append(fresh, f)
		}
	}
	// References are followed from passages shallower than the depth limit, until the task's
	// following stops.
	detect := make([]bool, len(fresh))
	for i, f := range fresh {
		detect[i] = f.depth < maxDepth && w.stop == ""
	}
	outs := make([]readOut, len(fresh))
	found := make([][]refs.Reference, len(fresh))
	done := make([]bool, len(fresh))
	// Findings join the state in reading order as soon as a passage and every one before it
	// are read, so the rabbit-hole tree grows while the round works.
	var mu sync.Mutex
	added := 0 // passages whose findings are in the state
	take := func(upTo int) {
		before := len(w.s.Findings)
		for ; added < upTo; added++ {
			if f, o := fresh[added], outs[added]; done[added] && o.Relevant && strings.TrimSpace(o.Information) != "" {
				w.s.Findings = append(w.s.Findings, Finding{Task: w.task.ID, ChunkID: f.chunk.ID, Doc: f.chunk.Doc, Collection: f.chunk.Collection,
					Section: f.chunk.Section, PageRef: f.chunk.PageRef(), Depth: f.depth, Information: o.Information, Excerpt: snippet.Cut(f.chunk.Text, 400)})
			}
		}
		if n := len(w.s.Findings) - before; n > 0 {
			w.d.progress(fmt.Sprintf("%d new finding(s) for %s", n, w.task.ID), w.s)
		}
	}
	err := parallel(ctx, call, len(fresh), w.d.Concurrency, func(ctx context.Context, call caller, i int) error {
		var o readOut
		r, err := w.readPassage(ctx, call, fresh[i].chunk, detect[i], &o)
		mu.Lock()
		defer mu.Unlock()
		outs[i], found[i], done[i] = o, r, err == nil
		upTo := added
		for upTo < len(fresh) && done[upTo] {
			upTo++
		}
		take(upTo)
		return err
	})
	mu.Lock()
	take(len(fresh)) // the passages read keep their findings whatever stopped the others
	mu.Unlock()
	var cands []candidate
	seen := map[string]bool{}
	for i, f := range fresh {
		if !done[i] {
			continue
		}
		w.visited[f.chunk.ID] = true
		for _, r := range found[i] {
			key := r.Key() + "|" + r.DocumentContext + "|" + f.chunk.Doc
			if !seen[key] {
				seen[key] = true
				cands = append(cands, candidate{from: f, ref: r})
			}
		}
	}
	if err != nil {
		var unread []frontierChunk
		for i, f := range fresh {
			if !done[i] {
				unread = append(unread, f)
			}
		}
		w.unread(unread)
		w.undecided(cands, err)
		return nil, err
	}
	// One gate call per passage, for all the references found in it.
	var bySource [][]int // indexes into cands, grouped by the passage they were found in
	for i, c := range cands {
		if c.ref.Type == refs.TypeExternal {
			continue // never followed: no call needed
		}
		if n := len(bySource); n > 0 && cands[bySource[n-1][0]].from.chunk.ID == c.from.chunk.ID {
			bySource[n-1] = append(bySource[n-1], i)
		} else {
			bySource = append(bySource, []int{i})
		}
	}
	gates := make([]gateOut, len(cands))
	decided := make([]bool, len(cands))
	err = parallel(ctx, call, len(bySource), w.d.Concurrency, func(ctx context.Context, call caller, g int) error {
		return w.gate(ctx, call, cands, bySource[g], gates, decided)
	})
	if err != nil {
		var left []candidate
		for i, c := range cands {
			if !decided[i] && c.ref.Type != refs.TypeExternal {
				left = append(left, c)
			}
		}
		w.undecided(left, err)
		return nil, err
	}
	var nested []frontierChunk
	for i, c := range cands {
		rec := RefRecord{Task: w.task.ID, Depth: c.from.depth, FromChunk: c.from.chunk.ID, Type: c.ref.Type, Target: c.ref.Target,
			Text: c.ref.OriginalText, Context: c.ref.DocumentContext}
		chunks, err := w.follow(ctx, call, c.ref, c.from, gates[i], &rec)
		if err != nil {
			w.undecided(cands[i:], err)
			return nil, err
		}
		w.s.References = append(w.s.References, rec)
		w.d.progress(refProgress(rec), w.s)
		for _, ch := range chunks {
			nested = append(nested, frontierChunk{chunk: ch, depth: c.from.depth + 1})
		}
	}
	next, err := w.filter(ctx, call, nested)
	if err != nil {
		w.unread(nested)
	}
	return next, err
}

// readPassage reads one passage for the task in one call: whether it is relevant and what it
// says, and when detect is set the references in it. The regular expressions find references
// first; the model is asked only for those they missed, and a reference it names that the
// passage does not contain is dropped.
func (w *taskWork) readPassage(ctx context.Context, call caller, c chunk.Chunk, detect bool, out *readOut) ([]refs.Reference, error) {
	prompt := fmt.Sprintf("Task: %s\nPassage (%s %s):\n%s\nIs the passage relevant to the task? If so, extract the information the task needs.",
		w.task.Query, c.Doc, c.Section, c.Text)
	system := "You extract information from document passages."
	var found []refs.Reference
	if !detect {
		var e extractOut
		if err := w.d.structured(ctx, call, w.s, config.RoleFast, system, prompt, &e); err != nil {
			return nil, err
		}
		out.Relevant, out.Information = e.Relevant, e.Information
	} else {
		regex := refs.DetectRegex(c.Text)
		var known []string
		for _, r := range regex {
			known = append(known, "«"+r.OriginalText+"»")
		}
		prompt += "\nReferences already found in the passage: " + cmp.Or(strings.Join(known, ", "), "none") +
			".\nList under references only the other references in the passage."
		if err := w.d.structured(ctx, call, w.s, config.RoleFast, system+"\n"+detectSystem, prompt, out); err != nil {
			return nil, err
		}
		byModel := modelRefs(c.Text, out.References)
		// The same merge as retrieval's hybrid detector: the regex's first, the model's where
		// they find nothing.
		found, _ = retrieval.DetectHybrid(ctx, func(context.Context, string) ([]refs.Reference, error) { return byModel, nil }, c.Text)
		if len(found) > 0 {
			w.d.progress(fmt.Sprintf("found %d reference(s) in %s", len(found), place(c.Doc, c.Section)), nil)
		}
	}
	verdict := "not relevant"
	if out.Relevant {
		verdict = "relevant"
	}
	w.d.progress(fmt.Sprintf("read %s: %s", place(c.Doc, c.Section), verdict), nil)
	return found, nil
}

// gate decides, in one call, whether each of the references found in one passage (idx, into
// cands) is worth following. A reference the answer gives no decision for is skipped.
func (w *taskWork) gate(ctx context.Context, call caller, cands []candidate, idx []int, gates []gateOut, decided []bool) error {
	from := cands[idx[0]].from
	var list strings.Builder
	for n, i := range idx {
		r := cands[i].ref
		fmt.Fprintf(&list, "%d. «%s» (%s %s%s)\n", n+1, r.OriginalText, r.Type, r.Target, contextNote(r))
	}
	prompt := fmt.Sprintf("Task: %s\nIn %s %s (reached at depth %d of %d) the passage refers to:\n%sFor each reference, by its number: should it be followed for the task?",
		w.task.Query, from.chunk.Doc, from.chunk.Section, from.depth, w.d.Budgets.ReferenceDepth, list.String())
	var out gatesOut
	schema, err := gatesSchema(len(idx))
	if err != nil {
		return err
	}
	if err := w.d.structuredWith(ctx, call, w.s, config.RoleFast, "You decide which references in a document are worth following.", prompt, schema, &out); err != nil {
		return err
	}
	byNumber := gateNumbers(out.Gates, len(idx))
	for n, i := range idx {
		gates[i] = gateOut{Reason: "the gate gave no decision for it"}
		switch {
		case byNumber:
			for _, g := range out.Gates {
				if g.N == n+1 {
					gates[i] = g
					break
				}
			}
		case n < len(out.Gates):
			gates[i] = out.Gates[n] // in the listed order
		}
		decided[i] = true
		decision := "skip"
		if gates[i].Follow {
			decision = "follow"
		}
		w.d.progress(fmt.Sprintf("gate: %s «%s»: %s", decision, oneLine(cands[i].ref.OriginalText), gates[i].Reason), nil)
	}
	return nil
}

// gatesSchema asks for exactly one decision per listed reference, numbered 1 to k: a small
// model held to the schema cannot leave one out.
func gatesSchema(k int) (*llm.Schema, error) {
	shared, err := llm.SchemaOf(&gatesOut{})
	if err != nil {
		return nil, err
	}
	schema := shared.Clone()
	list := schema.Property("gates")
	list.MinItems, list.MaxItems = &k, &k
	lo, hi := 1.0, float64(k)
	n := list.Items.Property("n")
	n.Minimum, n.Maximum = &lo, &hi
	return schema, nil
}

// gateNumbers reports whether the decisions name each of the k references once by number;
// otherwise they are read in the listed order (one per reference, as the schema asks).
func gateNumbers(gates []gateOut, k int) bool {
	seen := make([]bool, k+1)
	for _, g := range gates {
		if g.N < 1 || g.N > k || seen[g.N] {
			return false
		}
		seen[g.N] = true
	}
	return len(gates) == k
}

// undecided records the references that err (the run's budget running out, or the task's
// work stopped with it) left undecided, as not followed for that reason.
func (w *taskWork) undecided(cands []candidate, err error) {
	reason := "not decided: " + stoppedBy(err)
	for _, c := range cands {
		w.s.References = append(w.s.References, RefRecord{Task: w.task.ID, Depth: c.from.depth, FromChunk: c.from.chunk.ID,
			Type: c.ref.Type, Target: c.ref.Target, Text: c.ref.OriginalText, Context: c.ref.DocumentContext,
			State: RefOverBudget, Reason: reason})
	}
}

// unread records passages the task reached but did not read (see State.Unread).
func (w *taskWork) unread(chunks []frontierChunk) {
	for _, f := range chunks {
		if !w.visited[f.chunk.ID] {
			w.s.Unread = append(w.s.Unread, UnreadPassage{Task: w.task.ID, ChunkID: f.chunk.ID, Doc: f.chunk.Doc, Section: f.chunk.Section, Depth: f.depth})
		}
	}
}

// stoppedBy says what stopped a task's work.
func stoppedBy(err error) string {
	if errors.Is(err, llm.ErrBudgetExhausted) {
		return "the run's budget ran out"
	}
	return "the run stopped (its budget ran out in another task)"
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
// Its error is the run's budget running out while the reference was resolved.
func (w *taskWork) follow(ctx context.Context, call caller, ref refs.Reference, from frontierChunk, gate gateOut, rec *RefRecord) ([]chunk.Chunk, error) {
	switch {
	case ref.Type == refs.TypeExternal:
		rec.State, rec.Reason = RefSkipped, "external reference: never followed"
		return nil, nil
	case !gate.Follow:
		rec.State, rec.Reason = RefSkipped, gate.Reason
		return nil, nil
	case w.stop != "":
		rec.State, rec.Reason = w.stop, w.stopReason
		return nil, nil
	}
	res := w.d.resolver(call).Resolve(ctx, ref, retrieval.Origin{Doc: from.chunk.Doc, Section: from.chunk.Section, Context: from.chunk.Text})
	if res.Resolved == nil {
		// The resolver's searches embed through the run: a failure because the budget is
		// spent is the run's stop, not an unresolved reference.
		if err := budgetSpent(call); err != nil {
			return nil, err
		}
		rec.State, rec.Reason = RefUnresolved, res.Reason
		return nil, nil
	}
	rec.Resolved = res.Resolved
	w.docCount[res.Resolved.Doc]++
	if n := w.docCount[res.Resolved.Doc]; n >= sameDocLimit {
		// The references keep leading into one document: the task's following has converged.
		w.stop, w.stopReason = RefSkipped, fmt.Sprintf("converged: %s came back %d times; the task follows no more references", res.Resolved.Doc, n)
		rec.State, rec.Reason = w.stop, w.stopReason
		return nil, nil
	}
	var ids []string
	for _, id := range res.Resolved.ChunkIDs {
		if !w.visited[id] && !w.queued[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		rec.State, rec.Reason = RefSkipped, "already read"
		return nil, nil
	}
	chunks, err := w.d.Store.Chunks(ctx, ids)
	if err != nil {
		rec.State, rec.Reason = RefUnresolved, err.Error()
		return nil, nil
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
		return nil, nil
	}
	w.refTokens += tokens
	for _, id := range ids {
		w.queued[id] = true // a second reference to the same passage in this round is "already read"
	}
	rec.State = RefFollowed
	if gate.Reason != "" {
		rec.Reason = gate.Reason
	}
	return chunks, nil
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

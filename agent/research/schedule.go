package research

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"warren/agent"
	"warren/config"
	"warren/llm"
)

// execute works the plan in waves, one wave per step: a wave works one pass of every task
// pending when it starts, as many tasks at once as the model hosts can answer (see workers),
// each on its own copy of the state, and merges the passes into the state in plan order.
// Tasks added by a wave's re-evaluations, and tasks left open for another pass, are worked by
// the next wave. The merge order does not depend on how many tasks ran at once, so one at a
// time and several at once end in the same state.
func (d *Deps) execute(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	var pending []int
	for i := range s.Plan {
		if s.Plan[i].Status != "done" {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return nil, nil
	}
	// Up to n tasks at once, each reading passages in parallel too, but no more than n model
	// calls in flight across them: each call holds one of the wave's n call slots, so a
	// task that waits on its own serial call leaves its slots to the others.
	n := d.workers()
	slots := newCallSlots(n)
	w := newWave(s, len(pending), d.Progress)
	err := parallel(ctx, call, len(pending), min(n, len(pending)), func(ctx context.Context, call caller, i int) error {
		td := *d // the task's own progress
		td.Concurrency = n
		td.Note = w.note(d.Note)
		td.Progress = w.progressOf(i)
		_, err := td.workTask(ctx, slots.on(call, i), w.views[i], pending[i])
		return err
	})
	if err != nil && !errors.Is(err, llm.ErrBudgetExhausted) {
		return nil, err // the runner drops the state: the wave is worked again, its calls replayed
	}
	// An exhausted budget keeps what every task found so far, as one task at a time would.
	for i, idx := range pending {
		w.merge(s, i, idx)
	}
	return nil, err
}

// workers is how many model calls research works at once: the fast role's capacity over its
// healthy hosts, read when a wave starts, and at most Concurrency when that is set.
func (d *Deps) workers() int {
	n := d.Gateway.Capacity(config.RoleFast)
	if d.Concurrency > 0 {
		n = min(n, d.Concurrency)
	}
	return max(n, 1)
}

// wave is the tasks worked at once in one step: a view of the state per task, and what the
// state held when the wave started.
type wave struct {
	views                []*State
	plan, findings, refs int // lengths of the state's plan, findings and references at the start
	unread               int // and of its unread passages
	base                 *State
	progress             func(text string, s *State)
	mu                   sync.Mutex
	shownFindings        [][]Finding   // per task, the findings its last progress with a state showed
	shownRefs            [][]RefRecord // and its references
}

func newWave(s *State, tasks int, progress func(string, *State)) *wave {
	w := &wave{views: make([]*State, tasks), plan: len(s.Plan), findings: len(s.Findings), refs: len(s.References), unread: len(s.Unread),
		base: s, progress: progress, shownFindings: make([][]Finding, tasks), shownRefs: make([][]RefRecord, tasks)}
	for i := range w.views {
		w.views[i] = taskView(s)
	}
	return w
}

// taskView is a copy of the state for one task's pass: the slices and maps a pass changes are
// its own, so that passes can run at once; merge takes back what the pass added.
func taskView(s *State) *State {
	v := *s
	v.Plan = slices.Clip(slices.Clone(s.Plan))
	v.Findings = slices.Clip(slices.Clone(s.Findings))
	v.References = slices.Clip(slices.Clone(s.References))
	v.Unread = slices.Clip(slices.Clone(s.Unread))
	v.RefTokens = maps.Clone(s.RefTokens)
	v.Read = maps.Clone(s.Read)
	return &v
}

// merge takes into s what the pass of task idx did in view i: the task as the pass left it,
// its findings, references, reference tokens and passages read, and the tasks its
// re-evaluation added, numbered anew and as many as the plan has room for.
func (w *wave) merge(s *State, i, idx int) {
	v := w.views[i]
	s.Plan[idx] = v.Plan[idx]
	s.Findings = append(s.Findings, v.Findings[w.findings:]...)
	s.References = append(s.References, v.References[w.refs:]...)
	s.Unread = append(s.Unread, v.Unread[w.unread:]...)
	id := v.Plan[idx].ID
	if t, ok := v.RefTokens[id]; ok {
		if s.RefTokens == nil {
			s.RefTokens = map[string]int{}
		}
		s.RefTokens[id] = t
	}
	if r, ok := v.Read[id]; ok {
		if s.Read == nil {
			s.Read = map[string][]string{}
		}
		s.Read[id] = r
	}
	for _, t := range v.Plan[w.plan:] {
		if len(s.Plan) >= MaxTasks {
			break
		}
		t.ID = newTaskID(s.Plan)
		s.Plan = append(s.Plan, t)
	}
}

// progressOf is the progress of the task in view i. A step that changed its view shows the
// state with every task's findings and references so far, in plan order, so the reference
// tree grows with all of them; the state is built and passed under the wave's lock.
func (w *wave) progressOf(i int) func(text string, s *State) {
	return func(text string, s *State) {
		if w.progress == nil {
			return
		}
		if s == nil {
			w.progress(text, nil)
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.shownFindings[i] = slices.Clone(s.Findings[w.findings:])
		w.shownRefs[i] = slices.Clone(s.References[w.refs:])
		all := *w.base
		all.Findings = slices.Clone(w.base.Findings[:w.findings])
		all.References = slices.Clone(w.base.References[:w.refs])
		for j := range w.views {
			all.Findings = append(all.Findings, w.shownFindings[j]...)
			all.References = append(all.References, w.shownRefs[j]...)
		}
		w.progress(text, &all)
	}
}

// note passes notes from the tasks worked at once one at a time.
func (w *wave) note(note func(string)) func(string) {
	if note == nil {
		return nil
	}
	return func(text string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		note(text)
	}
}

// callSlots bound the model calls in flight across the tasks of a wave. A free slot goes to
// the waiting call of the task earliest in the plan (first come first served within a task):
// the first tasks run at the pace of a plan worked alone, and the later ones fill the slots
// the first leave idle while they wait on a serial step (a re-evaluation, the one passage a
// reference led to). The order decides only when a call is made, never whether.
type callSlots struct {
	mu      sync.Mutex
	free    int
	waiting []*slotWaiter // in arrival order
}

type slotWaiter struct {
	rank  int // the task's place in the wave; lower is served first
	ready chan struct{}
}

func newCallSlots(n int) *callSlots { return &callSlots{free: n} }

// caller is what research code makes its model calls with: the llm.Call of the node they
// are made for (run, node name, journal) and, inside execute's waves, the claim on the wave's
// call slots they wait for. The nodes get it from the graph (see Graph) and pass it down to
// every function that calls the model.
type caller struct {
	llm.Call
	claim slotClaim // claim.slots is nil outside execute's waves: the calls wait for no slot
	held  bool      // the code holds one of the slots already (an item of parallel)
}

// slotClaim is a caller's standing with the slots: the slots and the rank of the task its
// calls are for.
type slotClaim struct {
	slots *callSlots
	rank  int
}

// on gives the calls made with call the slots to share, for the task of the given rank.
func (c *callSlots) on(call caller, rank int) caller {
	call.claim = slotClaim{slots: c, rank: rank}
	return call
}

// acquire waits for a slot; an error when ctx ends first.
func (c *callSlots) acquire(ctx context.Context, claim slotClaim) error {
	c.mu.Lock()
	if c.free > 0 {
		c.free--
		c.mu.Unlock()
		return nil
	}
	w := &slotWaiter{rank: claim.rank, ready: make(chan struct{})}
	c.waiting = append(c.waiting, w)
	c.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.waiting, w); i >= 0 {
		c.waiting = slices.Delete(c.waiting, i, i+1)
		return ctx.Err()
	}
	c.releaseLocked() // the slot was handed over while giving up: pass it on
	return ctx.Err()
}

func (c *callSlots) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.releaseLocked()
}

// releaseLocked hands the slot to the waiter served first, or frees it; the caller holds mu.
func (c *callSlots) releaseLocked() {
	if len(c.waiting) == 0 {
		c.free++
		return
	}
	next := 0
	for i, w := range c.waiting[1:] {
		if w.rank < c.waiting[next].rank {
			next = i + 1
		}
	}
	w := c.waiting[next]
	c.waiting = slices.Delete(c.waiting, next, next+1)
	close(w.ready)
}

// holdCallSlot waits for one of call's slots and returns the caller to make the call with
// and the slot's release. Without slots, or when call already holds one (a call inside a
// parallel item), it waits for nothing.
func holdCallSlot(ctx context.Context, call caller) (caller, func(), error) {
	claim := call.claim
	if claim.slots == nil || call.held {
		return call, func() {}, nil
	}
	if err := claim.slots.acquire(ctx, claim); err != nil {
		return call, nil, err
	}
	call.held = true
	return call, claim.slots.release, nil
}

package service

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"warren/agent"
	"warren/agent/research"
	"warren/service/grants"
)

// runSight is what one analyst may see of a run someone else started: a run shows whole only
// to those who may read every collection it used; to others its passages, and everything
// the model wrote from them (report, context, plan wording, questions), are withheld, and
// the state names the collections withheld. Its owner and admins see it whole.
type runSight struct {
	mu    sync.Mutex // a run's events come from its goroutines
	s     *Service
	whole bool                      // the run's analyst, or an admin
	level func(string) grants.Level // the watcher's level per collection
	docs  map[string]string         // document → collection, as looked up
	// partial: the watcher may not read every collection there is, so live text that names no
	// collection (notes, streamed report tokens, errors) may quote one they may not read.
	partial  bool
	withheld []string
}

// sightOf is this view's sight of run: whole for its owner, an admin, or outside serve.
func (s *Service) sightOf(ctx context.Context, run string) (*runSight, error) {
	if s.isAdmin() {
		return &runSight{whole: true}, nil
	}
	if j, err := s.jobs.Get(ctx, run); err == nil && j.Owner != "" && j.Owner == s.Owner {
		return &runSight{whole: true}, nil
	}
	level, err := s.levels(ctx)
	if err != nil {
		return nil, err
	}
	sight := &runSight{s: s, level: level, docs: map[string]string{}}
	cols, err := s.store.Collections(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if !level(c.Name).Allows(grants.Read) {
			sight.partial = true
		}
	}
	return sight, nil
}

// collection is the collection of a stored document ("" when it is gone).
func (v *runSight) collection(ctx context.Context, doc string) string {
	if c, ok := v.docs[doc]; ok {
		return c
	}
	d, _, _ := v.s.store.Document(ctx, doc)
	v.docs[doc] = d.Collection
	return d.Collection
}

func (v *runSight) readable(c string) bool { return c == "" || v.level(c).Allows(grants.Read) }

func (v *runSight) docReadable(ctx context.Context, doc string) bool {
	return v.readable(v.collection(ctx, doc))
}

// chunkDoc is the document of a chunk ID ("doc#0003").
func chunkDoc(id string) string {
	if i := strings.LastIndexByte(id, '#'); i > 0 {
		return id[:i]
	}
	return id
}

// unreadable lists the collections st used that the watcher may not read, sorted.
func (v *runSight) unreadable(ctx context.Context, st *research.State) []string {
	var out []string
	add := func(c string) {
		if !v.readable(c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, f := range st.Findings {
		add(f.Collection)
	}
	for _, src := range st.Sources {
		add(src.Collection)
	}
	for _, r := range st.References {
		if r.Resolved != nil {
			add(r.Resolved.Collection)
		}
		add(v.collection(ctx, chunkDoc(r.FromChunk)))
	}
	for _, e := range st.Evidence {
		add(v.collection(ctx, e.Doc))
	}
	for _, u := range st.Unread {
		add(v.collection(ctx, u.Doc))
	}
	for _, id := range st.Seen {
		add(v.collection(ctx, chunkDoc(id)))
	}
	slices.Sort(out)
	return out
}

// state is st as the watcher may see it: st itself when they may read all it used, else a
// copy with only the question, the run's progress and the passages of readable collections.
func (v *runSight) state(ctx context.Context, st *research.State) *research.State {
	if v.whole || st == nil {
		return st
	}
	missing := v.unreadable(ctx, st)
	for _, c := range missing {
		if !slices.Contains(v.withheld, c) {
			v.withheld = append(v.withheld, c)
		}
	}
	slices.Sort(v.withheld)
	if len(missing) == 0 {
		return st
	}
	out := &research.State{Question: st.Question, Language: st.Language, HITL: st.HITL,
		Iteration: st.Iteration, MaxIterations: st.MaxIterations, Termination: st.Termination,
		DedupRatio: st.DedupRatio, Coverage: st.Coverage, Replan: st.Replan, Retried: st.Retried,
		Exhausted: st.Exhausted, ElapsedNS: st.ElapsedNS, PlanRounds: st.PlanRounds, Budget: st.Budget,
		Decisions: st.Decisions, Withheld: slices.Clone(v.withheld)}
	for _, t := range st.Plan {
		out.Plan = append(out.Plan, research.Task{ID: t.ID, Status: t.Status, Added: t.Added, Passes: t.Passes, Unfinished: t.Unfinished})
	}
	for _, e := range st.Evidence {
		if v.docReadable(ctx, e.Doc) {
			out.Evidence = append(out.Evidence, e)
		}
	}
	for _, f := range st.Findings {
		if v.readable(f.Collection) {
			out.Findings = append(out.Findings, f)
		}
	}
	for _, src := range st.Sources {
		if v.readable(src.Collection) {
			out.Sources = append(out.Sources, src)
		}
	}
	for _, r := range st.References {
		if (r.Resolved == nil || v.readable(r.Resolved.Collection)) && v.docReadable(ctx, chunkDoc(r.FromChunk)) {
			out.References = append(out.References, r)
		}
	}
	for _, u := range st.Unread {
		if v.docReadable(ctx, u.Doc) {
			out.Unread = append(out.Unread, u)
		}
	}
	for _, id := range st.Seen {
		if v.docReadable(ctx, chunkDoc(id)) {
			out.Seen = append(out.Seen, id)
		}
	}
	return out
}

// checkpoint is cp as the watcher may see it: its state through state, its question or plan
// withheld with it.
func (v *runSight) checkpoint(ctx context.Context, cp agent.Checkpoint, st *research.State) (agent.Checkpoint, *research.State) {
	if v.whole {
		return cp, st
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	shown := v.state(ctx, st)
	if shown != st {
		cp.State, _ = json.Marshal(shown)
		cp.Interrupt = withheldInterrupt(cp.Interrupt)
	}
	return cp, shown
}

// withheldInterrupt keeps an interrupt's kind, so the watcher sees the run waits for its
// analyst, but not what it asks.
func withheldInterrupt(in *agent.Interrupt) *agent.Interrupt {
	if in == nil {
		return nil
	}
	return &agent.Interrupt{Kind: in.Kind, Payload: json.RawMessage(`{}`)}
}

// withheldText stands for live text kept from a watcher.
const withheldText = "(withheld: this run may quote collections you may not read)"

// event is e as the watcher may see it; false drops it (the report's streamed tokens).
func (v *runSight) event(ctx context.Context, e agent.Event) (agent.Event, bool) {
	if v.whole {
		return e, true
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	clean := true
	if len(e.State) > 0 {
		var st research.State
		if err := json.Unmarshal(e.State, &st); err != nil {
			e.State = nil
			clean = false
		} else if shown := v.state(ctx, &st); shown != &st {
			e.State, _ = json.Marshal(shown)
			clean = false
		}
	}
	if e.Intr != nil && (!clean || len(v.withheld) > 0) {
		e.Intr = withheldInterrupt(e.Intr)
	}
	if !v.partial {
		return e, true
	}
	switch e.Kind {
	case agent.EventToken:
		return e, false
	case agent.EventNodeFinished:
		// A step's words are shown with the state they describe, when it holds nothing
		// withheld; a recorded step keeps no state.
		if !clean || len(e.State) == 0 {
			e.Summary = ""
		}
	default:
		if e.Summary != "" {
			e.Summary = withheldText
		}
	}
	return e, true
}

// sink passes events to sink as the watcher may see them.
func (v *runSight) sink(ctx context.Context, sink agent.Sink) agent.Sink {
	if v.whole || sink == nil {
		return sink
	}
	return func(e agent.Event) {
		if e, ok := v.event(ctx, e); ok {
			sink(e)
		}
	}
}

// mayExport refuses the export of a run that used a collection this view's analyst may not
// read, naming it and who grants it.
func (s *Service) mayExport(ctx context.Context, run string) error {
	sight, err := s.sightOf(ctx, run)
	if err != nil || sight.whole {
		return err
	}
	cp, err := s.RunStore().Latest(ctx, run)
	if errors.Is(err, agent.ErrNoRun) {
		return nil // no run's passages are in what the front end exports
	} else if err != nil {
		return err
	}
	var st research.State
	if err := json.Unmarshal(cp.State, &st); err != nil {
		return err
	}
	sight.mu.Lock()
	missing := sight.unreadable(ctx, &st)
	sight.mu.Unlock()
	if len(missing) > 0 {
		return &AccessError{Analyst: s.Owner, Collection: missing[0], Want: grants.Read}
	}
	return nil
}

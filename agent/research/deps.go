package research

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/errgroup"

	"warren/agent"
	"warren/config"
	"warren/kb"
	"warren/llm"
	"warren/retrieval"
)

// Deps are the services the research nodes use.
type Deps struct {
	Gateway  *llm.Gateway
	Searcher *retrieval.Searcher
	Resolver *retrieval.Resolver
	Store    kb.Backend

	// Concurrency bounds the tasks and the independent model calls (per-chunk extraction,
	// gates, scoring) worked at once; 0: as many as the fast role's healthy hosts answer at
	// once (llm.Gateway.Capacity), read at each wave of tasks.
	Concurrency int
	Thresholds  config.Thresholds
	Budgets     config.Budgets

	// OnToken receives the report as it streams.
	OnToken func(text string)
	// Note reports progress inside a node ("task 2/5: following 3 references").
	Note func(text string)
	// Progress receives the finer steps inside a node as they happen: a passage read, the
	// references found in it, each one gated, resolved or left unresolved. s is the state
	// after a step that changed it (nil otherwise); it is only passed from the node's own
	// goroutine, while text alone may come from its workers.
	Progress func(text string, s *State)
}

func (d *Deps) note(text string) {
	if d.Note != nil {
		d.Note(text)
	}
	d.progress(text, nil)
}

func (d *Deps) progress(text string, s *State) {
	if d.Progress != nil {
		d.Progress(text, s)
	}
}

// structured makes a structured call in the report's language, holding one of the wave's
// call slots while it runs (see holdCallSlot).
func (d *Deps) structured(ctx context.Context, call caller, s *State, role config.RoleName, system, prompt string, out any) error {
	return d.structuredWith(ctx, call, s, role, system, prompt, nil, out)
}

// structuredWith is structured with a schema of the caller's (nil: the one out's type gives),
// for an answer whose shape depends on the call, such as one decision per listed reference.
func (d *Deps) structuredWith(ctx context.Context, call caller, s *State, role config.RoleName, system, prompt string, schema *llm.Schema, out any) error {
	call, release, err := holdCallSlot(ctx, call)
	if err != nil {
		return err
	}
	defer release()
	return d.Gateway.Structured(ctx, llm.Request{Call: call.Call, Role: role, System: system + languageRule(s), Prompt: prompt, Schema: schema}, out)
}

// searcher is the knowledge base's searcher with the query embeddings made as part of call,
// so that they are metered, recorded and replayed with the run's other model calls.
func (d *Deps) searcher(call caller) *retrieval.Searcher {
	return d.Searcher.EmbeddingWith(d.Gateway.EmbedFor(call.Call))
}

// resolver is the reference resolver with its searches' query embeddings made as part of
// call (see searcher).
func (d *Deps) resolver(call caller) *retrieval.Resolver {
	r := *d.Resolver
	r.Searcher = r.Searcher.EmbeddingWith(d.Gateway.EmbedFor(call.Call))
	return &r
}

func languageRule(s *State) string {
	if s.Language == "de" {
		return "\nWrite every text field in German, keeping the documents' terminology."
	}
	return "\nWrite every text field in English, keeping the documents' terminology."
}

// parallel runs fn for indexes 0..n-1 with at most limit at once, or, when call has a wave's
// call slots, with every item waiting for one of them (see holdCallSlot) and making its calls
// in it: the slots bound the calls, and a task's items queued together are served before a
// later task's. Results go into slots the caller owns by index, so the merge order is
// deterministic whatever the timing. The first error stops the others and is returned; a budget error wins over the
// rest, since it changes what the run does next, and any other error over a cancellation.
func parallel(ctx context.Context, call caller, n, limit int, fn func(ctx context.Context, call caller, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	if call.claim.slots == nil || call.held {
		g.SetLimit(max(limit, 1))
	}
	var mu sync.Mutex
	var budget, other error // the first budget error, the first error that is no cancellation
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil // stopped while this item waited for its turn
			}
			call, release, err := holdCallSlot(gctx, call)
			if err == nil {
				// A panic here is out of the runner's reach: it fails the node instead.
				err = agent.Catch(func() error { return fn(gctx, call, i) })
				release()
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
			case errors.Is(err, llm.ErrBudgetExhausted):
				budget = cmp.Or(budget, err)
			case !errors.Is(err, context.Canceled):
				other = cmp.Or(other, err)
			}
			return err
		})
	}
	first := g.Wait()
	if err := cmp.Or(budget, other, first); err != nil {
		return err
	}
	return ctx.Err() // cancelled by the caller: the results may be incomplete
}

// budgetSpent is the budget error of call's run when its budget is spent: a step that hides
// its calls' errors (the resolver's searches) is stopped by it all the same.
func budgetSpent(call caller) error {
	r := call.Run
	if r == nil {
		return nil
	}
	b, u := r.Budget(), r.Usage()
	switch {
	case b.Calls > 0 && u.Calls >= b.Calls:
		return &llm.BudgetError{Resource: "calls", Limit: b.Calls, Used: u.Calls}
	case b.Tokens > 0 && u.Tokens() >= b.Tokens:
		return &llm.BudgetError{Resource: "tokens", Limit: b.Tokens, Used: u.Tokens()}
	}
	return nil
}

// approxTokens estimates the tokens of a text for the reference budget.
func approxTokens(text string) int { return len(text)/4 + 1 }

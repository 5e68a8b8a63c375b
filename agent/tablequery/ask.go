package tablequery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"warren/llm"
)

// MaxCalls is the most model exchanges one question may spend, the gateway's repair rounds
// for invalid JSON included.
const MaxCalls = 6

// Rounds per recovery tier.
const (
	fixRounds   = 2 // tier 1
	freshRounds = 2 // tier 2
)

// Tiers of the recovery.
const (
	TierWrite    = 0 // the model writes an expression
	TierFix      = 1 // the model fixes its expression, told the error
	TierFresh    = 2 // the model starts over, told what failed
	TierFallback = 3 // a word search built without the model
)

// Answer is the outcome of a question: an expression that compiles against the schema (run it
// with [Compile] and [Run]), and how it was reached.
type Answer struct {
	Expression  string
	Explanation string // the model's one-sentence reading, or the fallback's rule
	// Fallback is true when no model expression compiled and Expression is the word search of
	// [Fallback]; Note then says why and what it searches for.
	Fallback bool
	Note     string
	// ModelError is why the model could not be asked any further, when that ended the
	// recovery: llm.ErrUnreachable, llm.ErrModelMissing, llm.ErrBudgetExhausted and other
	// gateway errors (match with errors.Is). It is nil when every tier ran its course.
	ModelError error
	Attempts   []Attempt // every expression tried, in order, the final one included
	Calls      int       // model exchanges spent (at most MaxCalls)
	// Ledger holds the exchanges of this question. Ask meters them under a run of its own,
	// so a caller that keeps a run's ledger should record these entries there.
	Ledger []llm.LedgerEntry
}

// Attempt is one expression tried; Error is nil for the one that compiled.
type Attempt struct {
	Tier       int
	Expression string
	Error      *QueryError
}

// proposal is the model's structured answer.
type proposal struct {
	Expression  string `json:"expression" desc:"one boolean expression in the expr language over the table's fields" schema:"minLength=1"`
	Explanation string `json:"explanation" desc:"one sentence: which rows the expression selects"`
}

// Ask turns a plain-language question into a filter expression over the schema, in recovery
// tiers (see the package doc), and returns an expression that compiles: the model's, or the
// labelled fallback of [Fallback].
//
// Model failures do not fail Ask: a nil gateway, an unreachable host, a missing model or a
// spent budget end the model tiers and the answer falls back, with the error in
// Answer.ModelError (typed, for errors.Is) so the caller can show its fix. Ask returns an
// error only when the schema is unusable or ctx ends; in the second case with the answer so
// far, whose Ledger holds the calls already spent.
//
// call is the caller's: the calls run under a run of Ask's own with a budget of [MaxCalls]
// exchanges, lowered to what remains of the calls and tokens of call.Run; that run is not
// charged (see Answer.Ledger). call.Journal replays and records answers. The zero Call asks
// outside any run.
func Ask(ctx context.Context, g *llm.Gateway, call llm.Call, schema Schema, question string) (*Answer, error) {
	return AskOver(ctx, g, call, schema, nil, question)
}

// AskOver is [Ask] for a question about the given rows: a model expression that compiles is
// also run over them, and one that fails on every row (an [Other] error of [Run], such as
// int() of a name) is an error the tiers recover from like a compile error, within the same
// [MaxCalls]. Without rows it is Ask.
func AskOver(ctx context.Context, g *llm.Gateway, call llm.Call, schema Schema, rows []map[string]any, question string) (*Answer, error) {
	if err := schema.Validate(); err != nil {
		return nil, fmt.Errorf("couldn't ask about the table: %w", err)
	}
	question = strings.TrimSpace(question)
	ans := &Answer{}
	var mu sync.Mutex
	budget, refused := budgetFor(call.Run)
	run := llm.NewRun("tablequery", budget, func(e llm.LedgerEntry) {
		mu.Lock()
		defer mu.Unlock()
		ans.Ledger = append(ans.Ledger, e)
	})
	call.Run = run
	finish := func() *Answer {
		ans.Calls = run.Usage().Calls
		return ans
	}

	if refused != nil {
		ans.ModelError = refused
	} else if g == nil {
		ans.ModelError = errNoGateway
	} else if question == "" {
		ans.Note = "the question is empty"
	} else {
		done, err := runTiers(ctx, g, call, schema, rows, question, ans)
		if err != nil {
			return finish(), err // with the calls spent so far, for the caller's ledger
		}
		if done {
			return finish(), nil
		}
	}
	expression, note := Fallback(schema, question)
	if _, err := Compile(schema, expression); err != nil {
		// Fallback only writes the documented grammar over a validated schema.
		return nil, fmt.Errorf("couldn't build the fallback filter %q: %w", expression, err)
	}
	ans.Expression, ans.Fallback, ans.Explanation = expression, true, note
	var spent *llm.BudgetError
	switch {
	case errors.As(ans.ModelError, &spent) && spent.Resource == "calls" && spent.Limit == MaxCalls:
		ans.Note = fmt.Sprintf("%s — the %d model calls a question may use are spent", note, MaxCalls)
	case ans.ModelError != nil:
		ans.Note = fmt.Sprintf("%s — the model could not be asked: %v", note, ans.ModelError)
	case ans.Note != "":
		ans.Note = fmt.Sprintf("%s — %s", note, ans.Note)
	default:
		ans.Note = fmt.Sprintf("%s — no expression from the model compiled after %d attempt(s)", note, len(ans.Attempts))
	}
	ans.Attempts = append(ans.Attempts, Attempt{Tier: TierFallback, Expression: expression})
	return finish(), nil
}

// errNoGateway is the ModelError of an Ask without a gateway: warren runs without models.
var errNoGateway = errors.New("no model is configured for table questions")

// budgetFor is Ask's budget: MaxCalls, or less when the caller's run has less left. A non-nil
// error means the caller's run has nothing left.
func budgetFor(parent *llm.Run) (llm.Budget, error) {
	b := llm.Budget{Calls: MaxCalls}
	if parent == nil {
		return b, nil
	}
	limit, used := parent.Budget(), parent.Usage()
	if limit.Calls > 0 {
		left := limit.Calls - used.Calls
		if left <= 0 {
			return b, &llm.BudgetError{Resource: "calls", Limit: limit.Calls, Used: used.Calls}
		}
		b.Calls = min(b.Calls, left)
	}
	if limit.Tokens > 0 {
		left := limit.Tokens - used.Tokens()
		if left <= 0 {
			return b, &llm.BudgetError{Resource: "tokens", Limit: limit.Tokens, Used: used.Tokens()}
		}
		b.Tokens = left
	}
	return b, nil
}

// runTiers runs tiers 0 to 2. It reports whether an expression compiled (then ans holds it); an
// error only when ctx ended. A model failure that ends the tiers is left in ans.ModelError.
func runTiers(ctx context.Context, g *llm.Gateway, call llm.Call, schema Schema, rows []map[string]any, question string, ans *Answer) (bool, error) {
	// propose makes one model call and compiles its answer. It returns false with a nil error
	// when the tiers must stop (ans.ModelError says why).
	propose := func(tier int, req llm.Request) (p proposal, compiled, goOn bool, err error) {
		req.Call = call.At(fmt.Sprintf("tablequery.tier%d", tier))
		callErr := g.Structured(ctx, req, &p)
		switch {
		case callErr == nil:
		case ctx.Err() != nil:
			return p, false, false, fmt.Errorf("couldn't answer the question: %w", ctx.Err())
		case errors.Is(callErr, llm.ErrInvalidOutput):
			// The gateway already spent its repair rounds; this tier's round is lost.
			ans.Attempts = append(ans.Attempts, Attempt{Tier: tier, Error: &QueryError{Kind: Other,
				Message: "the model's answer was not the requested JSON: " + callErr.Error()}})
			return p, false, true, nil
		default:
			ans.ModelError = callErr
			return p, false, false, nil
		}
		p.Expression = Clean(p.Expression)
		a := Attempt{Tier: tier, Expression: p.Expression}
		program, err := Compile(schema, p.Expression)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				qe = &QueryError{Kind: Other, Message: err.Error()}
			}
			a.Error = qe
		} else if rows != nil {
			if _, err := Run(program, rows); err != nil {
				a.Error = &QueryError{Kind: Runtime, Message: err.Error()}
			}
		}
		ans.Attempts = append(ans.Attempts, a)
		if a.Error == nil {
			ans.Expression, ans.Explanation = p.Expression, strings.TrimSpace(p.Explanation)
			return p, true, false, nil
		}
		return p, false, true, nil
	}

	// Tier 0: write.
	first := writePrompt(schema, question)
	p, ok, goOn, err := propose(TierWrite, llm.Request{System: systemWrite, Prompt: first})
	if err != nil || ok || !goOn {
		return ok, err
	}

	// Tier 1: targeted fixes in the same conversation, while there is an expression to fix.
	history := []llm.Message{{Role: "user", Content: first}, {Role: "assistant", Content: asJSON(p)}}
	for range fixRounds {
		last := ans.Attempts[len(ans.Attempts)-1]
		if last.Expression == "" {
			break
		}
		prompt := fixPrompt(schema, question, last)
		p, ok, goOn, err = propose(TierFix, llm.Request{System: systemWrite, History: history, Prompt: prompt})
		if err != nil || ok || !goOn {
			return ok, err
		}
		history = append(history, llm.Message{Role: "user", Content: prompt}, llm.Message{Role: "assistant", Content: asJSON(p)})
	}

	// Tier 2: start over, with the failures as what not to do.
	for range freshRounds {
		rejected := append([]Attempt(nil), ans.Attempts...)
		_, ok, goOn, err = propose(TierFresh, llm.Request{System: systemFresh, Prompt: freshPrompt(schema, question, rejected)})
		if err != nil || ok || !goOn {
			return ok, err
		}
	}
	return false, nil
}

func asJSON(p proposal) string {
	b, _ := json.Marshal(p)
	return string(b)
}

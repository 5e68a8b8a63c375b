package llm

import (
	"fmt"
	"sync"
	"time"
)

// Budget bounds one run's use of the models. Zero means unlimited.
type Budget struct {
	Calls  int
	Tokens int
}

// LedgerEntry records one model exchange: a request that produced (or failed to produce) one
// answer. Transport retries of the same exchange are counted in Attempts, not as new entries.
type LedgerEntry struct {
	Time             time.Time     `json:"time"`
	Run              string        `json:"run"`
	Node             string        `json:"node"`
	Role             string        `json:"role"`
	Model            string        `json:"model"`
	Host             string        `json:"host"`
	Kind             string        `json:"kind"` // text, structured, repair, length_retry, embed
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Duration         time.Duration `json:"duration_ns"`
	Attempts         int           `json:"attempts"`
	Outcome          string        `json:"outcome"` // ok, invalid, truncated, error
	Error            string        `json:"error,omitempty"`
	Key              string        `json:"key"` // identifies the request: equal keys asked the same thing
}

// Usage is what a run has spent so far.
type Usage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Tokens is prompt plus completion tokens.
func (u Usage) Tokens() int { return u.PromptTokens + u.CompletionTokens }

// Run meters one run: it enforces the budget before each exchange is sent and hands every
// ledger entry to the sink. It is safe for concurrent use by parallel nodes.
type Run struct {
	ID     string
	budget Budget
	sink   func(LedgerEntry)

	mu             sync.Mutex
	used           Usage
	reservedTokens int // upper bounds of the exchanges in flight

	recordSend func() error // see OnSend
}

// OnSend makes the run call record once for every exchange it has counted against the budget
// and is about to send; an error refuses the exchange. A run kept in a store records the
// call there, so that a process killed with calls in flight, whose answers never reach the
// ledger, still has them counted when the run resumes (Restore). Set it before the first call.
func (r *Run) OnSend(record func() error) { r.recordSend = record }

// Restore sets what a resumed run had already spent, from its ledger.
func (r *Run) Restore(u Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.used = u
}

// NewRun starts metering a run. sink may be nil; it is called synchronously after each
// exchange, so it should be quick (hand off to a channel for slow consumers).
func NewRun(id string, budget Budget, sink func(LedgerEntry)) *Run {
	return &Run{ID: id, budget: budget, sink: sink}
}

// Usage returns what the run has spent.
func (r *Run) Usage() Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

// Budget returns the run's limits.
func (r *Run) Budget() Budget { return r.budget }

// minAnswerTokens is the smallest completion allowance worth sending a call for.
const minAnswerTokens = 32

// defaultAllowance bounds the completion of a call under a token budget when the role sets no
// num_predict, so that one call does not reserve the whole budget and block parallel calls.
const defaultAllowance = 4096

// reservation is what reserve set aside for one exchange; settle gives it back.
type reservation struct {
	tokens    int // prompt estimate plus completion allowance, 0 without a token budget
	allowance int // the num_predict to send, 0 for no budget-imposed limit
}

// reserve claims one call and, under a token budget, a token allowance before an exchange is
// sent. wantPredict is the role's num_predict (0: none); completion false means the exchange
// produces no completion tokens (embeddings).
func (r *Run) reserve(promptEstimate, wantPredict int, completion bool) (reservation, error) {
	res, err := r.claim(promptEstimate, wantPredict, completion)
	if err != nil || r.recordSend == nil {
		return res, err
	}
	if err := r.recordSend(); err != nil {
		r.mu.Lock()
		r.used.Calls--
		r.reservedTokens -= res.tokens
		r.mu.Unlock()
		return reservation{}, fmt.Errorf("couldn't record the call before sending it: %w", err)
	}
	return res, nil
}

// claim is reserve's bookkeeping, under the lock.
func (r *Run) claim(promptEstimate, wantPredict int, completion bool) (reservation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.budget.Calls > 0 && r.used.Calls >= r.budget.Calls {
		return reservation{}, &BudgetError{Resource: "calls", Limit: r.budget.Calls, Used: r.used.Calls}
	}
	var res reservation
	if r.budget.Tokens > 0 {
		left := r.budget.Tokens - r.used.Tokens() - r.reservedTokens - promptEstimate
		need := 1
		if completion {
			need = minAnswerTokens
		}
		if left < need {
			return reservation{}, &BudgetError{Resource: "tokens", Limit: r.budget.Tokens, Used: r.used.Tokens(), Reserved: r.reservedTokens}
		}
		if completion {
			want := wantPredict
			if want <= 0 {
				want = defaultAllowance
			}
			res.allowance = min(left, want)
		}
		res.tokens = promptEstimate + res.allowance
		r.reservedTokens += res.tokens
	}
	r.used.Calls++
	return res, nil
}

// settle replaces a reservation by what the exchange really used and records it.
func (r *Run) settle(res reservation, e LedgerEntry) {
	r.mu.Lock()
	r.reservedTokens -= res.tokens
	r.used.PromptTokens += e.PromptTokens
	r.used.CompletionTokens += e.CompletionTokens
	sink := r.sink
	r.mu.Unlock()
	if sink != nil {
		e.Run = r.ID
		sink(e)
	}
}

// estimateTokens errs high: about three bytes a token (German and JSON tokenise densely) plus
// the chat template's overhead per message.
func estimateTokens(texts ...string) int {
	n := 0
	for _, t := range texts {
		n += len(t)/3 + 8
	}
	return n
}

// Call is what a model call is made for: the run whose budget it spends and whose ledger
// records it, the graph node making it, and the journal that replays its answer when the run
// is resumed. Every request to the gateway carries one (Request.Call, Embed's call), so the
// run of a call is seen where the call is made. The zero Call is a call outside any run: not
// metered, not recorded, not replayed.
type Call struct {
	// Run meters the call against its budget and records it in its ledger; nil: neither.
	Run *Run
	// Node names the graph node making the call, for the ledger.
	Node string
	// Journal replays the answer of a call made before (by a run resumed after a crash) and
	// records new answers; nil: none.
	Journal Journal
}

// At is the same call made by another node.
func (c Call) At(node string) Call {
	c.Node = node
	return c
}

package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors for the kinds a caller acts on; match them with errors.Is. The concrete
// errors below carry the details and a message that says how to fix the problem.
var (
	ErrUnreachable     = errors.New("ollama unreachable")
	ErrModelMissing    = errors.New("model missing")
	ErrInvalidOutput   = errors.New("invalid model output")
	ErrBudgetExhausted = errors.New("budget exhausted")
)

// UnreachableError means no answer came from the host after every retry.
type UnreachableError struct {
	Host     string
	Attempts int
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("Ollama is not reachable at %s after %d attempt(s) (%v): start it with `ollama serve`, or point warren at the right host with --ollama-host or OLLAMA_HOST",
		e.Host, e.Attempts, rootCause(e.Err))
}

func (e *UnreachableError) Unwrap() error        { return e.Err }
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// ModelMissingError means the host answered but does not have the model.
type ModelMissingError struct {
	Model string
	Host  string
}

func (e *ModelMissingError) Error() string {
	return fmt.Sprintf("model %q is not available on %s: run `ollama pull %s` there, or choose another model in warren.toml",
		e.Model, e.Host, e.Model)
}

func (e *ModelMissingError) Is(target error) bool { return target == ErrModelMissing }

// InvalidOutputError means the model's answer could not be turned into the requested shape,
// even after the repair tier. Raw keeps the last answer so nothing the model said is lost.
type InvalidOutputError struct {
	Model     string
	Problems  []string
	Raw       string
	Truncated bool
	Rounds    int // exchanges spent on this answer
}

func (e *InvalidOutputError) Error() string {
	what := "an answer that does not match the requested JSON shape"
	if e.Truncated {
		what = "an answer cut off at its length limit (raise num_predict for this role)"
	}
	problems := strings.Join(e.Problems, "; ")
	if len(problems) > 300 {
		problems = problems[:300] + "…"
	}
	return fmt.Sprintf("model %s gave %s after %d round(s): %s", e.Model, what, e.Rounds, problems)
}

func (e *InvalidOutputError) Is(target error) bool { return target == ErrInvalidOutput }

// BudgetError means a call was refused before it was sent because the run's budget is spent.
type BudgetError struct {
	Resource string // "calls" or "tokens"
	Limit    int
	Used     int
	Reserved int // tokens set aside for calls still in flight
}

func (e *BudgetError) Error() string {
	key := "budgets.tokens"
	if e.Resource == "calls" {
		key = "budgets.model_calls"
	}
	inFlight := ""
	if e.Reserved > 0 {
		inFlight = fmt.Sprintf(" (and %d reserved by calls in flight)", e.Reserved)
	}
	return fmt.Sprintf("run budget exhausted: %d of %d %s used%s; raise %s to go on", e.Used, e.Limit, e.Resource, inFlight, key)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExhausted }

// TimeoutError means one request took longer than ollama.timeout. It is not retried: the same
// request would most likely take as long again.
type TimeoutError struct {
	Model   string
	Host    string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("model %s on %s took longer than %s to answer; raise ollama.timeout, lower num_predict, or use a smaller model",
		e.Model, e.Host, e.Timeout)
}

// ServerError means the host kept answering with an error status after every retry, or with a
// status that retrying cannot fix.
type ServerError struct {
	Host     string
	Status   int
	Message  string
	Attempts int
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("Ollama at %s answered %d (%s) after %d attempt(s); see the Ollama server log",
		e.Host, e.Status, e.Message, e.Attempts)
}

func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

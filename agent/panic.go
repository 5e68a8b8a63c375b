package agent

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrPanicked matches, with errors.Is, every *PanicError: a bug, not a failure of the model,
// the knowledge base or the analyst's input.
var ErrPanicked = errors.New("internal error")

// PanicError is a panic caught in a node or a job and turned into an error, so that it ends
// one run instead of the process. Its message names the value, never the stack: the stack is
// for the log.
type PanicError struct {
	Node  string // the node that panicked, when a node did
	Value any    // what was passed to panic
	Stack []byte // the goroutine's stack where it panicked
}

// NewPanicError records a recovered panic value with the stack of the goroutine that is
// panicking; call it from the deferred function that recovered.
func NewPanicError(v any) *PanicError {
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Error names the step and the panic's value, in one line for the analyst.
func (e *PanicError) Error() string {
	if e.Node != "" {
		return fmt.Sprintf("internal error in step %s (panic: %v)", e.Node, e.Value)
	}
	return fmt.Sprintf("internal error (panic: %v)", e.Value)
}

// Is makes errors.Is(err, ErrPanicked) hold.
func (e *PanicError) Is(target error) bool { return target == ErrPanicked }

// Recover, deferred, turns a panic of the function deferring it into a *PanicError in *err:
//
//	defer agent.Recover(&err)
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = NewPanicError(v)
	}
}

// Catch runs fn; a panic in it comes back as a *PanicError. Goroutines a node starts (an
// errgroup's, say) use it: the runner recovers only the node's own goroutine.
func Catch(fn func() error) (err error) {
	defer Recover(&err)
	return fn()
}

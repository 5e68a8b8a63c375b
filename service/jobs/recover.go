package jobs

import (
	"errors"
	"fmt"
	"log/slog"

	"warren/agent"
)

// One process serves many analysts: a panic in a job, a connection's handler or any goroutine
// of the server must end that one piece of work, logged with its stack, and leave the process
// running. The helpers here recover and log; the analyst gets one line, never the stack.

// panicFailure is a job's panic in the words its analyst sees.
type panicFailure struct {
	id  string
	err error
}

func (f *panicFailure) Error() string {
	return fmt.Sprintf("job %s failed: %v; it was logged and the server goes on", f.id, f.err)
}

func (f *panicFailure) Unwrap() error { return f.err }

// PanicFailure words an error a job ended on for its analyst: a panic (an error matching
// agent.ErrPanicked) becomes "job ID failed: internal error (panic: …); it was logged and the
// server goes on", still matching agent.ErrPanicked and *agent.PanicError; any other error,
// and nil, is returned as it is.
func PanicFailure(id string, err error) error {
	if !errors.Is(err, agent.ErrPanicked) {
		return err
	}
	if already := (*panicFailure)(nil); errors.As(err, &already) {
		return err
	}
	return &panicFailure{id: id, err: err}
}

// LogPanic records a recovered panic on log at error level, with its value and stack and the
// given attributes (key, value pairs); a nil log discards it.
func LogPanic(log *slog.Logger, msg string, pe *agent.PanicError, args ...any) {
	if log == nil || pe == nil {
		return
	}
	args = append(args, "panic", fmt.Sprint(pe.Value))
	if pe.Node != "" {
		args = append(args, "node", pe.Node)
	}
	log.Error(msg, append(args, "stack", string(pe.Stack))...)
}

// Recover, deferred, recovers a panic of the function deferring it and logs it on log with
// msg, args and the stack; the function then returns normally (with its results as they
// were). A goroutine of a server defers it first, so that a bug ends the goroutine, not the
// process:
//
//	go func() {
//		defer jobs.Recover(log, "the change feed's reader panicked", "analyst", name)
//		…
//	}()
func Recover(log *slog.Logger, msg string, args ...any) {
	if v := recover(); v != nil {
		LogPanic(log, msg, agent.NewPanicError(v), args...)
	}
}

// Guard runs fn; a panic in it is logged on log (msg, args, value and stack) and returned as a
// *agent.PanicError, so that the caller can clean up and tell the analyst. Without a panic it
// returns nil.
func Guard(log *slog.Logger, msg string, fn func(), args ...any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := agent.NewPanicError(v)
			LogPanic(log, msg, pe, args...)
			err = pe
		}
	}()
	fn()
	return nil
}

package jobs

import (
	"sync"
	"syscall"
)

// syscallZero is the signal that only asks whether a process exists.
var syscallZero = syscall.Signal(0)

// Subscription is one subscriber's view of a job: its events in order. Pushing never blocks the
// job; a slow subscriber only lets events pile up in its own queue.
type Subscription struct {
	mu     sync.Mutex
	items  []Event
	notify chan struct{}
	closed bool
	detach func()
}

func newSubscription() *Subscription { return &Subscription{notify: make(chan struct{}, 1)} }

func (s *Subscription) push(e Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.items = append(s.items, e)
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Next blocks until events arrive and returns all of them; more is false once the job ended or
// the subscription was detached and every event was read.
func (s *Subscription) Next() (events []Event, more bool) {
	for {
		s.mu.Lock()
		items, closed := s.items, s.closed
		s.items = nil
		s.mu.Unlock()
		if len(items) > 0 || closed {
			return items, !closed
		}
		<-s.notify
	}
}

// Detach stops the events; the job goes on.
func (s *Subscription) Detach() { s.detach() }

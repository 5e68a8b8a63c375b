package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"warren/service"
)

// queue carries items from another goroutine into the program: a job's events, or other
// analysts' changes. Push never blocks the producer; the program drains whatever has arrived in
// one message, so a burst costs one update.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	notify chan struct{}
	closed bool
}

func newQueue[T any]() *queue[T] { return &queue[T]{notify: make(chan struct{}, 1)} }

// Push adds an item; safe from any goroutine.
func (q *queue[T]) Push(item T) {
	q.mu.Lock()
	q.items = append(q.items, item)
	q.mu.Unlock()
	q.poke()
}

// Close ends the queue after the items already pushed.
func (q *queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
}

func (q *queue[T]) poke() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// drained is one batch taken from a queue; more reports whether the queue is still open.
type drained[T any] struct {
	queue *queue[T]
	items []T
	more  bool
}

// wait is the command re-issued after each batch.
func (q *queue[T]) wait() tea.Cmd {
	return func() tea.Msg {
		for {
			q.mu.Lock()
			items, closed := q.items, q.closed
			q.items = nil
			q.mu.Unlock()
			if len(items) > 0 || closed {
				return drained[T]{queue: q, items: items, more: !closed}
			}
			<-q.notify
		}
	}
}

type (
	eventQueue  = queue[service.RunEvent]
	eventsMsg   = drained[service.RunEvent]
	changeQueue = queue[service.Change]
	changesMsg  = drained[service.Change]
)

func newEventQueue() *eventQueue { return newQueue[service.RunEvent]() }

package component

import (
	"sync"

	tea "charm.land/bubbletea/v2"
)

// Queue carries items from another goroutine into the program: a job's events, or other
// analysts' changes. Push never blocks the producer; the program drains whatever has arrived in
// one message, so a burst costs one update.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	notify chan struct{}
	closed bool
}

// NewQueue is an empty, open queue.
func NewQueue[T any]() *Queue[T] { return &Queue[T]{notify: make(chan struct{}, 1)} }

// Push adds an item; safe from any goroutine.
func (q *Queue[T]) Push(item T) {
	q.mu.Lock()
	q.items = append(q.items, item)
	q.mu.Unlock()
	q.poke()
}

// Close ends the queue after the items already pushed.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
}

func (q *Queue[T]) poke() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// Drained is one batch taken from a queue; More reports whether the queue is still open.
type Drained[T any] struct {
	Queue *Queue[T]
	Items []T
	More  bool
}

// Wait is the command re-issued after each batch.
func (q *Queue[T]) Wait() tea.Cmd {
	return func() tea.Msg {
		for {
			q.mu.Lock()
			items, closed := q.items, q.closed
			q.items = nil
			q.mu.Unlock()
			if len(items) > 0 || closed {
				return Drained[T]{Queue: q, Items: items, More: !closed}
			}
			<-q.notify
		}
	}
}

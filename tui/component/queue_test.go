package component

import (
	"slices"
	"testing"
)

// A queue hands over what was pushed in one batch, and says when it is closed.
func TestQueueDrainsInBatches(t *testing.T) {
	q := NewQueue[int]()
	q.Push(1)
	q.Push(2)
	d, ok := q.Wait()().(Drained[int])
	if !ok || !slices.Equal(d.Items, []int{1, 2}) || !d.More || d.Queue != q {
		t.Fatalf("first batch %+v", d)
	}
	q.Push(3)
	q.Close()
	d = q.Wait()().(Drained[int])
	if !slices.Equal(d.Items, []int{3}) || d.More {
		t.Fatalf("last batch %+v", d)
	}
}

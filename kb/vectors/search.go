package vectors

import (
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"
	"warren/kb/chunk"
)

// search returns the k rows nearest to q (normalised) as hits, and the collection's vector
// length (0 when it holds no live vector). It uses the graph over the rows it covers and
// scans the rest; exact scans everything.
func (c *vectorCollection) search(q []float32, k int, exact bool) ([]chunk.Hit, int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.live == 0 {
		return nil, 0
	}
	if len(q) != c.dim {
		return nil, c.dim
	}
	var best topK
	best.k = k
	from := 0
	if g := c.graph; g != nil && !exact && g.Len() > 0 {
		for _, r := range g.Search(c.data, q, k, max(indexEf, 2*k), func(id uint32) bool { return c.dead[id] }) {
			best.offer(r.Score, r.ID)
		}
		from = g.Len()
		if c.store != nil {
			c.store.indexQueries.Add(1)
		}
	} else if c.store != nil {
		c.store.scanQueries.Add(1)
	}
	for _, s := range c.scan(q, from, len(c.ids), k) {
		best.offer(s.score, s.row)
	}
	out := best.sorted()
	hits := make([]chunk.Hit, len(out))
	for i, s := range out {
		hits[i] = chunk.Hit{ChunkID: c.ids[s.row], Score: float64(s.score)}
	}
	return hits, c.dim
}

// scanParallelRows is the size from which an exact scan is split across the processors.
const scanParallelRows = 20_000

// scan compares q with the live rows from … to-1 and keeps the k best. Called with c.mu
// held.
func (c *vectorCollection) scan(q []float32, from, to, k int) []scored {
	parts := 1
	if to-from >= scanParallelRows {
		parts = runtime.GOMAXPROCS(0)
	}
	results := make([][]scored, parts)
	var wg sync.WaitGroup
	step := (to - from + parts - 1) / max(parts, 1)
	for p := range parts {
		lo, hi := from+p*step, min(to, from+(p+1)*step)
		wg.Go(func() {
			var best topK
			best.k = k
			dim := c.dim
			for r := lo; r < hi; r++ {
				if c.dead[r] {
					continue
				}
				best.offer(vek32.Dot(q, c.data[r*dim:(r+1)*dim]), uint32(r))
			}
			results[p] = best.items
		})
	}
	wg.Wait()
	var all []scored
	for _, r := range results {
		all = append(all, r...)
	}
	return all
}

type scored struct {
	score float32
	row   uint32
}

// topK keeps the k best scores seen, in a min-heap on score.
type topK struct {
	k     int
	items []scored
}

func (t *topK) offer(score float32, row uint32) {
	if len(t.items) < t.k {
		t.items = append(t.items, scored{score, row})
		for i := len(t.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.less(i, p) {
				break
			}
			t.items[i], t.items[p] = t.items[p], t.items[i]
			i = p
		}
		return
	}
	if t.k == 0 || !(score > t.items[0].score || score == t.items[0].score && row < t.items[0].row) {
		return
	}
	t.items[0] = scored{score, row}
	t.down()
}

// down moves the top item down to its place.
func (t *topK) down() {
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.items) && t.less(l, m) {
			m = l
		}
		if r < len(t.items) && t.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		t.items[i], t.items[m] = t.items[m], t.items[i]
		i = m
	}
}

// less orders the heap: the worst item (lowest score, then highest row) on top.
func (t *topK) less(i, j int) bool {
	a, b := t.items[i], t.items[j]
	return a.score < b.score || a.score == b.score && a.row > b.row
}

// sorted empties the heap, best first.
func (t *topK) sorted() []scored {
	out := make([]scored, len(t.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = t.items[0]
		last := len(t.items) - 1
		t.items[0] = t.items[last]
		t.items = t.items[:last]
		t.down()
	}
	return out
}

// similarities records in out the similarity of q (normalised) to each of the chunks ids that
// the collection holds live, unless q has another length than its vectors.
func (c *vectorCollection) similarities(q []float32, ids []string, out map[string]float64) {
	c.mu.RLock()
	if c.rowOf == nil { // the row index is built under the write lock, once
		c.mu.RUnlock()
		c.mu.Lock()
		c.rowIndex()
		c.mu.Unlock()
		c.mu.RLock()
	}
	defer c.mu.RUnlock()
	if len(q) != c.dim {
		return
	}
	rowOf := c.rowOf
	if rowOf == nil { // compacted in between: find the rows without keeping an index
		rowOf = make(map[string]uint32, c.live)
		for r, id := range c.ids {
			if !c.dead[r] {
				rowOf[id] = uint32(r)
			}
		}
	}
	for _, id := range ids {
		if r, ok := rowOf[id]; ok {
			out[id] = float64(vek32.Dot(q, c.data[int(r)*c.dim:(int(r)+1)*c.dim]))
		}
	}
}

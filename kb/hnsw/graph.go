// Package hnsw is an approximate nearest-neighbour index over unit vectors: a hierarchical
// navigable small world graph (Malkov and Yashunin, "Efficient and robust approximate nearest
// neighbor search using Hierarchical Navigable Small World graphs", 2016). Nodes are the rows
// of a flat float32 slab that the caller owns and passes to each call, so the graph holds only
// row numbers, and its links live in flat uint32 arrays that are written and read as they are
// (see file.go).
//
// Distance is 1 − dot product: the vectors must be normalised. Neighbours are chosen with the
// paper's heuristic (algorithm 4), which keeps clustered data from falling apart into
// islands; layer 0 keeps twice as many links as the layers above.
package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Parameters shape a graph. Zero fields take the defaults.
type Parameters struct {
	M              int // links per node above layer 0 (layer 0 keeps 2·M); default 16
	EfConstruction int // candidates considered when linking a new node; default 128
	Seed           uint64
}

const maxLevels = 16

// Graph is the index. Searches may run concurrently with each other; Add must not run
// concurrently with anything (Build inserts in parallel itself, with per-node locks).
type Graph struct {
	m, m0, efc int
	dim        int

	levels []uint8    // each node's top layer
	links0 []uint32   // layer 0: per node, a count then m0 slots
	upper  [][]uint32 // layers 1..level: per layer, a count then m slots; nil at level 0

	entry    uint32
	maxLevel int
	rng      *rand.Rand

	parallel bool // Build is inserting from several goroutines: links are read under locks
	mu       sync.Mutex
	stripes  [256]sync.Mutex

	visited sync.Pool
}

// New returns an empty graph for vectors of dim dimensions.
func New(dim int, p Parameters) *Graph {
	if p.M <= 0 {
		p.M = 16
	}
	if p.EfConstruction <= 0 {
		p.EfConstruction = 128
	}
	return &Graph{m: p.M, m0: 2 * p.M, efc: p.EfConstruction, dim: dim, rng: rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15))}
}

// Len is the number of nodes (rows 0 … Len-1).
func (g *Graph) Len() int { return len(g.levels) }

// Dim is the length of the vectors the graph was built for.
func (g *Graph) Dim() int { return g.dim }

func (g *Graph) vec(data []float32, id uint32) []float32 {
	o := int(id) * g.dim
	return data[o : o+g.dim : o+g.dim]
}

func distance(a, b []float32) float32 { return 1 - vek32.Dot(a, b) }

func (g *Graph) randomLevel() uint8 {
	ml := 1 / math.Log(float64(g.m))
	l := int(-math.Log(1-g.rng.Float64()) * ml)
	return uint8(min(l, maxLevels-1))
}

// grow makes room for the nodes up to n-1, drawing their levels.
func (g *Graph) grow(n int) {
	for len(g.levels) < n {
		l := g.randomLevel()
		g.levels = append(g.levels, l)
		g.links0 = append(g.links0, make([]uint32, g.m0+1)...)
		var up []uint32
		if l > 0 {
			up = make([]uint32, int(l)*(g.m+1))
		}
		g.upper = append(g.upper, up)
	}
}

// links returns a node's link block at a layer: its count, then the slots.
func (g *Graph) links(id uint32, layer int) []uint32 {
	if layer == 0 {
		o := int(id) * (g.m0 + 1)
		return g.links0[o : o+g.m0+1 : o+g.m0+1]
	}
	o := (layer - 1) * (g.m + 1)
	return g.upper[id][o : o+g.m+1 : o+g.m+1]
}

// neighbours copies a node's links at a layer into buf, under its lock while building.
func (g *Graph) neighbours(id uint32, layer int, buf []uint32) []uint32 {
	if g.parallel {
		l := &g.stripes[id%uint32(len(g.stripes))]
		l.Lock()
		defer l.Unlock()
	}
	b := g.links(id, layer)
	return append(buf[:0], b[1:1+b[0]]...)
}

// Add inserts the rows Len() … n-1 of data, one after another.
func (g *Graph) Add(data []float32, n int) {
	start := g.Len()
	g.grow(n)
	vis := g.getVisited()
	defer g.visited.Put(vis)
	for id := start; id < n; id++ {
		g.insert(data, uint32(id), vis)
	}
}

// Build inserts the rows Len() … n-1 of data from workers goroutines.
func (g *Graph) Build(data []float32, n, workers int) {
	start := g.Len()
	if workers <= 1 || n-start < 1000 {
		g.Add(data, n)
		return
	}
	g.grow(n)
	if start == 0 {
		vis := g.getVisited()
		g.insert(data, 0, vis)
		g.visited.Put(vis)
		start = 1
	}
	g.parallel = true
	var next sync.Mutex
	cursor := start
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			vis := g.getVisited()
			defer g.visited.Put(vis)
			for {
				next.Lock()
				lo := cursor
				cursor = min(cursor+64, n)
				next.Unlock()
				if lo >= n {
					return
				}
				for id := lo; id < min(lo+64, n); id++ {
					g.insert(data, uint32(id), vis)
				}
			}
		})
	}
	wg.Wait()
	g.parallel = false
}

func (g *Graph) insert(data []float32, id uint32, vis *visitedSet) {
	q := g.vec(data, id)
	level := int(g.levels[id])
	g.mu.Lock()
	if id == 0 {
		g.entry, g.maxLevel = id, level
		g.mu.Unlock()
		return
	}
	ep, top := g.entry, g.maxLevel
	g.mu.Unlock()

	cur := item{distance(q, g.vec(data, ep)), ep}
	buf := make([]uint32, 0, g.m0)
	for layer := top; layer > level; layer-- {
		cur = g.greedy(data, q, cur, layer, buf)
	}
	// The node's own links are set at every layer before any node links to it: a node
	// reached during a parallel build always leads somewhere on the layers below.
	eps := []item{cur}
	chosen := make([][]item, min(level, top)+1)
	for layer := min(level, top); layer >= 0; layer-- {
		found := g.searchLayer(data, q, eps, g.efc, layer, vis, nil)
		slices.SortFunc(found, byDistance)
		chosen[layer] = g.selectNeighbours(data, found, g.m)
		g.setLinks(id, layer, chosen[layer])
		eps = found
	}
	for layer := len(chosen) - 1; layer >= 0; layer-- {
		for _, c := range chosen[layer] {
			g.link(data, c.id, id, c.dist, layer)
		}
	}
	if level > top {
		g.mu.Lock()
		if level > g.maxLevel {
			g.entry, g.maxLevel = id, level
		}
		g.mu.Unlock()
	}
}

func (g *Graph) setLinks(id uint32, layer int, chosen []item) {
	if g.parallel {
		l := &g.stripes[id%uint32(len(g.stripes))]
		l.Lock()
		defer l.Unlock()
	}
	b := g.links(id, layer)
	b[0] = uint32(len(chosen))
	for i, c := range chosen {
		b[1+i] = c.id
	}
}

// link adds the edge from → to, pruning from's links with the heuristic when they are full.
func (g *Graph) link(data []float32, from, to uint32, d float32, layer int) {
	if g.parallel {
		l := &g.stripes[from%uint32(len(g.stripes))]
		l.Lock()
		defer l.Unlock()
	}
	b := g.links(from, layer)
	limit := g.m
	if layer == 0 {
		limit = g.m0
	}
	n := int(b[0])
	if n < limit {
		b[1+n] = to
		b[0]++
		return
	}
	fv := g.vec(data, from)
	cands := make([]item, 0, n+1)
	cands = append(cands, item{d, to})
	for _, e := range b[1 : 1+n] {
		cands = append(cands, item{distance(fv, g.vec(data, e)), e})
	}
	slices.SortFunc(cands, byDistance)
	kept := g.selectNeighbours(data, cands, limit)
	b[0] = uint32(len(kept))
	for i, c := range kept {
		b[1+i] = c.id
	}
}

// selectNeighbours keeps, nearest first, each candidate that is nearer to the base than to
// every candidate already kept (the paper's heuristic), up to m. cands are sorted.
func (g *Graph) selectNeighbours(data []float32, cands []item, m int) []item {
	if len(cands) <= m {
		return cands
	}
	kept := make([]item, 0, m)
	for _, c := range cands {
		if len(kept) >= m {
			break
		}
		cv := g.vec(data, c.id)
		good := true
		for _, k := range kept {
			if distance(cv, g.vec(data, k.id)) < c.dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		}
	}
	return kept
}

func (g *Graph) greedy(data, q []float32, cur item, layer int, buf []uint32) item {
	for changed := true; changed; {
		changed = false
		for _, e := range g.neighbours(cur.id, layer, buf) {
			if d := distance(q, g.vec(data, e)); d < cur.dist {
				cur, changed = item{d, e}, true
			}
		}
	}
	return cur
}

// searchLayer is the paper's algorithm 2: a best-first search from eps keeping the ef
// nearest nodes that accept allows (nil: all). Rejected nodes are still walked through.
func (g *Graph) searchLayer(data, q []float32, eps []item, ef, layer int, vis *visitedSet, accept func(uint32) bool) []item {
	vis.reset(len(g.levels))
	var cand minHeap
	var res maxHeap
	for _, e := range eps {
		vis.mark(e.id)
		cand.push(e)
		if accept == nil || accept(e.id) {
			res.push(e)
		}
	}
	buf := make([]uint32, 0, g.m0)
	for len(cand) > 0 {
		c := cand.pop()
		if len(res) >= ef && c.dist > res[0].dist {
			break
		}
		for _, e := range g.neighbours(c.id, layer, buf) {
			if vis.seen(e) {
				continue
			}
			vis.mark(e)
			d := distance(q, g.vec(data, e))
			if len(res) < ef || d < res[0].dist {
				cand.push(item{d, e})
				if accept == nil || accept(e) {
					res.push(item{d, e})
					if len(res) > ef {
						res.pop()
					}
				}
			}
		}
	}
	return res
}

// Result is one node found, with its similarity (dot product) to the query.
type Result struct {
	ID    uint32
	Score float32
}

// Search returns up to k nodes nearest to q, best first, considering ef candidates; nodes
// that skip reports are never returned (but may be passed through).
func (g *Graph) Search(data, q []float32, k, ef int, skip func(uint32) bool) []Result {
	if len(g.levels) == 0 || k <= 0 {
		return nil
	}
	vis := g.getVisited()
	defer g.visited.Put(vis)
	cur := item{distance(q, g.vec(data, g.entry)), g.entry}
	buf := make([]uint32, 0, g.m0)
	for layer := g.maxLevel; layer > 0; layer-- {
		cur = g.greedy(data, q, cur, layer, buf)
	}
	var accept func(uint32) bool
	if skip != nil {
		accept = func(id uint32) bool { return !skip(id) }
	}
	found := g.searchLayer(data, q, []item{cur}, max(ef, k), 0, vis, accept)
	slices.SortFunc(found, byDistance)
	out := make([]Result, 0, min(k, len(found)))
	for _, f := range found[:min(k, len(found))] {
		out = append(out, Result{ID: f.id, Score: 1 - f.dist})
	}
	return out
}

type item struct {
	dist float32
	id   uint32
}

func byDistance(a, b item) int {
	switch {
	case a.dist < b.dist:
		return -1
	case a.dist > b.dist:
		return 1
	}
	return int(a.id) - int(b.id)
}

// minHeap and maxHeap are binary heaps on distance, written out rather than through
// container/heap: the interface calls cost more than the comparisons.
type minHeap []item

func (h *minHeap) push(x item) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].dist <= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() item {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].dist < s[m].dist {
			m = l
		}
		if r < len(s) && s[r].dist < s[m].dist {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

type maxHeap []item

func (h *maxHeap) push(x item) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].dist >= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() item {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].dist > s[m].dist {
			m = l
		}
		if r < len(s) && s[r].dist > s[m].dist {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

// visitedSet marks nodes seen in one search; a new search bumps the epoch instead of
// clearing the marks.
type visitedSet struct {
	marks []uint16
	epoch uint16
}

func (g *Graph) getVisited() *visitedSet {
	if v, ok := g.visited.Get().(*visitedSet); ok {
		return v
	}
	return &visitedSet{}
}

func (v *visitedSet) reset(n int) {
	if len(v.marks) < n {
		v.marks = append(v.marks, make([]uint16, n-len(v.marks))...)
	}
	v.epoch++
	if v.epoch == 0 {
		clear(v.marks)
		v.epoch = 1
	}
}

func (v *visitedSet) seen(id uint32) bool { return v.marks[id] == v.epoch }
func (v *visitedSet) mark(id uint32)      { v.marks[id] = v.epoch }

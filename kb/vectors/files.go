package vectors

import (
	"time"

	"warren/kb/chunk"
)

// Stats counts what the vector store did, so that a benchmark proves which path it measured.
type Stats struct {
	IndexQueries, ScanQueries int64 // collection searches through a graph, by exact scan only
	FilesRead, Rebuilt        int64 // collections opened from their files, rebuilt from warren.db
	GraphsRead, GraphsBuilt   int64 // graphs read from their file, built in memory
}

// Stats returns the store's counters.
func (vs *Store) Stats() Stats {
	return Stats{vs.indexQueries.Load(), vs.scanQueries.Load(), vs.filesRead.Load(), vs.rebuilt.Load(),
		vs.graphsRead.Load(), vs.graphsBuilt.Load()}
}

// Live is the number of live vectors a loaded collection holds (0 when it is not loaded).
func (vs *Store) Live(name string) int {
	c := vs.get(name)
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.live
}

// Files returns the paths of a collection's vector, log and graph files.
func Files(dir, collection string) (vec, log, graph string) {
	return vecPath(dir, collection), logPath(dir, collection), graphPath(dir, collection)
}

// Collection is one collection's vectors, for searching it alone: the ground truth an index
// search is measured against, and the million-chunk benchmark, which writes and reads the
// files without warren.db (SQLite would take an hour to fill).
type Collection struct{ c *vectorCollection }

// Collection returns a loaded collection, or nil.
func (vs *Store) Collection(name string) *Collection {
	if c := vs.get(name); c != nil {
		return &Collection{c}
	}
	return nil
}

// WriteCollection writes the files of a collection of the given rows at generation gen,
// builds its graph when it has indexRows rows or more (0: the index threshold) and writes
// that too. It returns how long the graph took to build.
func WriteCollection(dir, name string, dim, gen int, data []float32, ids []string, indexRows int) (time.Duration, error) {
	c := &vectorCollection{name: name, dir: dir, dim: dim, gen: gen, ids: ids, dead: make([]bool, len(ids)), live: len(ids), minIndexRows: indexRows}
	c.data = make([]float32, 0, len(ids)*dim)
	for r := range ids {
		c.data = appendNormalised(c.data, data[r*dim:(r+1)*dim])
	}
	c.mu.Lock()
	err := c.writeAll()
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	c.indexMu.Lock()
	c.index(false)
	c.indexMu.Unlock()
	took := time.Since(start)
	c.mu.RLock()
	c.writeGraph()
	c.mu.RUnlock()
	return took, nil
}

// OpenCollection opens a collection's files, refusing them unless they reached generation gen.
func OpenCollection(dir, name string, gen int) (*Collection, error) {
	c, err := openCollection(dir, name, gen)
	if err != nil {
		return nil, err
	}
	return &Collection{c}, nil
}

// HasGraph reports whether the collection has a graph that covers every row.
func (r *Collection) HasGraph() bool {
	r.c.mu.RLock()
	defer r.c.mu.RUnlock()
	return r.c.graph != nil && r.c.graph.Len() == len(r.c.ids)
}

// Rows is the number of rows.
func (r *Collection) Rows() int {
	r.c.mu.RLock()
	defer r.c.mu.RUnlock()
	return len(r.c.ids)
}

// Search searches through the graph when there is one.
func (r *Collection) Search(q []float32, k int) []chunk.Hit {
	h, _ := r.c.search(appendNormalised(nil, q), k, false)
	return h
}

// Exact searches by exact scan.
func (r *Collection) Exact(q []float32, k int) []chunk.Hit {
	h, _ := r.c.search(appendNormalised(nil, q), k, true)
	return h
}

package kb

import (
	"context"
	"fmt"
	"time"
)

// count is the number of live vectors a loaded collection holds.
func (vs *vectorStore) count(name string) int {
	c := vs.get(name)
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.live
}

// VectorStats counts what the vector store did, so that a benchmark proves which path it
// measured.
type VectorStats struct {
	IndexQueries, ScanQueries int64 // collection searches through a graph, by exact scan only
	FilesRead, Rebuilt        int64 // collections opened from their files, rebuilt from warren.db
	GraphsRead, GraphsBuilt   int64 // graphs read from their file, built in memory
}

func (vs *vectorStore) stats() VectorStats {
	return VectorStats{vs.indexQueries.Load(), vs.scanQueries.Load(), vs.filesRead.Load(), vs.rebuilt.Load(),
		vs.graphsRead.Load(), vs.graphsBuilt.Load()}
}

// VectorStats returns the store's counters (zero before its vectors are loaded).
func (s *Store) VectorStats() VectorStats {
	s.mu.Lock()
	vs := s.vectors
	s.mu.Unlock()
	if vs == nil {
		return VectorStats{}
	}
	return vs.stats()
}

// ExactDense searches one collection by exact scan, whatever its size: the ground truth an
// index search is measured against.
func (s *Store) ExactDense(ctx context.Context, vector []float32, collection string, k int) ([]Hit, error) {
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	c := vs.get(collection)
	if c == nil {
		return nil, fmt.Errorf("no collection %s", collection)
	}
	hits, _ := c.search(appendNormalised(nil, vector), k, true)
	return hits, nil
}

// VectorFiles returns the paths of a collection's vector, log and graph files.
func VectorFiles(vectorDir, collection string) (vec, log, graph string) {
	return vecPath(vectorDir, collection), logPath(vectorDir, collection), graphPath(vectorDir, collection)
}

// RawVectors is a collection's vector files opened without a workspace: the million-chunk
// benchmark writes and reads them directly, as SQLite would take an hour to fill.
type RawVectors struct{ c *vectorCollection }

// WriteRawVectors writes the files of a collection of the given rows at generation gen,
// builds its graph when it has indexRows rows or more (0: the index threshold) and writes
// that too. It returns how long the graph took to build.
func WriteRawVectors(dir, name string, dim, gen int, data []float32, ids []string, indexRows int) (time.Duration, error) {
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

// OpenRawVectors opens files written by WriteRawVectors, refusing them unless they reached
// generation gen.
func OpenRawVectors(dir, name string, gen int) (*RawVectors, error) {
	c, err := openCollection(dir, name, gen)
	if err != nil {
		return nil, err
	}
	return &RawVectors{c}, nil
}

// HasGraph reports whether the graph was read from its file and covers every row.
func (r *RawVectors) HasGraph() bool { return r.c.graph != nil && r.c.graph.Len() == len(r.c.ids) }

// Rows is the number of rows.
func (r *RawVectors) Rows() int { return len(r.c.ids) }

// Search searches through the graph when there is one.
func (r *RawVectors) Search(q []float32, k int) []Hit {
	h, _ := r.c.search(appendNormalised(nil, q), k, false)
	return h
}

// Exact searches by exact scan.
func (r *RawVectors) Exact(q []float32, k int) []Hit {
	h, _ := r.c.search(appendNormalised(nil, q), k, true)
	return h
}

// WaitLexicalIndexReady waits until the lexical index in memory has sorted its common terms'
// postings by impact (prepareImpacts), so that a benchmark times searches, not that sorting.
func (s *Store) WaitLexicalIndexReady() {
	s.lexical.mu.Lock()
	ix := s.lexical.index
	s.lexical.mu.Unlock()
	if ix != nil {
		<-ix.impactsReady
	}
}

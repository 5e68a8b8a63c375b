// Package vectors keeps the chunks' vectors of every collection, in memory and in the vector
// files of the workspace, and finds the chunks nearest to a query vector. It reads warren.db
// only through a Source the store (package kb) hands it, which rebuilds a collection whose files
// are stale or damaged.
package vectors

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"warren/kb/hnsw"
)

// The vector store keeps each collection's vectors in memory as one flat slab of normalised
// float32 rows, read from and appended to the files described in vecfile.go. A collection of
// at least indexThreshold live chunks is searched through an HNSW graph (kb/hnsw) over its
// first rows, plus an exact scan of any rows the graph does not cover yet; a smaller one is
// scanned exactly. Removed chunks are tombstones, skipped by both.
//
// Every write to a collection in warren.db raises its generation; a collection in memory
// records the generation it reflects and is reloaded (from its files when their last batch
// reached that generation, else from warren.db) whenever the two differ — after another
// process wrote, after a failed update, after a crash before the files were saved.

const (
	// indexThreshold is the number of live chunks from which a collection is searched
	// through its HNSW graph: below it the exact scan is as fast or faster (measured by
	// BenchmarkDenseCrossover, see docs/vector-index.md).
	indexThreshold = 5000
	// indexEf is how many candidates an index search keeps (at least twice the k asked).
	indexEf = 160
	// graphRewriteLag: the .hnsw file is rewritten when the graph in memory covers this many
	// rows (or a twentieth) more than it; the rows it lacks are scanned, then indexed, after
	// the next open.
	graphRewriteLag = 2000
)

var graphParameters = hnsw.Parameters{M: 16, EfConstruction: 128, Seed: 1}

// Head is what the vectors need of a collection as warren.db records it.
type Head struct {
	Name, Embedder  string
	Dim, Generation int
}

// Source is warren.db as the vectors see it: the truth they are checked against and rebuilt
// from.
type Source interface {
	// Heads lists the stored collections, sorted by name.
	Heads(ctx context.Context) ([]Head, error)
	// Rows calls add with each stored vector of a collection, in the order they were stored.
	Rows(ctx context.Context, collection string, add func(id string, v []float32) error) error
}

// Store holds the collections loaded so far.
type Store struct {
	dir string
	src Source

	mu   sync.Mutex
	cols map[string]*vectorCollection

	saveMu sync.Mutex // one SaveVectors at a time

	// bulk counts the bulk writes under way (Bulk): while there are any, rows are not added
	// to the graphs as they come but all at once when the vectors are saved.
	bulk atomic.Int32

	// Counted for the benchmarks, which prove with them which path they measured.
	indexQueries, scanQueries atomic.Int64
	filesRead, rebuilt        atomic.Int64
	graphsRead, graphsBuilt   atomic.Int64
}

// vectorCollection is one collection's vectors. Searches hold mu for reading; changes, and
// the graph's growth, hold it for writing.
type vectorCollection struct {
	name, dir string

	mu    sync.RWMutex
	dim   int
	gen   int       // generation reflected
	data  []float32 // len(ids) rows of dim floats
	ids   []string  // chunk ID of each row
	dead  []bool    // removed rows
	live  int
	rowOf map[string]uint32 // live rows by chunk ID, built on the first change
	graph *hnsw.Graph       // over rows 0 … graph.Len()-1; nil when none
	// layout changes when rows are renumbered (compaction): a graph built before is void.
	layout int

	file      fileState // what the .vec and .log files hold
	removed   []uint32  // rows removed since the last save
	graphFile int       // rows the .hnsw file covers, at file.epoch; 0: none
	// minIndexRows overrides indexThreshold (benchmarks measure the crossover with it).
	minIndexRows int
	indexMu      sync.Mutex
	indexing     atomic.Bool
	dropped      atomic.Bool // replaced or removed: background work stops
	store        *Store
}

// Open loads every collection of src, from its files in dir where they are current.
func Open(ctx context.Context, dir string, src Source) (*Store, error) {
	vs := &Store{dir: dir, src: src, cols: map[string]*vectorCollection{}}
	heads, err := src.Heads(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range heads {
		if err := vs.load(ctx, h); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

func (vs *Store) get(name string) *vectorCollection {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.cols[name]
}

func (vs *Store) put(c *vectorCollection) {
	vs.mu.Lock()
	if old := vs.cols[c.name]; old != nil && old != c {
		old.dropped.Store(true)
	}
	vs.cols[c.name] = c
	vs.mu.Unlock()
}

// Drop forgets a collection: it is reloaded on next use.
func (vs *Store) Drop(name string) {
	vs.mu.Lock()
	if c := vs.cols[name]; c != nil {
		c.dropped.Store(true)
	}
	delete(vs.cols, name)
	vs.mu.Unlock()
}

// load reads a collection at its current generation: from its files when they reached it,
// else from warren.db, after which the files are rewritten.
func (vs *Store) load(ctx context.Context, info Head) error {
	c, err := openCollection(vs.dir, info.Name, info.Generation)
	if err == nil && (info.Dim == 0 || c.live == 0 || c.dim == info.Dim) {
		vs.filesRead.Add(1)
		if c.graph != nil {
			vs.graphsRead.Add(1)
		}
		c.store = vs
		vs.put(c)
		c.kickIndexer()
		return nil
	}
	c, err = vs.rebuild(ctx, info)
	if err != nil {
		return err
	}
	vs.rebuilt.Add(1)
	vs.put(c)
	c.kickIndexer()
	return nil
}

// openCollection reads a collection's files and checks that they reached generation gen.
func openCollection(dir, name string, gen int) (*vectorCollection, error) {
	cf, err := readCollectionFiles(dir, name)
	if err != nil {
		return nil, err
	}
	last := cf.log.batches[len(cf.log.batches)-1]
	if last.gen != gen {
		return nil, fmt.Errorf("vector files of %s are at generation %d, warren.db at %d", name, last.gen, gen)
	}
	c := &vectorCollection{name: name, dir: dir, dim: cf.log.dim, gen: gen, data: cf.data, ids: cf.ids, dead: cf.dead, live: cf.live,
		file: fileState{epoch: cf.log.epoch, gen: gen, rows: len(cf.ids), logSize: cf.log.size}}
	if g, ok := readGraph(dir, name, cf.log.epoch, len(cf.ids), c.dim); ok {
		c.graph, c.graphFile = g, g.Len()
	}
	return c, nil
}

// rebuild reads a collection's vectors from warren.db and rewrites its files.
func (vs *Store) rebuild(ctx context.Context, info Head) (*vectorCollection, error) {
	c := &vectorCollection{name: info.Name, dir: vs.dir, gen: info.Generation, dim: info.Dim, store: vs}
	err := vs.src.Rows(ctx, info.Name, func(id string, v []float32) error {
		if c.dim == 0 {
			c.dim = len(v)
		}
		if len(v) != c.dim {
			return fmt.Errorf("couldn't load the vectors of %s: lengths %d and %d", info.Name, c.dim, len(v))
		}
		c.data = appendNormalised(c.data, v)
		c.ids = append(c.ids, id)
		c.dead = append(c.dead, false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.live = len(c.ids)
	// The files follow at once, so the next process opens them instead of rebuilding too;
	// failing to write them costs only that.
	c.mu.Lock()
	c.writeAll()
	c.mu.Unlock()
	return c, nil
}

// appendNormalised appends v scaled to unit length (a zero vector stays zero), so a dot
// product is the cosine similarity.
func appendNormalised(data, v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	scale := float32(0)
	if n > 0 {
		scale = float32(1 / math.Sqrt(n))
	}
	for _, x := range v {
		data = append(data, x*scale)
	}
	return data
}

// Fresh reloads the named collections (all when none are named) whose generation in
// warren.db differs from memory, and returns every collection as stored.
func (vs *Store) Fresh(ctx context.Context, names []string) ([]Head, error) {
	cols, err := vs.src.Heads(ctx)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, info := range cols {
		if len(want) > 0 && !want[info.Name] {
			continue
		}
		if c := vs.get(info.Name); c != nil {
			c.mu.RLock()
			g := c.gen
			c.mu.RUnlock()
			if g == info.Generation {
				continue
			}
		}
		if err := vs.load(ctx, info); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// Apply brings a committed write into memory: old chunk IDs out, the added ones in with their
// vectors. It applies only when memory held the generation just before the write; otherwise
// the collection is dropped from memory and reloaded on next use.
func (vs *Store) Apply(collection string, newGen int, old, added []string, vectors [][]float32) {
	c := vs.get(collection)
	if c == nil && newGen == 1 && len(added) > 0 { // created by this write
		c = &vectorCollection{name: collection, dir: vs.dir, dim: len(vectors[0]), store: vs}
		vs.put(c)
	}
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != newGen-1 || len(added) > 0 && c.live > 0 && len(vectors[0]) != c.dim {
		vs.Drop(collection)
		return
	}
	if len(added) > 0 && c.live == 0 {
		c.dim = len(vectors[0])
	}
	rowOf := c.rowIndex()
	for _, id := range old {
		if r, ok := rowOf[id]; ok {
			c.dead[r] = true
			c.live--
			delete(rowOf, id)
			c.removed = append(c.removed, r)
		}
	}
	for i, id := range added {
		if len(vectors[i]) != c.dim {
			vs.Drop(collection)
			return
		}
		rowOf[id] = uint32(len(c.ids))
		c.data = appendNormalised(c.data, vectors[i])
		c.ids = append(c.ids, id)
		c.dead = append(c.dead, false)
		c.live++
	}
	c.gen = newGen
	c.kickIndexer()
}

func (c *vectorCollection) threshold() int {
	if c.minIndexRows > 0 {
		return c.minIndexRows
	}
	return indexThreshold
}

// rowIndex returns the live rows by chunk ID, building the map on first use (opening a
// collection does not need it).
func (c *vectorCollection) rowIndex() map[string]uint32 {
	if c.rowOf == nil {
		c.rowOf = make(map[string]uint32, c.live)
		for r, id := range c.ids {
			if !c.dead[r] {
				c.rowOf[id] = uint32(r)
			}
		}
	}
	return c.rowOf
}

// kickIndexer starts indexing in the background when the collection has, or should have,
// a graph that does not cover every row yet. The caller may hold c.mu.
func (c *vectorCollection) kickIndexer() {
	if c.live < c.threshold() && c.graph == nil || c.graph != nil && c.graph.Len() == len(c.ids) {
		return
	}
	if c.store != nil && c.store.bulk.Load() > 0 {
		return // Save indexes what a bulk write added
	}
	if c.indexing.Swap(true) {
		return
	}
	go func() {
		c.indexMu.Lock()
		defer c.indexMu.Unlock()
		c.index(true)
		c.indexing.Store(false)
	}()
}

// index builds the graph when there is none, then adds the rows it lacks, a batch at a
// time so searches get in between. Called with indexMu held. persist writes a graph built
// from scratch to its file, as the build is what takes time.
func (c *vectorCollection) index(persist bool) {
	built := false
	for !c.dropped.Load() {
		c.mu.Lock()
		rows := len(c.ids)
		if c.graph == nil {
			if c.live < c.threshold() || c.dim == 0 {
				c.mu.Unlock()
				return
			}
			data, layout, dim := c.data, c.layout, c.dim
			c.mu.Unlock()
			// Rows are only appended, so the first rows of data stay as they are.
			g := hnsw.New(dim, graphParameters)
			g.Build(data, rows, runtime.GOMAXPROCS(0))
			c.mu.Lock()
			if c.layout == layout {
				c.graph = g
				built = true
				if c.store != nil {
					c.store.graphsBuilt.Add(1)
				}
			}
			c.mu.Unlock()
			continue
		}
		if c.graph.Len() < rows {
			c.graph.Add(c.data, min(rows, c.graph.Len()+512))
			c.mu.Unlock()
			continue
		}
		c.mu.Unlock()
		break
	}
	if built && persist {
		c.mu.RLock()
		c.writeGraph()
		c.mu.RUnlock()
	}
}

// writeGraph writes the graph's file when the vector files cover every row it indexes.
// Called with c.mu held.
func (c *vectorCollection) writeGraph() {
	if c.graph == nil || c.file.epoch == 0 || c.graph.Len() > c.file.rows || c.graph.Len() == 0 {
		return
	}
	unlock, err := lockFile(lockPath(c.dir, c.name))
	if err != nil {
		return
	}
	defer unlock()
	if err := writeGraphFile(c.dir, c.name, c.file.epoch, c.graph); err == nil {
		c.graphFile = c.graph.Len()
	}
}

// writeAll replaces the collection's files with every row as it is in memory, removed rows
// included so the row numbers (and the graph) stay valid. Called with c.mu held.
func (c *vectorCollection) writeAll() error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("couldn't create %s: %w", c.dir, err)
	}
	unlock, err := lockFile(lockPath(c.dir, c.name))
	if err != nil {
		return err
	}
	defer unlock()
	var removed []uint32
	for r, d := range c.dead {
		if d {
			removed = append(removed, uint32(r))
		}
	}
	st, err := writeCollectionFiles(c.dir, c.name, c.dim, c.gen, c.data, c.ids, removed)
	if err != nil {
		return err
	}
	c.file, c.removed, c.graphFile = st, nil, 0
	os.Remove(graphPath(c.dir, c.name)) // of another epoch
	removeLegacySnapshots(c.dir, c.name)
	return nil
}

// save appends what changed since the files were written, or rewrites them when they are
// not what this process last left (another process replaced them, a torn append) or when
// a quarter of their rows are removed ones. Called with c.mu held.
func (c *vectorCollection) save() error {
	switch {
	case c.file.epoch == 0:
		return c.writeAll()
	case len(c.dead) >= 1000 && len(c.dead)-c.live > len(c.dead)/4:
		c.compact()
		return c.writeAll()
	case c.file.gen == c.gen && len(c.removed) == 0 && c.file.rows == len(c.ids):
		return nil
	}
	unlock, err := lockFile(lockPath(c.dir, c.name))
	if err != nil {
		return err
	}
	b := batch{gen: c.gen, rowsBefore: c.file.rows, removed: c.removed, added: c.ids[c.file.rows:]}
	st, ok, err := appendBatch(c.dir, c.name, c.dim, c.file, b, c.data)
	unlock()
	if err != nil {
		return err
	}
	if !ok {
		return c.writeAll()
	}
	c.file, c.removed = st, nil
	return nil
}

// compact drops the removed rows, renumbering the rest; the graph is rebuilt.
func (c *vectorCollection) compact() {
	data := make([]float32, 0, c.live*c.dim)
	ids := make([]string, 0, c.live)
	for r, id := range c.ids {
		if !c.dead[r] {
			data = append(data, c.data[r*c.dim:(r+1)*c.dim]...)
			ids = append(ids, id)
		}
	}
	c.data, c.ids, c.dead = data, ids, make([]bool, len(ids))
	c.rowOf, c.graph, c.removed = nil, nil, nil
	c.layout++
}

// catchUpLater says whether the rows a graph lacks may be added in the background rather
// than before Save returns: when there is a graph and they are few beside it. Until they are
// in, searches scan them exactly, which for a few thousand rows costs well under a
// millisecond, while adding them one by one to a large graph would cost an ingest of a
// thousand documents more than the rest of its work.
func (c *vectorCollection) catchUpLater() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.graph != nil && len(c.ids)-c.graph.Len() <= max(catchUpRows, c.graph.Len()/4)
}

// catchUpRows is how many rows a graph may lack after Save whatever its size.
const catchUpRows = 4096

// Bulk marks a bulk write (an ingest of many documents) under way until end is called:
// meanwhile the rows it adds are not indexed a batch at a time in the background, which holds
// the collection's lock while the graph grows and so slows every write more as the graph gets
// larger, but all at once when the vectors are saved. Searches meanwhile scan the rows not in
// a graph yet.
func (vs *Store) Bulk() (end func()) {
	vs.bulk.Add(1)
	var once sync.Once
	// Nothing is indexed at the end: Save, which follows, indexes or leaves the rows to the
	// background (catchUpLater).
	return func() { once.Do(func() { vs.bulk.Add(-1) }) }
}

// Save brings the vector files up to date with memory for every collection whose memory
// reflects the database's current generation (one changed by another process since is left
// to be reloaded), indexes the rows the graphs lack, and rewrites a graph file that lags
// behind its graph. Stale collections are loaded first, so after an ingest every collection's
// files are current.
func (vs *Store) Save(ctx context.Context) error {
	vs.saveMu.Lock()
	defer vs.saveMu.Unlock()
	cols, err := vs.Fresh(ctx, nil)
	if err != nil {
		return err
	}
	for _, info := range cols {
		c := vs.get(info.Name)
		if c == nil {
			continue
		}
		c.mu.Lock()
		if c.gen != info.Generation {
			c.mu.Unlock()
			continue
		}
		err := c.save()
		c.mu.Unlock()
		if err != nil {
			return fmt.Errorf("couldn't save the vectors of %s: %w", info.Name, err)
		}
		if c.catchUpLater() {
			c.mu.RLock()
			c.kickIndexer()
			c.mu.RUnlock()
		} else {
			c.indexMu.Lock()
			c.index(false)
			c.indexMu.Unlock()
		}
		c.mu.RLock()
		if g := c.graph; g != nil && g.Len()-c.graphFile > max(graphRewriteLag, g.Len()/20) {
			c.writeGraph()
		}
		c.mu.RUnlock()
	}
	return nil
}

// RemoveFiles deletes a collection's files (kb rm of its last document, a reset).
func RemoveFiles(dir, name string) {
	for _, p := range []string{vecPath(dir, name), logPath(dir, name), graphPath(dir, name)} {
		os.Remove(p)
	}
	removeLegacySnapshots(dir, name)
}

// removeLegacySnapshots deletes the chromem-go gob snapshots of earlier versions
// (<collection>.g<generation>.gob). Names are matched exactly, not as patterns.
func removeLegacySnapshots(dir, collection string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := collection + ".g"
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".gob") {
			continue
		}
		if digits := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".gob"); strings.Trim(digits, "0123456789") != "" {
			continue // another collection whose name starts like this one
		}
		os.Remove(filepath.Join(dir, name))
	}
}

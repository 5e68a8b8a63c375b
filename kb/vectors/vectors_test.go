package vectors

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"warren/kb/chunk"
)

// testCollection is a collection in memory of n random unit rows, with a graph from
// indexRows rows on.
func testCollection(t *testing.T, n, dim, indexRows int) *vectorCollection {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	c := &vectorCollection{name: "t", dir: t.TempDir(), dim: dim, gen: 1, minIndexRows: indexRows}
	centres := make([][]float64, 40)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = r.NormFloat64()
		}
	}
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(centres[i%40][j] + r.NormFloat64()*0.7)
		}
		c.data = appendNormalised(c.data, v)
		c.ids = append(c.ids, fmt.Sprintf("c%d", i))
		c.dead = append(c.dead, false)
	}
	c.live = n
	return c
}

func TestGraphSearchAgreesWithTheScan(t *testing.T) {
	c := testCollection(t, 3000, 32, 1000)
	c.index(false)
	if c.graph == nil || c.graph.Len() != 3000 {
		t.Fatal("the collection must be indexed")
	}
	// Rows added after the graph, and removed rows, are handled by the scan and the skip.
	c.mu.Lock()
	extra := testCollection(t, 200, 32, 1000)
	c.data = append(c.data, extra.data...)
	for i := range 200 {
		c.ids = append(c.ids, fmt.Sprintf("x%d", i))
		c.dead = append(c.dead, false)
	}
	c.live += 200
	for r := 0; r < 3200; r += 3 {
		c.dead[r] = true
		c.live--
	}
	c.mu.Unlock()
	found, want := 0, 0
	for r := 1; r < 3200; r += 97 {
		q := c.data[r*32 : (r+1)*32]
		got, _ := c.search(q, 10, false)
		truth, _ := c.search(q, 10, true)
		for _, h := range got {
			row := slices.Index(c.ids, h.ChunkID)
			if c.dead[row] {
				t.Fatalf("a removed row was found: %s", h.ChunkID)
			}
			if slices.ContainsFunc(truth, func(x chunk.Hit) bool { return x.ChunkID == h.ChunkID }) {
				found++
			}
		}
		want += len(truth)
	}
	if recall := float64(found) / float64(want); recall < 0.95 {
		t.Errorf("recall@10 against the scan = %.3f", recall)
	}
}

func TestSaveCompactsAndKeepsTheGraphFile(t *testing.T) {
	c := testCollection(t, 2000, 16, 500)
	c.mu.Lock()
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	c.mu.Unlock()
	c.index(false)
	c.mu.RLock()
	c.writeGraph()
	c.mu.RUnlock()
	opened, err := openCollection(c.dir, "t", 1)
	if err != nil || opened.graph == nil || opened.graph.Len() != 2000 {
		t.Fatalf("the graph file must be read back: %v", err)
	}

	// Removing most rows compacts: new files, rows renumbered, the old graph void.
	c.mu.Lock()
	for r := 0; r < 1200; r++ {
		c.dead[r] = true
		c.live--
		c.removed = append(c.removed, uint32(r))
	}
	c.gen = 2
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	c.mu.Unlock()
	opened, err = openCollection(c.dir, "t", 2)
	if err != nil || len(opened.ids) != 800 || opened.live != 800 || opened.graph != nil {
		t.Fatalf("after compaction: %v, %d rows, %d live, graph %v", err, len(opened.ids), opened.live, opened.graph != nil)
	}
	if opened.ids[0] != "c1200" {
		t.Errorf("the first row after compaction is %s", opened.ids[0])
	}
}

// A save after a removal appends one batch that lists the removed row; the files written
// before stay as they were.
func TestASaveAppendsABatch(t *testing.T) {
	c := testCollection(t, 10, 8, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(logPath(c.dir, "t"))
	c.dead[3], c.live, c.removed, c.gen = true, c.live-1, append(c.removed, 3), 2
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(logPath(c.dir, "t"))
	parsed, err := parseLog(raw)
	if err != nil || len(parsed.batches) != 2 || !slices.Equal(parsed.batches[1].removed, []uint32{3}) || !slices.Equal(raw[:len(before)], before) {
		t.Fatalf("want the first batch kept and a second removing row 3: %+v %v", parsed, err)
	}
}

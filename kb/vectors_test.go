package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

func addDoc(t *testing.T, s *Store, id, text string) {
	t.Helper()
	doc := &Document{ID: id, Collection: "general", Language: "en", Meta: map[string]string{},
		Sections: []Section{{Heading: id, Text: text}}}
	if _, err := s.AddDocument(context.Background(), doc, Builtin{}, DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func TestVectorFilesAreAppendedNotRewritten(t *testing.T) {
	ws, store := openTestStore(t)
	ctx := context.Background()
	if _, err := store.vectorStore(ctx); err != nil {
		t.Fatal(err)
	}
	addDoc(t, store, "a.md", "Silane is pyrophoric and ignites in air.")
	if err := store.SaveVectors(ctx); err != nil {
		t.Fatal(err)
	}
	dir := ws.VectorDir()
	head, _ := os.ReadFile(vecPath(dir, "general"))
	logHead, _ := os.ReadFile(logPath(dir, "general"))

	addDoc(t, store, "b.md", "Arsine is a highly toxic hydride gas.")
	store.RemoveDocument(ctx, "a.md")
	if err := store.SaveVectors(ctx); err != nil {
		t.Fatal(err)
	}
	vec, _ := os.ReadFile(vecPath(dir, "general"))
	log, _ := os.ReadFile(logPath(dir, "general"))
	if len(vec) <= len(head) || !slices.Equal(vec[:len(head)], head) || !slices.Equal(log[:len(logHead)], logHead) {
		t.Fatalf("the second save must append to both files (vec %d → %d bytes, log %d → %d)", len(head), len(vec), len(logHead), len(log))
	}
	parsed, err := parseLog(log)
	if err != nil || len(parsed.batches) != 2 || len(parsed.batches[1].removed) != 1 {
		t.Fatalf("want two batches, the second removing a's row: %+v %v", parsed, err)
	}

	fresh := NewStore(ws)
	hits, err := fresh.Dense(ctx, BuiltinVector("pyrophoric silane"), Scope{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.HasPrefix(h.ChunkID, "a.md") {
			t.Errorf("a removed chunk was found: %+v", hits)
		}
	}
	if st := fresh.vectors.stats(); st.FilesRead != 1 || st.Rebuilt != 0 {
		t.Errorf("a fresh store must read the files: %+v", st)
	}
}

func TestDamagedOrStaleVectorFilesAreRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, ws *Workspace, store *Store)
	}{
		{"vectors cut short", func(t *testing.T, ws *Workspace, _ *Store) {
			p := vecPath(ws.VectorDir(), "general")
			os.Truncate(p, fileSize(t, p)-8)
		}},
		{"a vector byte flipped", func(t *testing.T, ws *Workspace, _ *Store) {
			p := vecPath(ws.VectorDir(), "general")
			b, _ := os.ReadFile(p)
			b[len(b)-3] ^= 0x40
			os.WriteFile(p, b, 0o644)
		}},
		{"last batch torn", func(t *testing.T, ws *Workspace, _ *Store) {
			p := logPath(ws.VectorDir(), "general")
			os.Truncate(p, fileSize(t, p)-2)
		}},
		{"a write never saved", func(t *testing.T, ws *Workspace, _ *Store) {
			addDoc(t, NewStore(ws), "c.md", "Phosphine smells of garlic.")
		}},
		{"files missing", func(t *testing.T, ws *Workspace, _ *Store) {
			os.Remove(logPath(ws.VectorDir(), "general"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, store := openTestStore(t)
			ctx := context.Background()
			store.vectorStore(ctx)
			addDoc(t, store, "a.md", "Silane is pyrophoric and ignites in air.")
			store.SaveVectors(ctx)
			addDoc(t, store, "b.md", "Arsine is a highly toxic hydride gas.")
			store.SaveVectors(ctx)
			tt.damage(t, ws, store)

			fresh := NewStore(ws)
			if _, err := fresh.Dense(ctx, BuiltinVector("arsine"), Scope{}, 5); err != nil {
				t.Fatal(err)
			}
			if st := fresh.vectors.stats(); st.Rebuilt != 1 || st.FilesRead != 0 {
				t.Errorf("want a rebuild from warren.db: %+v", st)
			}
			var chunks int
			ws.DB.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunks)
			if got := fresh.vectors.count("general"); got != chunks {
				t.Errorf("rebuilt %d vectors for %d chunks", got, chunks)
			}
			// The rebuild rewrote the files: the next open reads them.
			again := NewStore(ws)
			again.Dense(ctx, BuiltinVector("arsine"), Scope{}, 5)
			if st := again.vectors.stats(); st.FilesRead != 1 || st.Rebuilt != 0 {
				t.Errorf("after a rebuild the files must be current: %+v", st)
			}
		})
	}
}

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
			if slices.ContainsFunc(truth, func(x Hit) bool { return x.ChunkID == h.ChunkID }) {
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

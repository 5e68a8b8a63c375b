package weaviate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/weaviatekb"
)

// writeCorpus writes n markdown documents whose first section names a word of their own
// ("kestrel<prefix><i>"), so a search for it has one right answer, and whose every chunk
// differs from every other chunk of the corpora.
func writeCorpus(t *testing.T, dir, prefix string, n int) []kb.Item {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var items []kb.Item
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Procedure %s %d\n\n## 1 Scope\n\nThis procedure kestrel%s%03d covers gas cabinet %d.\n\n", prefix, i, prefix, i, i)
		for s := 2; s <= 6; s++ {
			fmt.Fprintf(&b, "## %d Step %d\n\nPurge line %d of cabinet %s%d with nitrogen for %d minutes, then check the pressure gauge and record the reading in the log of section %d.\n\n", s, s, s, prefix, i, s*5, s)
		}
		path := filepath.Join(dir, fmt.Sprintf("%s%03d.md", prefix, i))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		items = append(items, kb.Item{Path: path, ID: fmt.Sprintf("procedures/%s%03d.md", prefix, i), Collection: "procedures"})
	}
	return items
}

func openOn(t *testing.T, n *node, prefix string) *weaviatekb.Backend {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := weaviatekb.Open(ctx, weaviatekb.Options{URL: n.url, GRPC: n.grpc, ClassPrefix: prefix, Replicas: 2, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("couldn't open the knowledge base on %s: %v", n.name, err)
	}
	return b
}

// TestClusterNodeKilledDuringSearchesAndIngest kills one node of three (replication factor 2)
// after the first 10 of 100 searches and while an ingest runs: every search answers (a word
// of one document finds it first, a stored vector finds its chunk), the ingest stores each document or reports it failed with the reason,
// a second ingest after the node returns stores exactly the failed ones, and then every node
// counts the same documents and chunks, and each shard's two replicas hold the same objects.
func TestClusterNodeKilledDuringSearchesAndIngest(t *testing.T) {
	nodes := clusterNodes(t)
	ctx := context.Background()
	prefix := fmt.Sprintf("WarrenFault%d", time.Now().UnixNano()%1_000_000)
	b := openOn(t, nodes[0], prefix)
	t.Cleanup(func() { b.DropAll(context.Background()) })
	emb := kb.Builtin{}
	dir := t.TempDir()

	seed := writeCorpus(t, filepath.Join(dir, "seed"), "s", 30)
	rep, err := kb.Ingest(ctx, b, seed, kb.IngestOptions{Embedder: emb})
	if err != nil || rep.Ingested != len(seed) {
		t.Fatalf("the seed ingest: %+v %v", rep, err)
	}
	wantChunks := rep.Chunks

	// The dense queries are stored vectors: each must find its own chunk first.
	type probe struct {
		chunk  string
		vector []float32
	}
	probes := make([]probe, len(seed))
	for i, it := range seed {
		chunks, err := b.DocumentChunks(ctx, it.ID)
		if err != nil || len(chunks) == 0 {
			t.Fatalf("the chunks of %s: %v %v", it.ID, len(chunks), err)
		}
		vectors, err := b.DocumentVectors(ctx, it.ID)
		if err != nil || len(vectors) != len(chunks) {
			t.Fatalf("the vectors of %s: %d %v", it.ID, len(vectors), err)
		}
		probes[i] = probe{chunk: chunks[len(chunks)-1].ID, vector: vectors[len(chunks)-1]}
	}

	later := writeCorpus(t, filepath.Join(dir, "later"), "l", 60)
	killed := make(chan struct{})
	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { nodes[1].kill(t); close(killed) }) }

	type answer struct {
		i         int
		kind      string
		err       error
		top, want string // the first document of a lexical search, the probe's chunk in a dense one
	}
	answers := make(chan answer, 100)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 100 {
			if i == 10 {
				<-killed // the other 90 run with the node down
			}
			doc := i % len(seed)
			a := answer{i: i}
			if i%2 == 0 {
				a.kind, a.want = "lexical", seed[doc].ID
				hits, err := b.Lexical(ctx, fmt.Sprintf("kestrels%03d", doc), "en", chunk.Scope{}, 5)
				a.err = err
				if len(hits) > 0 {
					if cs, err := b.Chunks(ctx, []string{hits[0].ChunkID}); err == nil && len(cs) == 1 {
						a.top = cs[0].Doc
					}
				}
			} else {
				a.kind, a.want = "dense", probes[doc].chunk
				hits, err := b.Dense(ctx, probes[doc].vector, chunk.Scope{}, 5)
				a.err = err
				// The builtin embedder hashes words into its dimensions, so another chunk
				// may tie with the probe's own: it must be among the five.
				for _, h := range hits {
					if h.ChunkID == a.want {
						a.top = h.ChunkID
					}
				}
			}
			answers <- a
		}
		close(answers)
	}()
	var during *kb.IngestReport
	var duringErr error
	go func() {
		defer wg.Done()
		during, duringErr = kb.Ingest(ctx, b, later, kb.IngestOptions{Embedder: emb, Progress: func(p kb.Progress) {
			if p.FilesDone == 5 {
				go kill()
			}
		}})
		kill() // in case the ingest finished before its fifth file was reported
	}()
	wg.Wait()
	for a := range answers {
		if a.err != nil || a.top != a.want {
			t.Errorf("search %d (%s) for %s: top %q, error %v", a.i, a.kind, a.want, a.top, a.err)
		}
	}
	if duringErr != nil {
		t.Fatalf("the ingest while a node was down stopped without a report per file: %v", duringErr)
	}
	var failed []string
	for _, f := range during.Files {
		switch {
		case f.Status == kb.StatusFailed && f.Reason == "":
			t.Errorf("%s failed without a reason", f.Path)
		case f.Status == kb.StatusFailed:
			failed = append(failed, f.Doc)
		case f.Status != kb.StatusIngested:
			t.Errorf("%s: %s (%s)", f.Path, f.Status, f.Reason)
		}
	}
	t.Logf("with a node down: 100 searches answered, %d documents ingested, %d failed (first reason: %s)",
		during.Ingested, len(failed), firstReason(during))

	nodes[1].restart(t)
	waitHealthy(t, nodes, 3, 2*time.Minute)
	again, err := kb.Ingest(ctx, b, later, kb.IngestOptions{Embedder: emb})
	if err != nil || again.Failed != 0 || again.Ingested+again.Unchanged != len(later) {
		t.Fatalf("the ingest run again after the node returned: %+v %v", again, err)
	}
	stored := map[string]bool{}
	for _, f := range again.Files {
		stored[f.Doc] = f.Status == kb.StatusIngested
	}
	for _, doc := range failed {
		if !stored[doc] {
			t.Errorf("%s failed while the node was down but was not stored by the next ingest", doc)
		}
	}
	// A document stored just as the node died may be stored again: the killed node can lose
	// the last writes it acknowledged, and a read that it answers finds the old record.
	t.Logf("after the node returned: %d documents ingested (%d had failed), %d unchanged", again.Ingested, len(failed), again.Unchanged)
	chunksOf := map[string]int{} // each later document's chunks, from the ingest that stored it last
	for _, r := range []*kb.IngestReport{during, again} {
		for _, f := range r.Files {
			if f.Status == kb.StatusIngested {
				chunksOf[f.Doc] = f.Chunks
			}
		}
	}
	for _, n := range chunksOf {
		wantChunks += n
	}
	wantDocs := len(seed) + len(later)

	waitCountsThroughEveryNode(t, nodes, prefix, wantDocs, wantChunks)
	waitReplicasAgree(t, nodes[0], prefix+"Chunks_", wantChunks)
}

// waitCountsThroughEveryNode waits until every node counts the documents and chunks wanted.
// A node reads its own replicas: when Weaviate took writes while the node was down (it does
// once it has marked the node dead), the node holds them only after asynchronous replication
// has repaired it.
func waitCountsThroughEveryNode(t *testing.T, nodes []*node, prefix string, wantDocs, wantChunks int) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	for _, n := range nodes {
		for {
			nb := openOn(t, n, prefix) // anew each time: a backend keeps the counts it read
			c, ok, err := nb.Collection(ctx, "procedures")
			nb.Close()
			if err == nil && ok && c.Documents == wantDocs && c.Chunks == wantChunks {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("through %s after %s: %+v %v %v; want %d documents and %d chunks", n.name, time.Since(start).Round(time.Second), c, ok, err, wantDocs, wantChunks)
				break
			}
			time.Sleep(2 * time.Second)
		}
	}
	t.Logf("every node counts %d documents and %d chunks (after %s)", wantDocs, wantChunks, time.Since(start).Round(time.Second))
}

func firstReason(r *kb.IngestReport) string {
	for _, f := range r.Files {
		if f.Status == kb.StatusFailed {
			return f.Reason
		}
	}
	return "none"
}

// waitReplicasAgree waits until every shard of the classes under prefix reports the same
// object count on both its replicas, and the shards hold want objects in all. Weaviate
// refreshes these counts about once a minute, hence the wait.
func waitReplicasAgree(t *testing.T, asker *node, prefix string, want int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		counts, err := replicaCounts(asker, prefix)
		if err != nil {
			last = err.Error()
			time.Sleep(2 * time.Second)
			continue
		}
		total, agree := int64(0), len(counts) > 0
		for _, replicas := range counts {
			var first int64 = -1
			for _, n := range replicas {
				if first < 0 {
					first = n
				} else if n != first {
					agree = false
				}
			}
			if len(replicas) != 2 {
				agree = false
			}
			total += first
		}
		if agree && total == int64(want) {
			t.Logf("each shard's two replicas agree: %v", counts)
			return
		}
		last = fmt.Sprintf("%v (want %d objects in all)", counts, want)
		time.Sleep(2 * time.Second)
	}
	t.Errorf("the replicas did not agree within 3 minutes: %s", last)
}

package kbcopy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"warren/config"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
)

func workspace(t *testing.T) *kb.Workspace {
	t.Helper()
	dir := t.TempDir()
	steps := slices.Concat(kb.Migrations, Migrations)
	if _, err := kb.Init(dir, steps); err != nil {
		t.Fatal(err)
	}
	ws, err := kb.Open(dir, config.Sources{}, steps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// fill stores docs documents of a few chunks each with random 8-dimension vectors, in the
// given order of document numbers.
func fill(t *testing.T, s kb.Backend, order []int, variant string) {
	t.Helper()
	ctx := context.Background()
	for _, i := range order {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		col := []string{"rfc", "suppliers"}[i%2]
		doc := &load.Document{ID: fmt.Sprintf("%s/doc%02d", col, i), Collection: col, Title: fmt.Sprintf("Doc %d", i),
			Source: fmt.Sprintf("/data/doc%02d.md", i), Format: "markdown", Language: "en", Hash: fmt.Sprintf("h%d%s", i, variant)}
		var chunks []chunk.Chunk
		var vectors [][]float32
		for seq := range 2 + i%3 {
			chunks = append(chunks, chunk.Chunk{ID: chunk.ID(doc.ID, seq), Doc: doc.ID, Collection: col, Section: fmt.Sprint(seq + 1),
				Heading: "Part", Text: fmt.Sprintf("chunk %d of document %d about silane %s", seq, i, variant), Seq: seq})
			v := make([]float32, 8)
			for k := range v {
				v[k] = rng.Float32()
			}
			vectors = append(vectors, v)
		}
		if err := s.ReplaceDocument(ctx, doc, chunks, vectors, "builtin:test"); err != nil {
			t.Fatal(err)
		}
	}
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestCopyVerifiesCountsAndChecksum(t *testing.T) {
	ctx := context.Background()
	srcWS, dstWS := workspace(t), workspace(t)
	src, dst := kb.NewStore(srcWS), kb.NewStore(dstWS)
	fill(t, src, upTo(9), "")
	var seen []Progress
	rep, err := Copy(ctx, srcWS.DB, src, dst, Options{Target: "test", Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.Copied != 9 || rep.Resumed != 0 || rep.Source != rep.Destination || rep.Source.Documents != 9 || rep.Source.Chunks != rep.Chunks {
		t.Fatalf("report %+v", rep)
	}
	if len(seen) != 9 || seen[8].Done != 9 || seen[8].Total != 9 || seen[8].Chunks != rep.Chunks {
		t.Errorf("progress %+v", seen)
	}
	cols, _ := dst.Collections(ctx)
	if len(cols) != 2 || cols[0].Embedder != "builtin:test" || cols[0].Dim != 8 {
		t.Errorf("the destination's collections %+v: want the source's embedder and dimension", cols)
	}
	hits, err := dst.Lexical(ctx, "silane", "en", chunk.Scope{Collections: []string{"rfc"}}, 3)
	if err != nil || len(hits) != 3 {
		t.Errorf("a lexical search on the copy: %v %v", hits, err)
	}

	// Run again: the checkpoint has everything, nothing is written.
	rep, err = Copy(ctx, srcWS.DB, src, dst, Options{Target: "test"})
	if err != nil || rep.Copied != 0 || rep.Resumed != 9 || !rep.Verified {
		t.Fatalf("a second run: %+v %v", rep, err)
	}
	// A document that changed in the source since is copied again.
	fill(t, src, []int{4}, "v2")
	rep, err = Copy(ctx, srcWS.DB, src, dst, Options{Target: "test"})
	if err != nil || rep.Copied != 1 || rep.Resumed != 8 || !rep.Verified {
		t.Fatalf("after a change in the source: %+v %v", rep, err)
	}
}

// failingBackend stores the first n documents it is given, then fails.
type failingBackend struct {
	kb.Backend
	n int
}

func (f *failingBackend) ReplaceDocument(ctx context.Context, doc *load.Document, chunks []chunk.Chunk, vectors [][]float32, embedder string) error {
	if f.n == 0 {
		return errors.New("connection reset by peer")
	}
	f.n--
	return f.Backend.ReplaceDocument(ctx, doc, chunks, vectors, embedder)
}

func TestCopyResumesAfterAFailureAndACancel(t *testing.T) {
	ctx := context.Background()
	srcWS, dstWS := workspace(t), workspace(t)
	src, dst := kb.NewStore(srcWS), kb.NewStore(dstWS)
	fill(t, src, upTo(10), "")

	rep, err := Copy(ctx, srcWS.DB, src, &failingBackend{Backend: dst, n: 3}, Options{Target: "t"})
	if err == nil || rep.Copied != 3 || rep.Verified {
		t.Fatalf("a destination that fails at the fourth document: %+v %v", rep, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rep, err = Copy(cctx, srcWS.DB, src, dst, Options{Target: "t", Progress: func(p Progress) {
		if p.Done == 6 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || rep.Resumed != 3 || rep.Copied != 3 {
		t.Fatalf("cancelled at the sixth document: %+v %v", rep, err)
	}
	rep, err = Copy(ctx, srcWS.DB, src, dst, Options{Target: "t"})
	if err != nil || rep.Resumed != 6 || rep.Copied != 4 || !rep.Verified {
		t.Fatalf("the run after: %+v %v", rep, err)
	}
	// Another target starts from nothing.
	rep, err = Copy(ctx, srcWS.DB, src, dst, Options{Target: "other"})
	if err != nil || rep.Resumed != 0 || rep.Copied != 10 || !rep.Verified {
		t.Fatalf("another target: %+v %v", rep, err)
	}
}

func TestCopyRefusesOrPrunesDocumentsOnlyTheDestinationHas(t *testing.T) {
	ctx := context.Background()
	srcWS, dstWS := workspace(t), workspace(t)
	src, dst := kb.NewStore(srcWS), kb.NewStore(dstWS)
	fill(t, src, upTo(4), "")
	fill(t, dst, []int{7}, "")
	rep, err := Copy(ctx, srcWS.DB, src, dst, Options{Target: "t"})
	var extra *ExtraDocumentsError
	if !errors.As(err, &extra) || !slices.Equal(extra.IDs, []string{"suppliers/doc07"}) || rep.Copied != 0 {
		t.Fatalf("want the extra document named and nothing copied, got %+v %v", rep, err)
	}
	rep, err = Copy(ctx, srcWS.DB, src, dst, Options{Target: "t", Prune: true})
	if err != nil || !rep.Verified || !slices.Equal(rep.Pruned, []string{"suppliers/doc07"}) {
		t.Fatalf("with Prune: %+v %v", rep, err)
	}
}

func TestChecksumIgnoresOrderAndSeesEveryChange(t *testing.T) {
	ctx := context.Background()
	a, b, c := kb.NewStore(workspace(t)), kb.NewStore(workspace(t)), kb.NewStore(workspace(t))
	fill(t, a, upTo(6), "")
	fill(t, b, []int{5, 2, 0, 4, 1, 3}, "")
	fill(t, c, upTo(6), "")
	fill(t, c, []int{3}, "changed") // one document's texts differ
	da, errA := Checksum(ctx, a)
	db, errB := Checksum(ctx, b)
	dc, errC := Checksum(ctx, c)
	if errA != nil || errB != nil || errC != nil {
		t.Fatal(errA, errB, errC)
	}
	if da != db {
		t.Errorf("the same chunks stored in another order: %+v and %+v", da, db)
	}
	if dc.Chunks != da.Chunks || dc.Sum == da.Sum {
		t.Errorf("a changed text kept the checksum: %+v and %+v", da, dc)
	}
	v := []float32{1, 2, 3}
	w := []float32{1, 2, 3.0000002}
	ch := chunk.Chunk{ID: "x#0000", Text: "t"}
	if chunkSum(ch, v) == chunkSum(ch, w) {
		t.Error("a vector that differs in its last bit kept the chunk's sum")
	}
	if chunkSum(chunk.Chunk{ID: "ab", Text: "c"}, v) == chunkSum(chunk.Chunk{ID: "a", Text: "bc"}, v) {
		t.Error("an ID and text split elsewhere gave the same sum")
	}
}

package lexical

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"warren/kb/chunk"
)

// zipfText writes n words drawn from a Zipf law over vocab words, so that a few words are in
// most chunks, as in real text.
func zipfText(r *rand.Rand, z *rand.Zipf, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("word%dx", z.Uint64())
	}
	return strings.Join(words, " ")
}

// zipfChunks makes docs documents of secs one-chunk sections (a two-word heading, a body of
// words words), in the given collections by turns.
func zipfChunks(r *rand.Rand, z *rand.Zipf, docs, secs, words int, collections ...string) []chunk.Chunk {
	var out []chunk.Chunk
	for d := range docs {
		doc := fmt.Sprintf("d%02d", d)
		for i := range secs {
			out = append(out, chunk.Chunk{ID: chunk.ID(doc, i), Doc: doc, Collection: collections[d%len(collections)],
				Section: fmt.Sprint(i + 1), Heading: zipfText(r, z, 2), Text: zipfText(r, z, words), Seq: i})
		}
	}
	return out
}

// buildIndex indexes chunks as the store does (their analysed terms and scope tokens, rowids
// from 1 in order), and returns the index and each chunk's terms as ranker.score takes them.
func buildIndex(token string, chunks []chunk.Chunk) (*Index, []lexicalDoc) {
	b := NewBuilder(token, Totals{})
	docs := make([]lexicalDoc, len(chunks))
	for i, c := range chunks {
		heading, body := IndexedTerms(c, "en")
		b.Add(int64(i+1), []byte(heading), []byte(body), []byte(strings.Join(ScopeTokens(c), " ")))
		docs[i] = newLexicalDoc(int64(i+1), heading, body)
	}
	for i, c := range chunks {
		b.SetID(int64(i+1), c.ID)
	}
	return b.Index(), docs
}

// zipfIndex is the index of docs documents of eight sections in two collections.
func zipfIndex(docs int) (*Index, []chunk.Chunk) {
	r := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(r, 1.1, 2, 300)
	chunks := zipfChunks(r, z, docs, 8, 20, "left", "right")
	ix, _ := buildIndex(fmt.Sprintf("state of %d documents", docs), chunks)
	return ix, chunks
}

// The candidates found with postings left unread are the best m of an exhaustive BM25 ranking
// of every chunk (ranker.score over the chunks' indexed terms), with the same scores: whether
// terms are walked in index order only, or the common ones in impact order (and a walk
// stops inside a term).
func TestLexicalCandidatesAreTheExhaustiveTop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.1, 2, 400)
	ix, all := buildIndex("t", zipfChunks(r, z, 30, 20, 25, "c"))
	var cache Cache
	rk := DefaultParams().rankerFor(ix)
	defer func(walkMin, ratio int) { impactWalkMin, postingsWalkRatio = walkMin, ratio }(impactWalkMin, postingsWalkRatio)
	for _, walkMin := range []int{len(ix.chunks) + 1, 40, 8} {
		for _, ratio := range []int{32, 0} {
			impactWalkMin, postingsWalkRatio = walkMin, ratio
			before := cache.Stats()
			for n := range 60 {
				q := newLexicalQuery(strings.Fields(zipfText(r, z, 2+n%4)))
				ix.weigh(q)
				q = q.found()
				m := 5 + n%20
				got := ix.candidates(rk, ix.queryOf(q), nil, m, &cache)
				docs := slices.Clone(all)
				rk.score(docs, q)
				want := topDocs(docs, m)
				if len(got) != len(want) {
					t.Fatalf("%v: %d candidates, want %d", q, len(got), len(want))
				}
				for i := range want {
					if c := ix.chunks[got[i].slot]; c.rowid != want[i].rowid || got[i].score != want[i].score {
						t.Errorf("impact walk from %d postings, walk ratio %d, %v m=%d #%d: chunk %d scored %v, want %d scored %v",
							walkMin, ratio, q, m, i, c.rowid, got[i].score, want[i].rowid, want[i].score)
					}
				}
			}
			after := cache.Stats()
			walkedShares := after.TermsPruned - after.LookedUp - (before.TermsPruned - before.LookedUp)
			if ratio > 0 && walkedShares == 0 {
				t.Errorf("impact walk from %d postings: no unread term's share was added from its postings", walkMin)
			}
			if ratio == 0 && (walkedShares != 0 || after.LookedUp == before.LookedUp) {
				t.Errorf("impact walk from %d postings: with walk ratio 0 every unread term's share must be looked up", walkMin)
			}
			if stopped := after.StoppedInside - before.StoppedInside; (walkMin < len(ix.chunks)) != (stopped > 0) {
				t.Errorf("impact walk from %d postings: %d walks stopped inside a term", walkMin, stopped)
			}
		}
	}
}

// mergeStrongest selects the n strongest terms as sorting them all would, ties by term
// included.
func TestMergeStrongestTakesTheStrongestTermsAsAFullSortWould(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var expansion Query
		for i := range 1 + r.IntN(300) {
			// Few distinct weights, so many terms tie at the n-th.
			expansion = append(expansion, queryTerm{term: fmt.Sprintf("t%03d", r.IntN(1000)+i*1000), weight: float64(1 + r.IntN(6))})
		}
		n := r.IntN(len(expansion) + 5)
		q := Query{{term: "query", weight: 1}, {term: expansion[0].term, weight: 2}}
		sorted := slices.Clone(expansion)
		slices.SortFunc(sorted, func(a, b queryTerm) int {
			return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.term, b.term))
		})
		wantOut, wantFresh := mergeExpansion(q, sorted[:min(len(sorted), n)])
		gotOut, gotFresh := mergeStrongest(q, slices.Clone(expansion), n)
		if !reflect.DeepEqual(gotOut, wantOut) || !reflect.DeepEqual(gotFresh, wantFresh) {
			t.Fatalf("round %d, n %d of %d: got %v %v, want %v %v", round, n, len(expansion), gotOut, gotFresh, wantOut, wantFresh)
		}
	}
}

// sameIndex fails unless two indexes hold the same tables.
func sameIndex(t *testing.T, got, want *Index) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"token", got.token, want.token}, {"totals", got.totals, want.totals}, {"ids", got.ids, want.ids},
		{"terms", got.terms, want.terms}, {"info", got.info, want.info}, {"postings", got.postings, want.postings},
		{"postingsAt", got.postingsAt, want.postingsAt}, {"entries", got.entries, want.entries}, {"seq", got.seq, want.seq},
		{"chunks", got.chunks, want.chunks}, {"lengths", got.lengths, want.lengths},
		{"collections", got.collections, want.collections}, {"docs", got.docs, want.docs},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s differs between the snapshot and the index read", f.name)
		}
	}
}

// A cache asked for a state whose snapshot is there reads it and gets the same index as the
// one read from the database; a damaged or cut snapshot is never used: the index is read
// instead, with no error.
func TestTheSnapshotHoldsTheSameIndex(t *testing.T) {
	want, _ := zipfIndex(12)
	dir := t.TempDir()
	read := func() (*Index, error) { ix, _ := zipfIndex(12); return ix, nil }
	var first Cache
	if _, err := first.Index(want.token, dir, DefaultParams(), read); err != nil {
		t.Fatal(err)
	}
	if st := first.Stats(); st.Loads != 1 || st.SnapshotReads != 0 {
		t.Fatalf("the first read must be of the database: %+v", st)
	}
	var second Cache
	got, err := second.Index(want.token, dir, DefaultParams(), read)
	if err != nil {
		t.Fatal(err)
	}
	if st := second.Stats(); st.Loads != 0 || st.SnapshotReads != 1 {
		t.Fatalf("a second cache must read the snapshot: %+v", st)
	}
	sameIndex(t, got, want)

	path := SnapshotPath(dir)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	for name, bad := range map[string][]byte{
		"a flipped byte": func() []byte { b := slices.Clone(good); b[len(b)/2] ^= 0x40; return b }(),
		"cut short":      good[:len(good)/3],
		"empty":          {},
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		var c Cache
		got, err := c.Index(want.token, dir, DefaultParams(), read)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st := c.Stats(); st.Loads != 1 || st.SnapshotReads != 0 {
			t.Errorf("%s: the snapshot must not be used: %+v", name, st)
		}
		sameIndex(t, got, want)
	}
}

// A temporary file that a process which died before its rename left behind is removed by the
// next write of the snapshot; one written a moment ago (another process's write in progress)
// is left alone.
func TestASnapshotWriteRemovesTheTempFilesOfDeadWrites(t *testing.T) {
	ix, _ := zipfIndex(2)
	vdir := t.TempDir()
	old := filepath.Join(vdir, "."+lexSnapshotFile+".tmp-123")
	young := filepath.Join(vdir, "."+lexSnapshotFile+".tmp-456")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("half a snapshot"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	if err := writeLexSnapshot(vdir, ix); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the dead write's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a write in progress lost its temporary file: %v", err)
	}
	if _, err := os.Stat(SnapshotPath(vdir)); err != nil {
		t.Errorf("no snapshot written: %v", err)
	}
}

// A snapshot of another state of the database, as every write leaves one, is told by its head
// alone: even cut short, it answers stale, not damaged, for another token.
func TestAStaleSnapshotIsToldByItsHead(t *testing.T) {
	ix, _ := zipfIndex(2)
	vdir := t.TempDir()
	if err := writeLexSnapshot(vdir, ix); err != nil {
		t.Fatal(err)
	}
	if got, err := readLexSnapshot(vdir, ix.token); err != nil || got.token != ix.token {
		t.Fatalf("the snapshot just written must be read: %v", err)
	}
	path := SnapshotPath(vdir)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()/2); err != nil {
		t.Fatal(err)
	}
	if _, err := readLexSnapshot(vdir, ix.token+"-later"); !errors.Is(err, errStaleSnapshot) {
		t.Errorf("another state's token: want the stale error from the head, got %v", err)
	}
	if _, err := readLexSnapshot(vdir, ix.token); err == nil || errors.Is(err, errStaleSnapshot) {
		t.Errorf("this state's token over a cut snapshot: want it damaged, got %v", err)
	}
}

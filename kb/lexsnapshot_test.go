package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

func zipfStore(t *testing.T, docs int) (*Workspace, *Store) {
	t.Helper()
	ws, store := openTestStore(t)
	r := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(r, 1.1, 2, 300)
	for d := range docs {
		secs := make([]load.Section, 8)
		for i := range secs {
			secs[i] = load.Section{Number: fmt.Sprint(i + 1), Heading: zipfText(r, z, 2), Text: zipfText(r, z, 20)}
		}
		addTestDoc(t, store, fmt.Sprintf("d%02d", d), []string{"left", "right"}[d%2], secs...)
	}
	return ws, store
}

// A store opened on a workspace whose index was read before reads the snapshot instead of
// warren.db, and gets the same index; after a write, the snapshot is stale and warren.db is
// read again (and the snapshot replaced).
func TestLexicalSnapshotOpensTheSameIndex(t *testing.T) {
	ws, first := zipfStore(t, 12)
	ctx := context.Background()
	if _, err := first.lexicalIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st := first.LexicalStats(); st.Loads != 1 || st.SnapshotReads != 0 {
		t.Fatalf("the first read must be of warren.db: %+v", st)
	}
	second := NewStore(ws)
	if _, err := second.lexicalIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st := second.LexicalStats(); st.Loads != 0 || st.SnapshotReads != 1 {
		t.Fatalf("a second store must read the snapshot: %+v", st)
	}
	for _, q := range []string{"word2x word7x", "word40x", "word3x word150x word9x"} {
		a, err := first.Lexical(ctx, q, "en", chunk.Scope{Collections: []string{"left"}}, 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := second.Lexical(ctx, q, "en", chunk.Scope{Collections: []string{"left"}}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("%q: %v from warren.db, %v from the snapshot", q, a, b)
		}
	}

	addTestDoc(t, first, "late", "left", load.Section{Number: "1", Text: "xenon"})
	third := NewStore(ws)
	hits, err := third.Lexical(ctx, "xenon", "en", chunk.Scope{}, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("after a write the stale snapshot must not answer: %v %v", hits, err)
	}
	if st := third.LexicalStats(); st.Loads != 1 || st.SnapshotReads != 0 {
		t.Fatalf("after a write warren.db must be read: %+v", st)
	}
	fourth := NewStore(ws)
	if _, err := fourth.lexicalIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st := fourth.LexicalStats(); st.SnapshotReads != 1 {
		t.Fatalf("the read after the write must have replaced the snapshot: %+v", st)
	}
}

// A damaged or cut snapshot is never used: warren.db is read instead, with no error.
func TestADamagedLexicalSnapshotIsReadFromWarrenDB(t *testing.T) {
	ws, store := zipfStore(t, 6)
	ctx := context.Background()
	want, err := store.Lexical(ctx, "word2x word7x", "en", chunk.Scope{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	path := lexical.SnapshotPath(store.vdir)
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
		s := NewStore(ws)
		got, err := s.Lexical(ctx, "word2x word7x", "en", chunk.Scope{}, 10)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st := s.LexicalStats(); st.Loads != 1 || st.SnapshotReads != 0 {
			t.Errorf("%s: the snapshot must not be used: %+v", name, st)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// Two databases that reached the same generations and totals with other words (a workspace
// initialised again and indexed with a typo fixed) have other tokens, so the snapshot of one
// never answers for the other.
func TestTheSnapshotOfAnotherDatabaseIsNotTaken(t *testing.T) {
	ctx := context.Background()
	_, a := openTestStore(t)
	addTestDoc(t, a, "doc", "c", load.Section{Number: "1", Text: "nitrogen purge"})
	if _, err := a.lexicalIndex(ctx); err != nil {
		t.Fatal(err)
	}
	_, b := openTestStore(t)
	addTestDoc(t, b, "doc", "c", load.Section{Number: "1", Text: "argon purge"})
	snapshot, err := os.ReadFile(lexical.SnapshotPath(a.vdir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lexical.SnapshotPath(b.vdir), snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	hits, err := b.Lexical(ctx, "argon", "en", chunk.Scope{}, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("the other database's snapshot answered: %v %v (%+v)", hits, err, b.LexicalStats())
	}
}

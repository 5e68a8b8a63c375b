package kb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// sameIndex fails unless two indexes hold the same tables.
func sameIndex(t *testing.T, got, want *lexIndex) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"token", got.token, want.token}, {"totals", got.totals, want.totals}, {"ids", got.ids, want.ids},
		{"terms", got.terms, want.terms}, {"info", got.info, want.info}, {"postings", got.postings, want.postings},
		{"postingsAt", got.postingsAt, want.postingsAt}, {"entries", got.entries, want.entries},
		{"chunks", got.chunks, want.chunks}, {"lengths", got.lengths, want.lengths},
		{"collections", got.collections, want.collections}, {"docs", got.docs, want.docs},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s differs between the snapshot and warren.db", f.name)
		}
	}
}

func zipfStore(t *testing.T, docs int) (*Workspace, *Store) {
	t.Helper()
	ws, store := openTestStore(t)
	r := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(r, 1.1, 2, 300)
	for d := range docs {
		secs := make([]Section, 8)
		for i := range secs {
			secs[i] = Section{Number: fmt.Sprint(i + 1), Heading: zipfText(r, z, 2), Text: zipfText(r, z, 20)}
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
	fromDB, err := first.lexicalIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := first.LexicalStats(); st.Loads != 1 || st.SnapshotReads != 0 {
		t.Fatalf("the first read must be of warren.db: %+v", st)
	}
	second := NewStore(ws)
	fromSnapshot, err := second.lexicalIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := second.LexicalStats(); st.Loads != 0 || st.SnapshotReads != 1 {
		t.Fatalf("a second store must read the snapshot: %+v", st)
	}
	sameIndex(t, fromSnapshot, fromDB)
	for _, q := range []string{"word2x word7x", "word40x", "word3x word150x word9x"} {
		a, err := first.Lexical(ctx, q, "en", Scope{Collections: []string{"left"}}, 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := second.Lexical(ctx, q, "en", Scope{Collections: []string{"left"}}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("%q: %v from warren.db, %v from the snapshot", q, a, b)
		}
	}

	addTestDoc(t, first, "late", "left", Section{Number: "1", Text: "xenon"})
	third := NewStore(ws)
	hits, err := third.Lexical(ctx, "xenon", "en", Scope{}, 10)
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
	want, err := store.lexicalIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := lexSnapshotPath(store.vdir)
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
		got, err := s.lexicalIndex(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st := s.LexicalStats(); st.Loads != 1 || st.SnapshotReads != 0 {
			t.Errorf("%s: the snapshot must not be used: %+v", name, st)
		}
		sameIndex(t, got, want)
	}
}

// Two databases that reached the same generations and totals with other words (a workspace
// initialised again and indexed with a typo fixed) have other tokens, so the snapshot of one
// never answers for the other.
func TestTheSnapshotOfAnotherDatabaseIsNotTaken(t *testing.T) {
	ctx := context.Background()
	_, a := openTestStore(t)
	addTestDoc(t, a, "doc", "c", Section{Number: "1", Text: "nitrogen purge"})
	if _, err := a.lexicalIndex(ctx); err != nil {
		t.Fatal(err)
	}
	_, b := openTestStore(t)
	addTestDoc(t, b, "doc", "c", Section{Number: "1", Text: "argon purge"})
	snapshot, err := os.ReadFile(lexSnapshotPath(a.vdir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lexSnapshotPath(b.vdir), snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	hits, err := b.Lexical(ctx, "argon", "en", Scope{}, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("the other database's snapshot answered: %v %v (%+v)", hits, err, b.LexicalStats())
	}
}

// A temporary file that a process which died before its rename left behind is removed by the
// next write of the snapshot; one written a moment ago (another process's write in progress)
// is left alone.
func TestASnapshotWriteRemovesTheTempFilesOfDeadWrites(t *testing.T) {
	ws, store := zipfStore(t, 2)
	vdir := ws.VectorDir()
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
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
	if _, err := store.lexicalIndex(context.Background()); err != nil { // reads warren.db, writes the snapshot
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the dead write's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a write in progress lost its temporary file: %v", err)
	}
	if _, err := os.Stat(lexSnapshotPath(vdir)); err != nil {
		t.Errorf("no snapshot written: %v", err)
	}
}

// A snapshot of another state of the database, as every write leaves one, is told by its head
// alone: even cut short, it answers stale, not damaged, for another token.
func TestAStaleSnapshotIsToldByItsHead(t *testing.T) {
	ws, store := zipfStore(t, 2)
	ix, err := store.lexicalIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	vdir := ws.VectorDir()
	if got, err := readLexSnapshot(vdir, ix.token); err != nil || got.token != ix.token {
		t.Fatalf("the snapshot just written must be read: %v", err)
	}
	path := lexSnapshotPath(vdir)
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

package weaviatekb

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// The rules of keeping figures between searches, without a server: a figure read under a list
// of collections is kept only after a list read that began once the figure was read saw the
// same list; another list, a write in progress or this process's own write drops it.
func TestKeptFiguresNeedAListReadBeforeAndAfter(t *testing.T) {
	cols := []collectionObject{{Name: "a", Embedder: "builtin", Dim: 8, Version: newVersion(false)}}
	k := newSnapshot(cols)
	var c readCache
	t0 := time.Now()
	df := func() map[string]int64 { return map[string]int64{"pump": 3} }
	kept := func(s *snapshot) bool {
		out := map[string]int64{}
		return len(c.keptFrequencies(s, []string{"pump"}, out)) == 0 && out["pump"] == 3
	}

	c.remember(k, t0, pendingRead{df: df()})
	c.observe(k, t0.Add(time.Second))
	if kept(k) {
		t.Fatal("a figure read before any list was seen was kept")
	}

	c.remember(k, t0.Add(2*time.Second), pendingRead{df: df()})
	c.observe(k, t0.Add(time.Second)) // began before the figure was read
	if kept(k) {
		t.Fatal("a list read that began before the figure's read confirmed it")
	}
	c.observe(k, t0.Add(3*time.Second))
	if !kept(k) {
		t.Fatal("a list read after the figure's read did not keep it")
	}

	written := cols[0]
	written.Version = newVersion(false)
	k2 := newSnapshot([]collectionObject{written})
	if k2.key == k.key {
		t.Fatal("a new version left the list's key as it was")
	}
	c.observe(k2, t0.Add(4*time.Second))
	if kept(k) || kept(k2) {
		t.Fatal("a figure was kept across a write")
	}

	writing := written
	writing.Version = newVersion(true)
	k3 := newSnapshot([]collectionObject{writing})
	if !k3.writing || k2.writing {
		t.Fatalf("writing %v for %q, %v for %q", k3.writing, writing.Version, k2.writing, written.Version)
	}
	c.observe(k3, t0.Add(5*time.Second))
	c.remember(k3, t0.Add(6*time.Second), pendingRead{df: df()})
	c.observe(k3, t0.Add(7*time.Second))
	if kept(k3) {
		t.Fatal("a figure read while a collection was being written was kept")
	}

	c.observe(k2, t0.Add(8*time.Second))
	totals := lexical.Totals{Chunks: 4, Heading: 5, Body: 6}
	c.remember(k2, t0.Add(9*time.Second), pendingRead{totals: &totals, df: df(), counts: map[string]docCounts{"a": {1, 4}}})
	c.observe(k2, t0.Add(10*time.Second))
	if got, ok := c.keptTotals(k2); !ok || got != totals || !kept(k2) {
		t.Fatalf("totals %+v %v", got, ok)
	}
	if got, ok := c.keptCounts(k2); !ok || got["a"] != (docCounts{1, 4}) {
		t.Fatalf("document counts %+v %v", got, ok)
	}
	c.invalidate()
	if _, ok := c.keptTotals(k2); ok || kept(k2) || c.current() != nil {
		t.Fatal("figures outlived this process's own write")
	}
}

// Against a server: a search keeps what it counted for the next one, and a write by another
// process (a second backend on the same classes) is seen by the next search, which ranks as a
// backend that kept nothing does. A write that never finished stops the keeping.
func TestKeptFiguresFollowAnotherWriter(t *testing.T) {
	wv := sampleOnServer(t)
	ctx := context.Background()
	const query = "helium leak check of the gas cabinet"
	search := func(b *Backend) []chunk.Hit {
		t.Helper()
		hits, err := b.Lexical(ctx, query, "", chunk.Scope{}, 10)
		if err != nil || len(hits) == 0 {
			t.Fatalf("%v %v", hits, err)
		}
		return hits
	}
	first := search(wv)
	search(wv) // its list read confirms what the first search counted
	counted := wv.termCounts.Load()
	if again := search(wv); !slices.Equal(again, first) || wv.termCounts.Load() != counted {
		t.Fatalf("a repeated search counted %d terms again and found %v, first %v", wv.termCounts.Load()-counted, again, first)
	}

	other := openAgain(t, wv, nil)
	if _, err := kb.AddDocument(ctx, other, heliumNote(), kb.Builtin{}, load.ChunkOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	after, fresh := search(wv), search(openAgain(t, wv, nil))
	if !slices.Equal(after, fresh) {
		t.Errorf("after another process's write:\nkept  %v\nfresh %v", after, fresh)
	}
	if slices.Equal(after, first) {
		t.Error("the other process's write changed no score: the test cannot tell kept figures from fresh ones")
	}

	cols, err := other.collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dead := cols[0]
	dead.Version = newVersion(true)
	if err := other.put(ctx, []*models.Object{collectionObj(other, dead)}); err != nil {
		t.Fatal(err)
	}
	search(wv)
	search(wv)
	counted = wv.termCounts.Load()
	if search(wv); wv.termCounts.Load() == counted {
		t.Error("figures were kept while a collection was marked as being written")
	}
}

// A knowledge base written by a warren before collections had versions gets the property
// when it is opened, and its schema then passes the check.
func TestOpenAddsTheVersionToAnEarlierSchema(t *testing.T) {
	opts := testServer(t)
	wv := openTestBackend(t, opts)
	ctx := context.Background()
	if err := wv.client.Schema().ClassDeleter().WithClassName(wv.collectionClass()).Do(ctx); err != nil {
		t.Fatal(err)
	}
	earlier := wv.collectionSchema()
	earlier.Properties = slices.DeleteFunc(earlier.Properties, func(p *models.Property) bool { return p.Name == "version" })
	if err := wv.client.Schema().ClassCreator().WithClass(earlier).Do(ctx); err != nil {
		t.Fatal(err)
	}
	wv.cache.invalidate()
	if _, err := wv.Collections(ctx); err == nil {
		t.Fatal("collections were listed with a version the class does not have")
	}
	again := openAgain(t, wv, nil)
	if problems, err := again.CheckSchema(ctx); err != nil || len(problems) != 0 {
		t.Fatalf("after opening: %v %v", problems, err)
	}
	if _, err := again.Collections(ctx); err != nil {
		t.Fatal(err)
	}
}

// sampleOnServer is the sample workspace ingested into a knowledge base of its own on the
// test server.
func sampleOnServer(t *testing.T) *Backend {
	t.Helper()
	wv := openTestBackend(t, testServer(t))
	ingestInto(t, wv, registryItems(t, filepath.Join(testkb.SampleDir(), "registry.json")))
	return wv
}

// heliumNote is a document that another process adds to the sample, changing the scores of
// the helium queries.
func heliumNote() *load.Document {
	return &load.Document{ID: "standards/helium-note.md", Collection: "standards", Title: "Helium note", Language: "en",
		Format: "markdown", Source: "/nowhere/helium-note.md", Meta: map[string]string{},
		Sections: []load.Section{{Heading: "Helium leak check", Text: "Each gas cabinet gets a helium leak check after every cylinder change."}}}
}

// stampCollection gives a collection a new clean version, as the end of a write does, so that
// searches see the list change.
func stampCollection(t *testing.T, b *Backend, name string) {
	t.Helper()
	cols, err := b.collections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		if c.Name == name {
			c.Version = newVersion(false)
			if err := b.put(context.Background(), []*models.Object{collectionObj(b, c)}); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no collection %s", name)
}

// unchangedFor counts from the first list read that saw the list, and starts again when the
// list changes or this process writes.
func TestUnchangedForCountsFromTheFirstReadOfTheList(t *testing.T) {
	var c readCache
	a := newSnapshot([]collectionObject{{Name: "a", Version: newVersion(false)}})
	b := newSnapshot([]collectionObject{{Name: "a", Version: newVersion(false)}})
	if c.unchangedFor(a) != 0 {
		t.Fatal("a list never seen has not stayed the same")
	}
	c.observe(a, time.Now().Add(-time.Minute))
	c.observe(a, time.Now())
	if d := c.unchangedFor(a); d < 59*time.Second {
		t.Errorf("seen for a minute, unchanged for %s", d)
	}
	c.observe(b, time.Now())
	if c.unchangedFor(a) != 0 || c.unchangedFor(b) > time.Second {
		t.Errorf("after the list changed: %s and %s", c.unchangedFor(a), c.unchangedFor(b))
	}
	c.invalidate()
	if c.unchangedFor(b) != 0 {
		t.Error("after this process's write the list still counts as unchanged")
	}
}

package weaviatekb

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

func TestTermChunksCountEachChunkOnce(t *testing.T) {
	v := termChunks([][2]string{
		{"helium leak", "helium leak check helium"},
		{"", "leak of silane"},
		{"", ""},
	})
	if !strings.HasPrefix(v, termChunksHeader) {
		t.Fatalf("no header: %q", v)
	}
	table := map[string]int64{"silane": 1}
	if !addTermChunks(v, table) {
		t.Fatalf("couldn't read back %q", v)
	}
	want := map[string]int64{"helium": 1, "leak": 2, "check": 1, "of": 1, "silane": 2}
	if !maps.Equal(table, want) {
		t.Errorf("got %v, want %v", table, want)
	}
	if !addTermChunks(termChunks(nil), map[string]int64{}) {
		t.Error("a document without terms must still count as read")
	}
	for _, bad := range []string{"", "helium 1\n", termChunksHeader + "helium\n", termChunksHeader + "helium x\n",
		termChunksHeader + " 3\n", termChunksHeader + "helium 1\nleak\n"} {
		table := map[string]int64{}
		if addTermChunks(bad, table) || len(table) > 0 {
			t.Errorf("%q was read as a term list: %v", bad, table)
		}
	}
}

// The tests read the term table as soon as a search sees a list of collections;
// TestTheTermTableWaitsForTheListToSettle sets the wait itself.
func init() { termTableSettle = 0 }

// searchUntilTableKept searches until the term table is kept for the list of collections as
// it is now and a search used it: the first search starts reading it, and a list read after
// the read ends confirms it. (A search also runs over the list seen before while it reads the
// list again, so a table used is not enough: it may be the table of a list that just changed.)
func searchUntilTableKept(t *testing.T, b *Backend, query string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		_, kept := b.cache.keptTable(b.cache.current())
		used := b.TermTableStats().Used
		if _, err := b.Lexical(ctx, query, "", chunk.Scope{}, 10); err != nil {
			t.Fatal(err)
		}
		if _, still := b.cache.keptTable(b.cache.current()); kept && still && b.TermTableStats().Used > used {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no search used the term table within a minute: %+v", b.TermTableStats())
		}
		if err := b.WaitTermTable(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// While the list of collections keeps changing (an ingest writes document after document),
// no table is read; once it has stayed the same for termTableSettle, the next search reads it.
func TestTheTermTableWaitsForTheListToSettle(t *testing.T) {
	wv := sampleOnServer(t)
	ctx := context.Background()
	defer func(d time.Duration) { termTableSettle = d }(termTableSettle)
	termTableSettle = time.Hour
	for range 3 {
		if _, err := wv.Lexical(ctx, "helium leak check", "", chunk.Scope{}, 10); err != nil {
			t.Fatal(err)
		}
	}
	wv.tableMu.Lock()
	reading := wv.tableReading
	wv.tableMu.Unlock()
	if st := wv.TermTableStats(); reading || st.Built+st.Failed+st.Used > 0 {
		t.Fatalf("a table was read before the list settled: reading %v, %+v", reading, st)
	}
	termTableSettle = 0
	searchUntilTableKept(t, wv, "helium leak check")
	if st := wv.TermTableStats(); st.Built != 1 {
		t.Errorf("want one table read once the list settled: %+v", st)
	}
}

// The table's frequencies are the server's own counts, for every term of the sample workspace
// and for a term found nowhere, before and after another process writes, and with a record
// without its terms (as an earlier warren wrote them); chunks without a record leave the table
// unused and the counts right.
func TestTermTableEqualsTheServersCounts(t *testing.T) {
	wv := sampleOnServer(t)
	ctx := context.Background()
	const query = "helium leak check of the gas cabinet"

	sameAsCounted := func(t *testing.T) {
		t.Helper()
		searchUntilTableKept(t, wv, query)
		s := wv.cache.current()
		table, ok := wv.cache.keptTable(s)
		if !ok || len(table) < 100 {
			t.Fatalf("no table kept (%d terms)", len(table))
		}
		terms := slices.Sorted(maps.Keys(table))
		terms = append(terms, "zzznowherezzz")
		counted := map[string]int64{}
		if err := wv.frequenciesGraphQL(ctx, s, terms, counted); err != nil {
			t.Fatal(err)
		}
		for _, term := range terms {
			if table[term] != counted[term] {
				t.Errorf("%q: table %d, server %d", term, table[term], counted[term])
			}
		}
		before := wv.termCounts.Load()
		got, err := wv.DocumentFrequencies(ctx, []string{"helium", "zzznowherezzz"})
		if err != nil || got["helium"] != counted["helium"] || got["zzznowherezzz"] != 0 || wv.termCounts.Load() != before {
			t.Errorf("DocumentFrequencies %v %v, %d terms counted on the server", got, err, wv.termCounts.Load()-before)
		}
	}
	sameAsCounted(t)

	other := openAgain(t, wv, nil)
	doc := heliumNote()
	if _, err := kb.AddDocument(ctx, other, doc, kb.Builtin{}, load.ChunkOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	t.Run("after another process wrote", sameAsCounted)

	unusable := func(t *testing.T, spoil func()) {
		t.Helper()
		spoil()
		failed := wv.TermTableStats().Failed
		for range 3 {
			if _, err := wv.Lexical(ctx, query, "", chunk.Scope{}, 10); err != nil {
				t.Fatal(err)
			}
			if err := wv.WaitTermTable(ctx); err != nil {
				t.Fatal(err)
			}
		}
		st := wv.TermTableStats()
		if st.Failed == failed {
			t.Errorf("the table was not found incomplete: %+v", st)
		}
		if _, ok := wv.cache.keptTable(wv.cache.current()); ok {
			t.Error("an incomplete table was kept")
		}
		fresh := openAgain(t, wv, nil)
		got, err := wv.Lexical(ctx, query, "", chunk.Scope{}, 10)
		want, err2 := fresh.Lexical(ctx, query, "", chunk.Scope{}, 10)
		if err != nil || err2 != nil || !slices.Equal(got, want) {
			t.Errorf("counted again: %v %v\nfresh: %v %v", got, err, want, err2)
		}
	}
	t.Run("a record without terms", func(t *testing.T) {
		info, ok, err := other.Document(ctx, doc.ID)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		// The record as a warren before the term table wrote it.
		if err := other.put(ctx, []*models.Object{documentObj(other, doc, info.Chunks, info.Hash, "", "")}); err != nil {
			t.Fatal(err)
		}
		stampCollection(t, other, doc.Collection)
		sameAsCounted(t)
	})
	t.Run("chunks without a record", func(t *testing.T) {
		unusable(t, func() {
			orphan := &models.Object{Class: other.chunkClass(doc.Collection), ID: strfmt.UUID(objectID("chunk", "orphan#1")),
				Properties: map[string]any{"chunk_id": "orphan#1", "doc": "standards/orphan.md", "collection": doc.Collection,
					"heading_terms": "helium", "body_terms": "helium leak", "heading_len": 1, "body_len": 2},
				Vector: make([]float32, 0)}
			vecs, err := kb.Builtin{}.Embed(ctx, []string{"helium leak"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			orphan.Vector = vecs[0]
			if err := other.put(ctx, []*models.Object{orphan}); err != nil {
				t.Fatal(err)
			}
			stampCollection(t, other, doc.Collection)
		})
	})
}

// A record written before its chunks' length sums were (an older warren's) leaves b at
// lexical.FallbackB for its list of collections, and the ranking with it, until its
// document is ingested again.
func TestARecordWithoutLengthSumsFallsBackToTheFixedB(t *testing.T) {
	wv := sampleOnServer(t)
	ctx := context.Background()
	derived, err := wv.LexicalLengthB(ctx, wv.opts.Lexical)
	if err != nil || derived == lexical.FallbackB {
		t.Fatalf("b %v %v: not derived from the lengths", derived, err)
	}
	doc := heliumNote() // of two chunks, so that it has identity terms
	doc.Sections = append(doc.Sections, load.Section{Heading: "Purity", Text: "Helium 5.0 is used for every leak check."})
	if _, err := kb.AddDocument(ctx, wv, doc, kb.Builtin{}, load.ChunkOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	info, ok, err := wv.Document(ctx, doc.ID)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := wv.put(ctx, []*models.Object{documentObj(wv, doc, info.Chunks, info.Hash, "", "")}); err != nil {
		t.Fatal(err)
	}
	stampCollection(t, wv, doc.Collection)
	if b, err := wv.LexicalLengthB(ctx, wv.opts.Lexical); err != nil || b != lexical.FallbackB {
		t.Errorf("with a record without length sums b is %v %v, want %v", b, err, lexical.FallbackB)
	}
	// A record of version 1 (length sums, no identity terms) counts for b; its document
	// names nothing until it is ingested again.
	chunks, err := wv.DocumentChunks(ctx, doc.ID)
	if err != nil || len(chunks) < 2 {
		t.Fatalf("the note's chunks: %d %v", len(chunks), err)
	}
	var terms [][2]string
	for _, c := range chunks {
		h, body := kb.IndexedTerms(c, doc)
		terms = append(terms, [2]string{h, body})
	}
	current := lengthSumsText(terms)
	v1, _, _ := strings.Cut(strings.Replace(current, lengthSumsHeader, lengthSumsHeaderV1, 1), identityPrefix)
	if v1 == current || !strings.Contains(current, identityPrefix) {
		t.Fatalf("the note's length sums carry no identity terms: %q", current)
	}
	if err := wv.put(ctx, []*models.Object{documentObj(wv, doc, info.Chunks, info.Hash, "", v1)}); err != nil {
		t.Fatal(err)
	}
	stampCollection(t, wv, doc.Collection)
	if b, err := wv.LexicalLengthB(ctx, wv.opts.Lexical); err != nil || b == lexical.FallbackB {
		t.Errorf("with a record of version 1 b is %v %v, want it derived", b, err)
	}
	if ids, err := wv.LexicalIdentities(ctx); err != nil || ids.Of(doc.ID) != nil || len(ids.Documents()) == 0 {
		t.Errorf("with a record of version 1 the note's identity is %q (%v); documents with one: %d", ids.Of(doc.ID), err, len(ids.Documents()))
	}
	// Ingested again, it counts.
	if _, err := kb.AddDocument(ctx, wv, doc, kb.Builtin{}, load.ChunkOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := wv.LexicalLengthB(ctx, wv.opts.Lexical); err != nil || b == lexical.FallbackB {
		t.Errorf("after the document was ingested again b is %v %v", b, err)
	}
	if ids, err := wv.LexicalIdentities(ctx); err != nil || len(ids.Of(doc.ID)) == 0 {
		t.Errorf("after the document was ingested again its identity is %q %v", ids.Of(doc.ID), err)
	}
}

package weaviatekb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
)

// The file times of the tests: nanoseconds beyond 2^53, which a float64 would round, and a
// size beyond 32 bits, which GraphQL would not give back as an int.
const (
	bigSize  = int64(5)<<30 + 7
	bigMtime = int64(1764388123456789012)
)

// testDoc is a small document of n chunks in a collection; each chunk's text holds a word of
// its own (wordOf) and its vector is random but fixed by the chunk's ID.
func testDoc(id, collection, hash string, n int) kb.DocumentWrite {
	doc := &load.Document{ID: id, Collection: collection, Title: "Title of " + id, Source: "/docs/" + id + ".txt",
		Format: "text", Language: "en", Hash: hash, Meta: map[string]string{"k": id}, Size: bigSize + int64(n), ModTime: bigMtime + int64(len(id))}
	w := kb.DocumentWrite{Doc: doc}
	for i := range n {
		c := chunk.Chunk{ID: chunk.ID(id, i), Doc: id, Collection: collection, Section: "1", SectionPath: "1", Heading: "Intro",
			Text: "The " + wordOf(id, i) + " valve of the pump.", Hash: hash, Seq: i}
		w.Chunks = append(w.Chunks, c)
		w.Vectors = append(w.Vectors, testVector(c.ID))
	}
	return w
}

// wordOf is a made-up word only one chunk holds: letters, which warren's analyser keeps.
func wordOf(id string, seq int) string {
	var b strings.Builder
	b.WriteString("zq")
	for _, r := range fmt.Sprintf("%s%d", id, seq) {
		b.WriteRune('a' + r%26)
	}
	return b.String()
}

func testVector(key string) []float32 {
	var seed uint64
	for _, r := range key {
		seed = seed*131 + uint64(r)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]float32, 8)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// manyDocs makes n documents d00, d01, … spread over the collections.
func manyDocs(prefix string, n int, collections ...string) []kb.DocumentWrite {
	var out []kb.DocumentWrite
	for i := range n {
		out = append(out, testDoc(fmt.Sprintf("%s%02d", prefix, i), collections[i%len(collections)], "h1", 1+i%3))
	}
	return out
}

// writesOf are the batch writes and deletes among requests.
func writesOf(reqs []fakeRequest) []fakeRequest {
	var out []fakeRequest
	for _, r := range reqs {
		if r.path == "/batch/objects" {
			out = append(out, r)
		}
	}
	return out
}

func describe(reqs []fakeRequest) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "\n  %s %s", r.method, r.path)
		if len(r.objects) > 0 {
			fmt.Fprintf(&b, " (%d objects)", len(r.objects))
		}
		if len(r.deleted) > 0 {
			fmt.Fprintf(&b, " %v", r.deleted)
		}
	}
	return b.String()
}

// Without a server: 50 small documents cost a few requests, two of them writes, and a second
// batch of 50 (their classes known) five: the list of collections, the old records, the
// chunks with the collections' marks, the read of leftovers and the records.
func TestABatchOfDocumentsTakesAFewRequests(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for round, prefix := range []string{"a", "b"} {
		since := f.mark()
		writes := manyDocs(prefix, 50, "alpha", "beta")
		if err := b.ReplaceDocuments(ctx, writes, "test"); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests(since)
		limit := 5
		if round == 0 {
			limit = 9 // and the two chunk classes checked and created
		}
		if len(reqs) > limit || len(writesOf(reqs)) != 2 {
			t.Errorf("round %d: %d requests, %d writes:%s", round, len(reqs), len(writesOf(reqs)), describe(reqs))
		}
	}
	docs, err := b.Documents(ctx, "")
	if err != nil || len(docs) != 100 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	for _, d := range docs {
		w := testDoc(d.ID, d.Collection, "h1", d.Chunks)
		if d.Hash != "h1" || d.Size != w.Doc.Size || d.ModTime != w.Doc.ModTime || d.Meta["k"] != d.ID {
			t.Errorf("%+v", d)
		}
		got, err := b.DocumentChunks(ctx, d.ID)
		if err != nil || !slices.Equal(got, w.Chunks) {
			t.Errorf("%s: chunks %v %v", d.ID, got, err)
		}
	}
}

// rewriteSetup stores d1 (3 chunks) and d2 (2) in alpha and d3 (1) in beta, and returns the
// rewrite the tests make: d1 shrunk to one chunk, d2 moved to beta, d4 new in alpha.
func rewriteSetup(t *testing.T, b *Backend) []kb.DocumentWrite {
	t.Helper()
	first := []kb.DocumentWrite{testDoc("d1", "alpha", "h1", 3), testDoc("d2", "alpha", "h1", 2), testDoc("d3", "beta", "h1", 1)}
	if err := b.ReplaceDocuments(context.Background(), first, "test"); err != nil {
		t.Fatal(err)
	}
	return []kb.DocumentWrite{testDoc("d1", "alpha", "h2", 1), testDoc("d2", "beta", "h2", 2), testDoc("d4", "alpha", "h2", 1)}
}

// chunkIDs lists the chunks stored in a class of the fake.
func chunkIDs(f *fakeWeaviate, class string) []string {
	var out []string
	for _, p := range f.props(class, "chunk_id") {
		out = append(out, str(p["chunk_id"]))
	}
	return out
}

// Without a server: a batch writes in the order ReplaceDocument does, each step once for all
// its documents: marks and the old records without their hashes (nor file size and time),
// the chunks, the leftovers of a shrunk and a moved document, the records with the new hashes
// and the collections' new versions last.
func TestABatchWritesInTheOrderOfOneDocument(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rewrite := rewriteSetup(t, b)
	since := f.mark()
	if err := b.ReplaceDocuments(ctx, rewrite, "test"); err != nil {
		t.Fatal(err)
	}
	writes := writesOf(f.requests(since))
	if len(writes) != 4 {
		t.Fatalf("%d writes:%s", len(writes), describe(writes))
	}
	alpha, beta := b.chunkClass("alpha"), b.chunkClass("beta")

	// 1: both collections marked, d1 and d2 without hash, size and time, d2 still in alpha.
	var marked []string
	for _, o := range writes[0].objects {
		switch o.class {
		case b.collectionClass():
			if !strings.HasPrefix(str(o.props["version"]), writingPrefix) {
				t.Errorf("first write: collection %v not marked", o.props)
			}
			marked = append(marked, str(o.props["name"]))
		case b.documentClass():
			if o.props["hash"] != "" || o.props["size"] != "0" || o.props["mtime"] != "0" || o.props["term_chunks"] != "" {
				t.Errorf("first write: record %v keeps what its old version had", o.props)
			}
			if o.props["doc_id"] == "d2" && o.props["collection"] != "alpha" {
				t.Errorf("first write: d2 recorded in %v before its chunks moved", o.props["collection"])
			}
		default:
			t.Errorf("first write: %s", o.class)
		}
	}
	slices.Sort(marked)
	if !slices.Equal(marked, []string{"alpha", "beta"}) || len(writes[0].objects) != 4 {
		t.Errorf("first write: %d objects, marked %v", len(writes[0].objects), marked)
	}
	// 2: the chunks alone.
	for _, o := range writes[1].objects {
		if o.class != alpha && o.class != beta {
			t.Errorf("second write: %s", o.class)
		}
	}
	if len(writes[1].objects) != 4 {
		t.Errorf("second write: %d chunks", len(writes[1].objects))
	}
	// 3: d1's longer tail and d2's chunks in alpha, in one delete.
	if writes[2].method != "DELETE" || !slices.Equal(writes[2].deleted, []string{"d1#0001", "d1#0002", "d2#0000", "d2#0001"}) {
		t.Errorf("third write: %s %v", writes[2].method, writes[2].deleted)
	}
	// 4: the records with the new hashes, then the collections' new versions.
	var recorded []string
	for _, o := range writes[3].objects {
		switch o.class {
		case b.collectionClass():
			if v := str(o.props["version"]); v == "" || strings.HasPrefix(v, writingPrefix) {
				t.Errorf("last write: collection %v still marked", o.props)
			}
		case b.documentClass():
			if o.props["hash"] != "h2" || o.props["term_chunks"] == "" {
				t.Errorf("last write: record %v", o.props)
			}
			recorded = append(recorded, str(o.props["doc_id"]))
		}
	}
	if !slices.Equal(recorded, []string{"d1", "d2", "d4"}) || len(writes[3].objects) != 5 {
		t.Errorf("last write: %d objects, records %v", len(writes[3].objects), recorded)
	}

	if got := chunkIDs(f, alpha); !slices.Equal(got, []string{"d1#0000", "d4#0000"}) {
		t.Errorf("alpha holds %v", got)
	}
	if got := chunkIDs(f, beta); !slices.Equal(got, []string{"d2#0000", "d2#0001", "d3#0000"}) {
		t.Errorf("beta holds %v", got)
	}
	cols, err := b.Collections(ctx)
	if err != nil || len(cols) != 2 {
		t.Fatalf("%+v %v", cols, err)
	}
}

// Without a server: a document given twice in a batch is stored as given last.
func TestADocumentTwiceInABatchIsStoredAsGivenLast(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	last := testDoc("d1", "beta", "h2", 1)
	writes := []kb.DocumentWrite{testDoc("d1", "alpha", "h1", 3), testDoc("d2", "alpha", "h1", 1), last}
	if err := b.ReplaceDocuments(ctx, writes, "test"); err != nil {
		t.Fatal(err)
	}
	d, _, err := b.Document(ctx, "d1")
	got, _ := b.DocumentChunks(ctx, "d1")
	if err != nil || d.Hash != "h2" || d.Collection != "beta" || !slices.Equal(got, last.Chunks) {
		t.Errorf("%+v over %v %v", d, got, err)
	}
	if left := chunkIDs(f, b.chunkClass("alpha")); !slices.Equal(left, []string{"d2#0000"}) {
		t.Errorf("alpha holds %v", left)
	}
}

// Without a server: a batch that dies at any of its writes leaves each document whole (its
// record with the new hash over exactly its new chunks, or with the old hash over its old
// ones) or recorded without a hash, size and time, which the next ingest stores again; and a
// batch after it stores them all.
func TestABatchThatDiesLeavesEachDocumentWholeOrUnrecorded(t *testing.T) {
	ctx := context.Background()
	for failAt := 1; ; failAt++ {
		f, opts := newFakeWeaviate(t)
		b, err := Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		old := map[string]kb.DocumentWrite{}
		rewrite := rewriteSetup(t, b)
		for _, w := range []kb.DocumentWrite{testDoc("d1", "alpha", "h1", 3), testDoc("d2", "alpha", "h1", 2)} {
			old[w.Doc.ID] = w
		}
		f.mu.Lock()
		f.failAt = f.writes + failAt
		f.mu.Unlock()
		err = b.ReplaceDocuments(ctx, rewrite, "test")
		if err == nil {
			b.Close()
			if failAt < 4 {
				t.Fatalf("the batch did not fail at its write %d", failAt)
			}
			return
		}
		for _, w := range rewrite {
			id := w.Doc.ID
			rec, ok, err := b.Document(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.DocumentChunks(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !ok && id == "d4":
			case ok && rec.Hash == "h2":
				if !slices.Equal(got, w.Chunks) || rec.Size != w.Doc.Size {
					t.Errorf("failing write %d: %s recorded new over %v", failAt, id, got)
				}
			case ok && rec.Hash == "h1":
				if !slices.Equal(got, old[id].Chunks) || rec.Collection != old[id].Doc.Collection {
					t.Errorf("failing write %d: %s recorded old over %v", failAt, id, got)
				}
			case ok && rec.Hash == "":
				if rec.Size != 0 || rec.ModTime != 0 {
					t.Errorf("failing write %d: %s without hash keeps its file's size and time", failAt, id)
				}
			default:
				t.Errorf("failing write %d: %s recorded as %+v", failAt, id, rec)
			}
		}
		if err := b.ReplaceDocuments(ctx, rewrite, "test"); err != nil {
			t.Fatal(err)
		}
		for _, w := range rewrite {
			rec, _, _ := b.Document(ctx, w.Doc.ID)
			got, _ := b.DocumentChunks(ctx, w.Doc.ID)
			if rec.Hash != "h2" || !slices.Equal(got, w.Chunks) {
				t.Errorf("failing write %d, then again: %s is %+v over %v", failAt, w.Doc.ID, rec, got)
			}
		}
		if got := chunkIDs(f, b.chunkClass("alpha")); !slices.Equal(got, []string{"d1#0000", "d4#0000"}) {
			t.Errorf("failing write %d, then again: alpha holds %v", failAt, got)
		}
		b.Close()
	}
}

// Without a server: TouchDocument changes a record's file size and time alone, with one
// request, and leaves a document that is not stored alone.
func TestTouchDocumentRecordsTheFileAlone(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	w := testDoc("d1", "alpha", "h1", 2)
	if err := b.ReplaceDocuments(ctx, []kb.DocumentWrite{w}, "test"); err != nil {
		t.Fatal(err)
	}
	before, _, _ := b.Document(ctx, "d1")
	since := f.mark()
	if err := b.TouchDocument(ctx, "d1", bigSize*3, bigMtime+1); err != nil {
		t.Fatal(err)
	}
	if reqs := f.requests(since); len(reqs) != 1 || reqs[0].method != "PATCH" {
		t.Errorf("touch:%s", describe(reqs))
	}
	after, _, err := b.Document(ctx, "d1")
	if err != nil || after.Size != bigSize*3 || after.ModTime != bigMtime+1 {
		t.Fatalf("%+v %v", after, err)
	}
	after.Size, after.ModTime = before.Size, before.ModTime
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("touch changed more:\n%+v\n%+v", before, after)
	}
	if err := b.TouchDocument(ctx, "nowhere", 1, 2); err != nil {
		t.Errorf("touching a document not stored: %v", err)
	}
}

// Without a server: a document class an earlier warren created gains the file's size and
// time on Open, and its records read as 0.
func TestAnOldDocumentClassGainsSizeAndTime(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b := &Backend{opts: opts}
	want := b.documentSchema()
	oldClass := *want
	oldClass.Properties = slices.DeleteFunc(slices.Clone(want.Properties), func(p *models.Property) bool {
		return p.Name == "size" || p.Name == "mtime"
	})
	f.classes[oldClass.Class] = &oldClass
	props := documentObj(b, testDoc("d1", "alpha", "h1", 0).Doc, 0, "h1", "", "").Properties.(map[string]any)
	delete(props, "size")
	delete(props, "mtime")
	f.objects[oldClass.Class] = map[string]fakeObject{objectID("document", "d1"): {props: props}}

	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if missing := missingProperties(want.Properties, f.classes[want.Class]); len(missing) > 0 {
		t.Errorf("Open left out %v", missing)
	}
	d, ok, err := b.Document(ctx, "d1")
	if err != nil || !ok || d.Hash != "h1" || d.Size != 0 || d.ModTime != 0 {
		t.Errorf("an old record: %+v %v %v", d, ok, err)
	}
}

// A record's file size and time come back exactly from both kinds of read: GraphQL (JSON,
// null in an old record) and gRPC (typed values).
func TestRecordSizeAndTimeSurviveTheReads(t *testing.T) {
	b := &Backend{opts: Options{ClassPrefix: DefaultClassPrefix}}
	w := testDoc("d1", "alpha", "h1", 0)
	props := documentObj(b, w.Doc, 0, "h1", "", "").Properties.(map[string]any)
	d := documentObject{DocID: "d1", Size: str(props["size"]), ModTime: str(props["mtime"])}.info()
	if d.Size != w.Doc.Size || d.ModTime != w.Doc.ModTime {
		t.Errorf("got %d %d, want %d %d", d.Size, d.ModTime, w.Doc.Size, w.Doc.ModTime)
	}
	inSchema := map[string]bool{}
	for _, p := range b.documentSchema().Properties {
		inSchema[p.Name] = true
	}
	for name := range props {
		if !inSchema[name] {
			t.Errorf("writes set %s, which the schema lacks", name)
		}
	}
	for _, name := range documentPropertyList {
		if !inSchema[name] {
			t.Errorf("reads ask for %s, which the schema lacks", name)
		}
	}
}

// The vectors of a batch are checked before anything is written: one document's chunks and
// vectors, and the documents of one collection, agree.
func TestABatchChecksItsVectors(t *testing.T) {
	w := testDoc("d1", "alpha", "h1", 2)
	short := testDoc("d2", "alpha", "h1", 1)
	short.Vectors[0] = short.Vectors[0][:4]
	bad := []struct {
		name   string
		writes []kb.DocumentWrite
	}{
		{"a vector missing", []kb.DocumentWrite{{Doc: w.Doc, Chunks: w.Chunks, Vectors: w.Vectors[:1]}}},
		{"lengths within a document", []kb.DocumentWrite{{Doc: w.Doc, Chunks: w.Chunks, Vectors: [][]float32{w.Vectors[0], w.Vectors[1][:4]}}}},
		{"lengths within a collection", []kb.DocumentWrite{w, short}},
	}
	for _, c := range bad {
		if _, err := collectionDims(c.writes); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	other := short
	other.Doc = &load.Document{ID: "d2", Collection: "beta"}
	dims, err := collectionDims([]kb.DocumentWrite{testDoc("d0", "alpha", "h", 0), w, other, testDoc("d3", "gamma", "h", 0)})
	if err != nil || dims["alpha"] != 8 || dims["beta"] != 4 || dims["gamma"] != 0 || len(dims) != 3 {
		t.Errorf("%v %v", dims, err)
	}
}

// The reads of leftovers are split so that none meets more chunks than a filtered read gives.
func TestLeftoverReadsStayUnderTheLimit(t *testing.T) {
	writes := []kb.DocumentWrite{testDoc("a", "c", "h", 3), testDoc("b", "c", "h", 1), testDoc("big", "c", "h", 2)}
	old := map[string]kb.DocInfo{"a": {Chunks: leftoverChunks - 5}, "big": {Chunks: leftoverChunks * 2}}
	groups := leftoverGroups(writes, old)
	if len(groups) != 2 || len(groups[0]) != 2 || groups[1]["big"] != "c" {
		t.Errorf("%v", groups)
	}
	if g := leftoverGroups(manyDocs("d", 50, "c"), nil); len(g) != 1 || len(g[0]) != 50 {
		t.Errorf("50 small documents read in %d groups", len(g))
	}
}

// Without a server: a batch of long objects is split by size as well as by number.
func TestPutSplitsLongObjects(t *testing.T) {
	f, opts := newFakeWeaviate(t)
	ctx := context.Background()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	long := strings.Repeat("x", 6<<20)
	var objs []*models.Object
	for i := range 5 {
		objs = append(objs, &models.Object{Class: b.documentClass(), ID: strfmt.UUID(objectID("document", fmt.Sprint(i))),
			Properties: map[string]any{"doc_id": fmt.Sprint(i), "meta": long}})
	}
	since := f.mark()
	if err := b.put(ctx, objs); err != nil {
		t.Fatal(err)
	}
	writes := writesOf(f.requests(since))
	if len(writes) != 3 || len(writes[0].objects) != 2 || len(writes[2].objects) != 1 {
		t.Errorf("%d writes:%s", len(writes), describe(writes))
	}
}

// Against a server: 50 documents in one batch over two collections are all stored, searchable
// by their words and vectors, with their files' size and time; TouchDocument changes those; a
// second batch shrinks one document and moves another between collections, and both batches
// take a few requests (counted over REST).
func TestReplaceDocumentsOnAServer(t *testing.T) {
	b := openTestBackend(t, testServer(t))
	ctx := context.Background()
	var rest countingTransport
	overREST := openAgain(t, b, func(o *Options) { o.transport, o.GRPC = &rest, "" })

	writes := manyDocs("d", 50, "alpha", "beta")
	rest.n.Store(0)
	if err := overREST.ReplaceDocuments(ctx, writes, "test"); err != nil {
		t.Fatal(err)
	}
	// 5, and 2 for each new collection: its chunk class checked and created.
	if n := rest.n.Load(); n > 9 {
		t.Errorf("50 new documents took %d requests", n)
	}
	t.Logf("50 new documents in 2 new collections: %d requests", rest.n.Load())
	readers := []*Backend{b, overREST} // gRPC (when the server has it) and REST
	ids := make([]string, len(writes))
	for i, w := range writes {
		ids[i] = w.Doc.ID
	}
	for _, r := range readers {
		docs, err := r.Documents(ctx, "")
		if err != nil || len(docs) != 50 {
			t.Fatalf("%d documents, %v", len(docs), err)
		}
		// The old records of a batch are found in one read.
		if found, err := r.documentsByID(ctx, ids); err != nil || len(found) != 50 {
			t.Fatalf("%d records by ID, %v", len(found), err)
		}
	}
	for _, w := range writes {
		for _, r := range readers {
			d, ok, err := r.Document(ctx, w.Doc.ID)
			if err != nil || !ok || d.Hash != "h1" || d.Size != w.Doc.Size || d.ModTime != w.Doc.ModTime || d.Chunks != len(w.Chunks) {
				t.Fatalf("%s: %+v %v %v", w.Doc.ID, d, ok, err)
			}
		}
		got, err := b.DocumentChunks(ctx, w.Doc.ID)
		if err != nil || !slices.Equal(got, w.Chunks) {
			t.Fatalf("%s: chunks %v %v", w.Doc.ID, got, err)
		}
		last := w.Chunks[len(w.Chunks)-1]
		hits, err := b.Lexical(ctx, wordOf(w.Doc.ID, last.Seq), "en", chunk.Scope{}, 3)
		if err != nil || len(hits) == 0 || hits[0].ChunkID != last.ID {
			t.Errorf("%s by its word: %v %v", last.ID, hits, err)
		}
		hits, err = b.Dense(ctx, w.Vectors[0], chunk.Scope{}, 1)
		if err != nil || len(hits) != 1 || hits[0].ChunkID != w.Chunks[0].ID {
			t.Errorf("%s by its vector: %v %v", w.Chunks[0].ID, hits, err)
		}
	}

	if err := overREST.TouchDocument(ctx, "d07", 42, bigMtime+99); err != nil {
		t.Fatal(err)
	}
	if err := overREST.TouchDocument(ctx, "nowhere", 1, 2); err != nil {
		t.Errorf("touching a document not stored: %v", err)
	}
	for _, r := range readers {
		if d, _, err := r.Document(ctx, "d07"); err != nil || d.Size != 42 || d.ModTime != bigMtime+99 || d.Hash != "h1" {
			t.Errorf("touched: %+v %v", d, err)
		}
	}

	// d00 (alpha, 1 chunk) grows to 3 chunks and moves to beta; d02 (alpha, 3) shrinks to 1.
	rest.n.Store(0)
	again := []kb.DocumentWrite{testDoc("d00", "beta", "h2", 3), testDoc("d02", "alpha", "h2", 1), testDoc("new", "alpha", "h2", 2)}
	if err := overREST.ReplaceDocuments(ctx, again, "test"); err != nil {
		t.Fatal(err)
	}
	// 7: the list of collections, the old records, the marks and old records without
	// their hashes, the chunks, the read of leftovers, one delete (alpha), the records.
	if n := rest.n.Load(); n > 7 {
		t.Errorf("a rewrite of 3 documents took %d requests", n)
	}
	t.Logf("a rewrite of 3 documents, one moved, one shrunk: %d requests", rest.n.Load())
	for _, w := range again {
		got, err := b.DocumentChunks(ctx, w.Doc.ID)
		d, _, _ := b.Document(ctx, w.Doc.ID)
		if err != nil || !slices.Equal(got, w.Chunks) || d.Collection != w.Doc.Collection || d.Hash != "h2" {
			t.Errorf("%s: %+v over %v %v", w.Doc.ID, d, got, err)
		}
	}
	if got, err := b.Chunks(ctx, []string{"d00#0000", "d02#0001", "d02#0002"}); err != nil || len(got) != 1 || got[0].Collection != "beta" {
		t.Errorf("leftovers: %+v %v", got, err)
	}
	cols, err := b.Collections(ctx)
	if err != nil || len(cols) != 2 || cols[0].Documents != 25 || cols[1].Documents != 26 {
		t.Errorf("%+v %v", cols, err)
	}
}

// Against a server: a document class an earlier warren created, without the file's size and
// time, gains them on Open; its records read as 0 until touched or written again.
func TestAnOldDocumentClassGainsSizeAndTimeOnAServer(t *testing.T) {
	b := openTestBackend(t, testServer(t))
	ctx := context.Background()
	if err := b.client.Schema().ClassDeleter().WithClassName(b.documentClass()).Do(ctx); err != nil {
		t.Fatal(err)
	}
	want := b.documentSchema()
	oldClass := *want
	oldClass.Properties = slices.DeleteFunc(slices.Clone(want.Properties), func(p *models.Property) bool {
		return p.Name == "size" || p.Name == "mtime"
	})
	if err := b.client.Schema().ClassCreator().WithClass(&oldClass).Do(ctx); err != nil {
		t.Fatal(err)
	}
	w := testDoc("d1", "alpha", "h1", 0)
	obj := documentObj(b, w.Doc, 0, "h1", "", "")
	delete(obj.Properties.(map[string]any), "size")
	delete(obj.Properties.(map[string]any), "mtime")
	if err := b.put(ctx, []*models.Object{obj}); err != nil {
		t.Fatal(err)
	}

	again := openAgain(t, b, nil)
	overREST := openAgain(t, b, func(o *Options) { o.GRPC = "" })
	for _, r := range []*Backend{again, overREST} {
		d, ok, err := r.Document(ctx, "d1")
		if err != nil || !ok || d.Hash != "h1" || d.Size != 0 || d.ModTime != 0 {
			t.Errorf("the old record: %+v %v %v", d, ok, err)
		}
	}
	if err := again.TouchDocument(ctx, "d1", bigSize, bigMtime); err != nil {
		t.Fatal(err)
	}
	if d, _, err := overREST.Document(ctx, "d1"); err != nil || d.Size != bigSize || d.ModTime != bigMtime || d.Hash != "h1" {
		t.Errorf("touched: %+v %v", d, err)
	}
}

package weaviatekb

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"warren/internal/refcases"
	"warren/internal/shareddata"
	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
	"warren/registry"
	"warren/retrieval"
	"warren/retrieval/refs"
)

// The conformance suite: the same knowledge base in the embedded store and in Weaviate must
// hold the same collections, documents, chunks and vectors, and answer every lexical, dense,
// scoped and section query, and every labelled reference, the same way.
//
// Bounded differences, by design of the engines: dense scores are Weaviate's cosine distance
// turned into a similarity in float32 arithmetic, so they agree with the embedded store's
// to 1e-5, and chunks whose similarities are that close may come in another order (counted and
// reported, at most one such tie in ten queries). Lexical scores are computed by warren from
// the same terms and statistics on both, so they must agree to 1e-9, ties included (equal
// scores rank the chunk stored first first, on both).

// registryItems lists a registry file's documents as ingest items, as testkb does.
func registryItems(t testing.TB, regPath string) []kb.Item {
	t.Helper()
	reg, err := registry.Load(regPath)
	if err != nil {
		t.Fatal(err)
	}
	var items []kb.Item
	for _, name := range reg.Names() {
		for _, d := range reg.Collections[name].Documents {
			items = append(items, kb.Item{Path: filepath.Join(filepath.Dir(regPath), d.Path), ID: d.Path, Collection: name, Title: d.Title})
		}
	}
	return items
}

// ingestInto stores the items in a backend with the built-in embedder.
func ingestInto(t testing.TB, b kb.Backend, items []kb.Item) {
	t.Helper()
	rep, err := kb.Ingest(context.Background(), b, items, kb.IngestOptions{Embedder: kb.Builtin{}})
	if err != nil || rep.Ingested != len(items) {
		t.Fatalf("ingest into %s: %+v %v", b.Kind(), rep, err)
	}
}

// sameContents compares everything two backends store.
func sameContents(t *testing.T, want, got kb.Backend) {
	t.Helper()
	ctx := context.Background()
	wc, err := want.Collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := got.Collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wc {
		wc[i].Generation = 0 // the embedded store counts its writes; Weaviate has no snapshots to match
	}
	for i := range gc {
		gc[i].Generation = 0
	}
	if !slices.Equal(wc, gc) {
		t.Errorf("collections differ:\n%s: %+v\n%s: %+v", want.Kind(), wc, got.Kind(), gc)
	}
	wd, err := want.Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	gd, err := got.Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(wd) != len(gd) || len(wd) == 0 {
		t.Fatalf("%d documents in %s, %d in %s", len(wd), want.Kind(), len(gd), got.Kind())
	}
	for i := range wd {
		w, g := wd[i], gd[i]
		w.IngestedAt, g.IngestedAt = "", ""
		if fmt.Sprint(w) != fmt.Sprint(g) {
			t.Errorf("document %d differs:\n%+v\n%+v", i, w, g)
		}
		if id, ok, err := got.DocumentBySource(ctx, wd[i].Source); err != nil || !ok || id != wd[i].ID {
			t.Errorf("%s by its source %s: %q %v %v", wd[i].ID, wd[i].Source, id, ok, err)
		}
		wch, err := want.DocumentChunks(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		gch, err := got.DocumentChunks(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(wch, gch) || len(wch) != w.Chunks {
			t.Errorf("%s: chunks differ (%d and %d)", w.ID, len(wch), len(gch))
		}
		wv, _ := want.DocumentVectors(ctx, w.ID)
		gv, err := got.DocumentVectors(ctx, w.ID)
		if err != nil || len(wv) != len(gv) {
			t.Fatalf("%s: %d and %d vectors: %v", w.ID, len(wv), len(gv), err)
		}
		for j := range wv {
			if !slices.Equal(wv[j], gv[j]) {
				t.Errorf("%s: vector %d differs", w.ID, j)
				break
			}
		}
		sections := map[string]bool{}
		for _, c := range wch {
			for _, s := range chunk.SectionScopes(c.Section) {
				sections[s] = s != ""
			}
		}
		for s, ok := range sections {
			if !ok {
				continue
			}
			ws, _ := want.SectionChunks(ctx, w.ID, s)
			gs, err := got.SectionChunks(ctx, w.ID, s)
			if err != nil || len(ws) == 0 || !slices.Equal(ws, gs) {
				t.Errorf("%s section %q: %d and %d chunks (%v)", w.ID, s, len(ws), len(gs), err)
			}
		}
	}
	if got, err := got.Chunks(ctx, []string{"no such chunk", chunk.ID(wd[0].ID, 0)}); err != nil || len(got) != 1 || got[0].Doc != wd[0].ID {
		t.Errorf("Chunks with an unknown ID: %+v %v", got, err)
	}
}

// query is one search of the suite.
type query struct {
	text  string
	scope chunk.Scope
}

// exactQueries are the first words of chunks, searched everywhere, in the chunk's collection,
// in its document and in its section.
func exactQueries(t testing.TB, b kb.Backend) []query {
	ctx := context.Background()
	docs, err := b.Documents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []query
	for i, d := range docs {
		chunks, err := b.DocumentChunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for j, c := range chunks {
			if j%4 != 0 {
				continue
			}
			words := strings.Fields(c.Text)
			text := strings.Join(words[:min(len(words), 8)], " ")
			scope := chunk.Scope{}
			switch (i + j) % 4 {
			case 1:
				scope.Collections = []string{d.Collection}
			case 2:
				scope.Doc = d.ID
			case 3:
				scope.Doc, scope.Section = d.ID, c.Section
			}
			out = append(out, query{text, scope})
		}
	}
	return out
}

func hitIDs(hits []chunk.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

// sameRanking compares two top-10 lists: the same chunks in the same order, scores within
// tol. Chunks whose scores are within tol of each other are a tie, which may come in any
// order (counted in ties); a tie at the end of the list may be cut at different chunks.
func sameRanking(want, got []chunk.Hit, tol float64) (ties int, ok bool) {
	if len(want) != len(got) {
		return 0, false
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a)) }
	for i := 0; i < len(want); {
		j := i + 1
		for j < len(want) && near(want[i].Score, want[j].Score) {
			j++
		}
		for k := i; k < j; k++ {
			if !near(want[i].Score, got[k].Score) {
				return ties, false
			}
		}
		w, g := hitIDs(want[i:j]), hitIDs(got[i:j])
		if !slices.Equal(w, g) {
			slices.Sort(w)
			slices.Sort(g)
			if !slices.Equal(w, g) && j < len(want) {
				return ties, false
			}
			ties++
		}
		i = j
	}
	return ties, true
}

func TestConformanceOnTheSampleWorkspace(t *testing.T) {
	opts := testServer(t)
	_, embedded, _ := testkb.Sample(t)
	wv := openTestBackend(t, opts)
	ingestInto(t, wv, registryItems(t, filepath.Join(testkb.SampleDir(), "registry.json")))
	ctx := context.Background()

	t.Run("contents", func(t *testing.T) { sameContents(t, embedded, wv) })

	queries := exactQueries(t, embedded)
	if len(queries) < 20 {
		t.Fatalf("only %d queries from the sample workspace", len(queries))
	}
	t.Run("lexical", func(t *testing.T) {
		// Both derive b from the chunks' lengths (kb.bm25_b = auto), to the bit.
		want, err := embedded.LexicalLengthB(ctx, embedded.Params)
		if err != nil {
			t.Fatal(err)
		}
		got, err := wv.LexicalLengthB(ctx, wv.opts.Lexical)
		if err != nil || got != want || want == lexical.FallbackB {
			t.Fatalf("b: weaviate %v %v, embedded %v (the fallback is %v)", got, err, want, lexical.FallbackB)
		}
		// Both know the same documents' identity terms (the index derives them, Weaviate
		// reads what ingest stored), so a query naming a document takes the same feedback.
		wantIDs, err := embedded.LexicalIdentities(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotIDs, err := wv.LexicalIdentities(ctx)
		if err != nil || len(wantIDs.Documents()) < 20 || !slices.Equal(gotIDs.Documents(), wantIDs.Documents()) {
			t.Fatalf("documents with identity terms: weaviate %v %v, embedded %v", gotIDs.Documents(), err, wantIDs.Documents())
		}
		for _, d := range wantIDs.Documents() {
			if got, want := sortedTerms(gotIDs.Of(d)), sortedTerms(wantIDs.Of(d)); !slices.Equal(got, want) {
				t.Errorf("%s's identity: weaviate %q, embedded %q", d, got, want)
			}
		}
		// The questions naming a substance and a property (retrieval's sample test).
		for _, q := range []string{"phosphine exposure limit", "ammonia odour threshold", "Arsin Siedepunkt", "germane boiling point"} {
			queries = append(queries, query{text: q})
		}
		compare := func() {
			for _, q := range queries {
				want, err := embedded.Lexical(ctx, q.text, "", q.scope, 10)
				if err != nil {
					t.Fatal(err)
				}
				got, err := wv.Lexical(ctx, q.text, "", q.scope, 10)
				if err != nil {
					t.Fatal(err)
				}
				if ties, ok := sameRanking(want, got, 1e-9); !ok || ties > 0 || len(want) == 0 {
					t.Errorf("%q %+v:\nembedded %v\nweaviate %v", q.text, q.scope, want, got)
				}
			}
		}
		compare()
		// Again with every frequency from the term table, none counted on the server.
		searchUntilTableKept(t, wv, queries[0].text)
		counted, used := wv.termCounts.Load(), wv.TermTableStats().Used
		compare()
		if st := wv.TermTableStats(); wv.termCounts.Load() != counted || st.Used-used < int64(len(queries)) {
			t.Errorf("the second pass counted %d terms on the server and used the table %d times for %d queries",
				wv.termCounts.Load()-counted, st.Used-used, len(queries))
		}
		t.Logf("%d lexical queries: identical top 10, with frequencies counted and from the term table", len(queries))
	})
	t.Run("dense", func(t *testing.T) {
		ties := 0
		for _, q := range queries {
			vecs, err := kb.Builtin{}.Embed(ctx, []string{q.text}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := embedded.Dense(ctx, vecs[0], q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wv.Dense(ctx, vecs[0], q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			n, ok := sameRanking(want, got, 1e-5)
			ties += n
			if !ok || len(want) == 0 {
				t.Errorf("%q %+v:\nembedded %v\nweaviate %v", q.text, q.scope, want, got)
			}
		}
		t.Logf("%d dense queries: identical top 10 but for %d ties within 1e-5 in another order", len(queries), ties)
		if ties > len(queries)/10 {
			t.Errorf("%d ties in another order in %d queries: more than the documented bound", ties, len(queries))
		}
	})
	t.Run("hybrid", func(t *testing.T) {
		for _, q := range queries[:20] {
			var ids [2][]string
			for i, b := range []kb.Backend{embedded, wv} {
				res, err := (&retrieval.Searcher{Store: b}).Search(ctx, retrieval.Request{Query: q.text, Scope: q.scope, K: 10, Mode: retrieval.Hybrid})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res {
					ids[i] = append(ids[i], r.ID)
				}
			}
			if !slices.Equal(ids[0], ids[1]) {
				t.Errorf("hybrid %q: %v and %v", q.text, ids[0], ids[1])
			}
		}
	})
	t.Run("similarities", func(t *testing.T) {
		// Hybrid search over a model's vectors scores each lexical candidate by its own
		// similarity to the query (retrieval's similarity completion): both backends give the
		// same, within float32 arithmetic, and leave out what they do not hold.
		compared := 0
		for _, q := range queries {
			hits, err := embedded.Lexical(ctx, q.text, "", chunk.Scope{Collections: q.scope.Collections}, 20)
			if err != nil {
				t.Fatal(err)
			}
			ids := append(hitIDs(hits), "no such chunk")
			vecs, _ := kb.Builtin{}.Embed(ctx, []string{q.text}, nil)
			scope := chunk.Scope{Collections: q.scope.Collections}
			want, err := embedded.Similarities(ctx, vecs[0], scope, ids)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wv.Similarities(ctx, vecs[0], scope, ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(want) != len(ids)-1 {
				t.Errorf("%q: %d similarities from the embedded store, %d from Weaviate, for %d chunks", q.text, len(want), len(got), len(ids)-1)
			}
			for id, w := range want {
				if g, ok := got[id]; !ok || math.Abs(g-w) > 1e-5 {
					t.Errorf("%q: %s similarity %v embedded, %v (%v) on Weaviate", q.text, id, w, g, ok)
				}
				compared++
			}
		}
		t.Logf("%d similarities of lexical candidates equal within 1e-5", compared)
	})
	t.Run("grpc and rest", func(t *testing.T) {
		// Searches over gRPC (kb.weaviate.grpc) and over GraphQL find the same.
		if wv.rpc == nil {
			t.Skip("WARREN_WEAVIATE_GRPC is not set: only REST is tested")
		}
		rest := openAgain(t, wv, func(o *Options) { o.GRPC = "" })
		for _, q := range queries {
			overRPC, err := wv.Lexical(ctx, q.text, "", q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			overREST, err := rest.Lexical(ctx, q.text, "", q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(overRPC, overREST) {
				t.Errorf("lexical %q %+v:\ngrpc %v\nrest %v", q.text, q.scope, overRPC, overREST)
			}
			vecs, _ := kb.Builtin{}.Embed(ctx, []string{q.text}, nil)
			overRPC, err = wv.Dense(ctx, vecs[0], q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			overREST, err = rest.Dense(ctx, vecs[0], q.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := sameRanking(overRPC, overREST, 1e-6); !ok || len(overRPC) == 0 {
				t.Errorf("dense %q %+v:\ngrpc %v\nrest %v", q.text, q.scope, overRPC, overREST)
			}
			ids := hitIDs(overRPC)
			simRPC, err := wv.Similarities(ctx, vecs[0], chunk.Scope{}, ids)
			if err != nil {
				t.Fatal(err)
			}
			simREST, err := rest.Similarities(ctx, vecs[0], chunk.Scope{}, ids)
			if err != nil || len(simRPC) != len(ids) || len(simREST) != len(ids) {
				t.Errorf("similarities of %v: %d over grpc, %d over rest (%v)", ids, len(simRPC), len(simREST), err)
			}
			for id, v := range simRPC {
				if math.Abs(simREST[id]-v) > 1e-6 {
					t.Errorf("similarity of %s: %v over grpc, %v over rest", id, v, simREST[id])
				}
			}
			a, err := wv.Chunks(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			b, err := rest.Chunks(ctx, ids)
			if err != nil || !slices.Equal(a, b) || len(a) != len(ids) {
				t.Errorf("chunks %v: %d over grpc, %d over rest (%v)", ids, len(a), len(b), err)
			}
		}
	})
	t.Run("rewrite and remove", func(t *testing.T) {
		docs, _ := wv.Documents(ctx, "")
		d := docs[0]
		chunks, _ := wv.DocumentChunks(ctx, d.ID)
		vecs, _ := wv.DocumentVectors(ctx, d.ID)
		doc := &load.Document{ID: d.ID, Collection: "moved", Title: d.Title, Source: d.Source, Format: d.Format,
			Language: d.Language, Hash: d.Hash, Meta: d.Meta}
		short := chunks[:1]
		short[0].Collection = "moved"
		if err := wv.ReplaceDocument(ctx, doc, short, vecs[:1], kb.Builtin{}.ID()); err != nil {
			t.Fatal(err)
		}
		if got, _ := wv.DocumentChunks(ctx, d.ID); len(got) != 1 || got[0].Collection != "moved" {
			t.Errorf("after moving with one chunk: %+v", got)
		}
		hits, err := wv.Lexical(ctx, chunks[len(chunks)-1].Text, "", chunk.Scope{Doc: d.ID}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) > 1 && len(hits) > 1 {
			t.Errorf("chunks of the old version are still found: %v", hits)
		}
		if ok, err := wv.RemoveDocument(ctx, d.ID); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if got, _ := wv.DocumentChunks(ctx, d.ID); len(got) != 0 {
			t.Errorf("%d chunks left after removing", len(got))
		}
		if _, ok, _ := wv.Document(ctx, d.ID); ok {
			t.Error("the document is still recorded")
		}
	})
}

// The labelled reference cases of retrieval's tests resolve the same on both backends, every
// one to the labelled place (an expected section "" is the whole document), none elsewhere.
func TestReferenceCasesOnBothBackends(t *testing.T) {
	opts := testServer(t)
	_, embedded, reg := testkb.Corpus(t)
	wv := openTestBackend(t, opts)
	ingestInto(t, wv, registryItems(t, shareddata.Path(t, "corpus/registry.json")))
	cases := refcases.Load(t)
	ctx := context.Background()
	outcomes := map[string][]string{}
	for _, b := range []kb.Backend{embedded, wv} {
		res := retrieval.NewResolver(b, reg, &retrieval.Searcher{Store: b}, registry.DefaultFuzzyThreshold)
		right, wrong := 0, 0
		for _, c := range cases {
			detected := refs.DetectRegex(c.Text)
			i := slices.IndexFunc(detected, func(r refs.Reference) bool { return c.Expect.Is(r.Type, r.Target, r.DocumentContext) })
			if i < 0 {
				t.Fatalf("%s: the expected reference was not detected", c.ID)
			}
			got := res.Resolve(ctx, detected[i], retrieval.Origin{Doc: c.FromDoc, Section: c.FromSection, Context: c.Text})
			outcome := "unresolved"
			if got.Resolved != nil {
				outcome = got.Resolved.Doc + " " + got.Resolved.Section
			}
			outcomes[c.ID] = append(outcomes[c.ID], outcome)
			switch {
			case c.Resolve == nil && got.Resolved == nil:
				right++
			case c.Resolve == nil || got.Resolved != nil && got.Resolved.Doc != c.Resolve.Doc:
				wrong++
				t.Errorf("%s on %s: %s, want %+v", c.ID, b.Kind(), outcome, c.Resolve)
			case got.Resolved != nil && c.SectionIs(got.Resolved.Section):
				right++
			default:
				t.Errorf("%s on %s: %s (%s), want %s %s", c.ID, b.Kind(), outcome, got.Reason, c.Resolve.Doc, c.Resolve.Section)
			}
		}
		t.Logf("%s: %d of %d cases right (%.1f %%), %d wrong", b.Kind(), right, len(cases), 100*float64(right)/float64(len(cases)), wrong)
	}
	for id, o := range outcomes {
		if o[0] != o[1] {
			t.Errorf("%s: embedded %s, weaviate %s", id, o[0], o[1])
		}
	}
}

func sortedTerms(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

package ireval

import (
	"strings"
	"testing"

	"warren/internal/shareddata"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// The ranking harness: warren's lexical index built in memory from the chunks `warren eval ir`
// stores (the same chunker, analysis and index, without SQLite or vectors), so that many
// settings can be measured over one index. Over the built-in embedder hybrid search ranks as
// lexical search does (docs/retrieval.md), so these are the figures of both modes.

// harnessCollection is a collection indexed for the harness.
type harnessCollection struct {
	name  string
	coll  *Collection
	ix    *lexical.Index
	docOf map[string]string // chunk ID → document ID
}

// evalChunking is the chunking of `warren eval ir` (service.EvalIR): one chunk per document.
var evalChunking = load.ChunkOptions{Size: 20_000}

// indexCollection indexes a collection's documents as service.EvalIR does: the title as the
// document's title and the heading of its one section, English analysis, the terms as the
// store indexes them (kb.IndexedTerms).
func indexCollection(name string, c *Collection, opts load.ChunkOptions) *harnessCollection {
	h := &harnessCollection{name: name, coll: c, docOf: map[string]string{}}
	b := lexical.NewBuilder(name, lexical.Totals{})
	rowid := int64(0)
	for _, d := range c.Docs {
		doc := &load.Document{ID: d.ID, Collection: "eval", Title: d.Title, Language: "en", Meta: map[string]string{}}
		chunker := &load.Chunker{Doc: d.ID, Collection: "eval", Options: opts}
		for _, ch := range chunker.Section(load.Section{Heading: d.Title, Text: d.Text}) {
			rowid++
			heading, body := kb.IndexedTerms(ch, doc)
			b.Add(rowid, []byte(heading), []byte(body), []byte(strings.Join(lexical.ScopeTokens(ch), " ")))
			b.SetID(rowid, ch.ID)
			h.docOf[ch.ID] = d.ID
		}
	}
	h.ix = b.Index()
	return h
}

// search ranks the collection's chunks for a query with p, as a lexical search for k does.
func (h *harnessCollection) search(cache *lexical.Cache, p lexical.Params, query string, k int) []chunk.Hit {
	return cache.Search(h.ix, lexical.ParseQuery(query, "en"), chunk.Scope{}, k, lexical.CandidatePool(k), p)
}

// evaluate runs every judged query with p and scores the ranking of documents, each at the
// rank of its best chunk, as `warren eval ir` does.
func (h *harnessCollection) evaluate(p lexical.Params) Metrics {
	var cache lexical.Cache
	run := map[string][]string{}
	for _, q := range h.coll.Judged() {
		var ids []string
		for _, hit := range h.search(&cache, p, q.Text, DefaultK) {
			ids = append(ids, h.docOf[hit.ChunkID])
		}
		run[q.ID] = ids
	}
	return Evaluate(h.coll, run)
}

// harnessCollections loads and indexes Cranfield (source papers counted, as docs/retrieval.md
// compares with Lucene), CISI and CACM (qrels as distributed).
func harnessCollections(t testing.TB, opts load.ChunkOptions) []*harnessCollection {
	t.Helper()
	type spec struct {
		name, format, docs, queries, qrels string
		keep                               bool
	}
	specs := []spec{
		{"cranfield", "cranfield", "ir/cranfield/cran.all.1400", "ir/cranfield/cran.qry", "ir/cranfield/cranqrel", true},
		{"cisi", "cisi", "ir/cisi/CISI.ALL", "ir/cisi/CISI.QRY", "ir/cisi/CISI.REL", false},
		{"cacm", "cacm", "ir/cacm/doc-text.trec", "ir/cacm/query-text.trec", "ir/cacm/qrels", false},
	}
	var out []*harnessCollection
	for _, s := range specs {
		c, err := LoadWith(s.format, shareddata.Path(t, s.docs), shareddata.Path(t, s.queries), shareddata.Path(t, s.qrels), Options{KeepSourcePapers: s.keep})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, indexCollection(s.name, c, opts))
	}
	return out
}

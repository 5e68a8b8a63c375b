package kb_test

import (
	"context"
	"testing"

	"warren/config"
	"warren/internal/shareddata"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
	"warren/retrieval/ireval"
)

// Hybrid search asks its lexical half for a pool of 4 × K candidates, where a lexical search
// keeps a floor of 200 (retrieval's Searcher.lexical). The premise: a ranking whose feedback
// reorders the best 40 gives a top ten as good as one whose feedback reaches into the best 200.
// On Cranfield and CISI, indexed as warren eval ir indexes them, nDCG@10 and P@10 of the two
// must agree within a hundredth; a pool of 10, which leaves the feedback nothing to bring in,
// is reported beside them.
func TestAFeedbackPoolOfFortyRanksTheTopTenAsWellAsTwoHundred(t *testing.T) {
	collections := map[string][3]string{
		"cranfield": {"ir/cranfield/cran.all.1400", "ir/cranfield/cran.qry", "ir/cranfield/cranqrel"},
		"cisi":      {"ir/cisi/CISI.ALL", "ir/cisi/CISI.QRY", "ir/cisi/CISI.REL"},
	}
	for format, files := range collections {
		t.Run(format, func(t *testing.T) {
			coll, err := ireval.LoadWith(format, shareddata.Path(t, files[0]), shareddata.Path(t, files[1]), shareddata.Path(t, files[2]),
				ireval.Options{KeepSourcePapers: true})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := kb.Init(dir, kb.Migrations); err != nil {
				t.Fatal(err)
			}
			ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			store := kb.NewStore(ws)
			ctx := context.Background()
			for _, d := range coll.Docs {
				doc := &load.Document{ID: d.ID, Collection: "eval", Title: d.Title, Language: "en", Format: "text", Source: "eval",
					Meta: map[string]string{}, Sections: []load.Section{{Heading: d.Title, Text: d.Text}}}
				if _, err := store.AddDocument(ctx, doc, kb.Builtin{}, load.ChunkOptions{Size: 20_000}, nil); err != nil && d.Text != "" {
					t.Fatalf("document %s: %v", d.ID, err)
				}
			}
			at := func(pool int) ireval.Metrics {
				run, err := ireval.Run(coll, func(q string, k int) ([]string, error) {
					hits, err := store.LexicalPooled(ctx, q, "en", chunk.Scope{}, 10, pool)
					docs := make([]string, len(hits))
					for i, h := range hits {
						docs[i] = h.ChunkID[:len(h.ChunkID)-len("#0000")]
					}
					return docs, err
				}, 10)
				if err != nil {
					t.Fatal(err)
				}
				return ireval.Evaluate(coll, run)
			}
			floor, hybrids, none := at(lexical.CandidatePool(10)), at(40), at(10)
			t.Logf("%s: nDCG@10 %.4f (pool %d), %.4f (40), %.4f (10); P@10 %.4f, %.4f, %.4f", format,
				floor.NDCG10, lexical.CandidatePool(10), hybrids.NDCG10, none.NDCG10, floor.P10, hybrids.P10, none.P10)
			if hybrids.NDCG10 < floor.NDCG10-0.01 || hybrids.P10 < floor.P10-0.01 {
				t.Errorf("a pool of 40 ranks the top ten worse than one of %d: nDCG@10 %.4f against %.4f, P@10 %.4f against %.4f",
					lexical.CandidatePool(10), hybrids.NDCG10, floor.NDCG10, hybrids.P10, floor.P10)
			}
		})
	}
}

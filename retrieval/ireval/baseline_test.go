package ireval

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"warren/internal/shareddata"
)

// A deliberately tiny in-memory BM25, only here to check parsing and metrics against figures
// known from the literature. It is not the project's retriever.

// stopWords is Lucene's classic English stop set.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on
		or such that the their then there these they this to was will with`) {
		stopWords[w] = true
	}
}

func tokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

type posting struct{ doc, tf int }

type bm25 struct {
	ids      []string
	docLen   []float64
	avgdl    float64
	postings map[string][]posting
}

func newBM25(docs []Doc) *bm25 {
	ix := &bm25{postings: map[string][]posting{}}
	var total float64
	for i, d := range docs {
		tf := map[string]int{}
		toks := tokens(d.Content())
		for _, w := range toks {
			tf[w]++
		}
		for w, n := range tf {
			ix.postings[w] = append(ix.postings[w], posting{i, n})
		}
		ix.ids = append(ix.ids, d.ID)
		ix.docLen = append(ix.docLen, float64(len(toks)))
		total += float64(len(toks))
	}
	ix.avgdl = total / float64(len(docs))
	return ix
}

func (ix *bm25) search(query string, k int) ([]string, error) {
	const k1, b = 1.2, 0.75
	n := float64(len(ix.ids))
	scores := make([]float64, len(ix.ids))
	// Like Lucene's QueryParser, every query token is its own clause, so a repeated query word
	// adds its score again.
	for _, w := range tokens(query) {
		ps := ix.postings[w]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			scores[p.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*ix.docLen[p.doc]/ix.avgdl))
		}
	}
	var hits []int
	for i, s := range scores {
		if s > 0 {
			hits = append(hits, i)
		}
	}
	slices.SortFunc(hits, func(x, y int) int {
		if c := cmp.Compare(scores[y], scores[x]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	out := make([]string, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, ix.ids[h])
	}
	return out, nil
}

func baseline(t *testing.T, c *Collection) Metrics {
	t.Helper()
	run, err := Run(c, newBM25(c.Docs).search, DefaultK)
	if err != nil {
		t.Fatal(err)
	}
	m := Evaluate(c, run)
	t.Logf("BM25 baseline: MAP %.4f  nDCG@10 %.4f  P@10 %.4f  Recall@100 %.4f  over %d queries",
		m.MAP, m.NDCG10, m.P10, m.Recall100, m.Queries)
	return m
}

func TestBaselineCranfield(t *testing.T) {
	m := baseline(t, cranfieldData(t))
	if m.Queries != 225 {
		t.Errorf("evaluated %d queries, want 225", m.Queries)
	}
	// This unstemmed BM25 scores MAP ≈ 0.276 with the -1 lines dropped (an independent Python
	// computation over the same run agrees to 1e-15). The often quoted 0.36–0.43 for Lucene BM25
	// on Cranfield comes from counting the -1 lines as relevant: each marks the query's source
	// paper, which BM25 puts at rank 1 for 93 of the 225 queries (see
	// TestBaselineCranfieldNegativeControls). Mapping queries by .I number gives ≈ 0.01.
	if m.MAP < 0.24 || m.MAP > 0.32 {
		t.Errorf("Cranfield BM25 MAP = %.4f, want 0.24–0.32", m.MAP)
	}
	if m.NDCG10 < 0.30 || m.NDCG10 > 0.40 || m.P10 < 0.19 || m.P10 > 0.26 || m.Recall100 < 0.65 || m.Recall100 > 0.75 {
		t.Errorf("Cranfield BM25 figures out of range: %+v", m)
	}
}

func TestBaselineCISI(t *testing.T) {
	m := baseline(t, cisiData(t))
	if m.Queries != 76 {
		t.Errorf("evaluated %d queries, want 76", m.Queries)
	}
	// CISI is hard for lexical retrieval; unstemmed BM25 lands near MAP 0.16.
	if m.MAP < 0.12 || m.MAP > 0.22 {
		t.Errorf("CISI BM25 MAP = %.4f, want 0.12–0.22", m.MAP)
	}
	if m.P10 < 0.25 || m.P10 > 0.40 || m.Recall100 < 0.35 || m.Recall100 > 0.50 {
		t.Errorf("CISI BM25 figures out of range: %+v", m)
	}
}

// The band in TestBaselineCranfield must reject the two documented Cranfield mistakes: mapping
// queries by their .I number instead of their position, and keeping the -1 lines as relevant.
func TestBaselineCranfieldNegativeControls(t *testing.T) {
	c := cranfieldData(t)
	search := newBM25(c.Docs).search

	recs, err := parseSMART(shareddata.Path(t, "ir/cranfield/cran.qry"), "W")
	if err != nil {
		t.Fatal(err)
	}
	byNumber := *c
	byNumber.Queries = nil
	for _, r := range recs {
		byNumber.Queries = append(byNumber.Queries, Query{ID: r.id, Text: oneLine(r.field('W'))})
	}
	run, err := Run(&byNumber, search, DefaultK)
	if err != nil {
		t.Fatal(err)
	}
	m := Evaluate(&byNumber, run)
	t.Logf("queries mapped by .I number (wrong): MAP %.4f over %d queries", m.MAP, m.Queries)
	if m.MAP >= 0.24 {
		t.Errorf("wrong query mapping scores MAP %.4f, inside the accepted band", m.MAP)
	}

	withSource := *c
	withSource.Qrels = Qrels{}
	for q, m := range c.Qrels {
		for d, g := range m {
			withSource.Qrels.addJudgment(q, d, g)
		}
	}
	added := 0
	err = readLines(shareddata.Path(t, "ir/cranfield/cranqrel"), func(_ int, line string) error {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "-1" {
			withSource.Qrels.addJudgment(f[0], f[1], 1)
			added++
		}
		return nil
	})
	if err != nil || added != 225 {
		t.Fatalf("re-reading -1 lines: %d added, %v", added, err)
	}
	run, err = Run(&withSource, search, DefaultK)
	if err != nil {
		t.Fatal(err)
	}
	m = Evaluate(&withSource, run)
	t.Logf("-1 lines kept as relevant (wrong): MAP %.4f", m.MAP)
	if m.MAP <= 0.32 {
		t.Errorf("keeping -1 lines scores MAP %.4f, inside the accepted band", m.MAP)
	}
}

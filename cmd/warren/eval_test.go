package main

import (
	"encoding/json"
	"testing"

	"warren/internal/shareddata"
	"warren/service"
)

// TestEvalIRMeetsTheRetrievalTargets runs `warren eval ir` on Cranfield and CISI with the
// model-free setup. Cranfield's target (MAP ≥ 0.42, as Lucene BM25 with an English analyser)
// is measured as that baseline was: with each query's source paper counted relevant. The
// figures under shared/data's protocol (source papers dropped) and CISI's are floors that
// catch regressions.
func TestEvalIRMeetsTheRetrievalTargets(t *testing.T) {
	cran := shareddata.Path(t, "ir/cranfield")
	cisi := shareddata.Path(t, "ir/cisi")
	cases := []struct {
		name  string
		args  []string
		floor float64
	}{
		{"cranfield lexical, source papers counted", []string{"--format", "cranfield", "--docs", cran + "/cran.all.1400", "--queries", cran + "/cran.qry", "--qrels", cran + "/cranqrel", "--mode", "lexical", "--keep-source-papers"}, 0.42},
		{"cranfield lexical, shared/data protocol", []string{"--format", "cranfield", "--docs", cran + "/cran.all.1400", "--queries", cran + "/cran.qry", "--qrels", cran + "/cranqrel", "--mode", "lexical"}, 0.30},
		{"cisi lexical", []string{"--format", "cisi", "--docs", cisi + "/CISI.ALL", "--queries", cisi + "/CISI.QRY", "--qrels", cisi + "/CISI.REL", "--mode", "lexical"}, 0.17},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := warren(t, nil, append([]string{"eval", "ir", "--json"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var res service.IREvalResult
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatal(err)
			}
			t.Logf("MAP %.4f nDCG@10 %.4f P@10 %.4f Recall@100 %.4f over %d queries", res.MAP, res.NDCG10, res.P10, res.Recall100, res.Queries)
			if res.MAP < tc.floor {
				t.Errorf("MAP %.4f is below %.2f", res.MAP, tc.floor)
			}
		})
	}
}

package main

import (
	"encoding/json"
	"testing"

	"warren/internal/shareddata"
	"warren/service"
)

// TestEvalIRMeetsTheRetrievalTargets runs `warren eval ir` on Cranfield, CISI and CACM with
// the model-free setup, in the default (hybrid) mode and in lexical mode. The targets are
// those of issue 32: Cranfield MAP ≥ 0.4698 (issue 15's figure, measured as Lucene's BM25
// baseline was, with each query's source paper counted relevant) and CISI (76 judged queries)
// ≥ 0.2094 kept; CACM (52 judged queries, qrels as distributed) ≥ 0.328, Anserini's BM25
// (0.3123) + 5 %; and the default mode never below lexical search. The figure under
// shared/data's protocol (source papers dropped) is a floor that catches regressions. Each is
// a floor under the measured figure (docs/retrieval.md, Quality today), not an equality.
func TestEvalIRMeetsTheRetrievalTargets(t *testing.T) {
	cran := shareddata.Path(t, "ir/cranfield")
	cisi := shareddata.Path(t, "ir/cisi")
	cacm := shareddata.Path(t, "ir/cacm")
	cranArgs := []string{"--format", "cranfield", "--docs", cran + "/cran.all.1400", "--queries", cran + "/cran.qry", "--qrels", cran + "/cranqrel"}
	cisiArgs := []string{"--format", "cisi", "--docs", cisi + "/CISI.ALL", "--queries", cisi + "/CISI.QRY", "--qrels", cisi + "/CISI.REL"}
	cacmArgs := []string{"--format", "cacm", "--docs", cacm + "/doc-text.trec", "--queries", cacm + "/query-text.trec", "--qrels", cacm + "/qrels"}
	cases := []struct {
		name  string
		args  []string
		floor float64
	}{
		{"cranfield, source papers counted", append(cranArgs, "--keep-source-papers"), 0.4698},
		{"cranfield, shared/data protocol", cranArgs, 0.35},
		{"cisi", cisiArgs, 0.2094},
		{"cacm", cacmArgs, 0.328},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			maps := map[string]float64{}
			for _, mode := range []string{"hybrid", "lexical"} {
				r := warren(t, nil, append([]string{"eval", "ir", "--json", "--mode", mode}, tc.args...)...)
				if r.code != 0 {
					t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
				}
				var res service.IREvalResult
				if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: MAP %.4f nDCG@10 %.4f P@10 %.4f Recall@100 %.4f over %d queries", mode, res.MAP, res.NDCG10, res.P10, res.Recall100, res.Queries)
				if res.MAP < tc.floor {
					t.Errorf("%s: MAP %.4f is below %.4f", mode, res.MAP, tc.floor)
				}
				maps[mode] = res.MAP
			}
			if maps["hybrid"] < maps["lexical"] {
				t.Errorf("the default mode (MAP %.4f) is below lexical search (%.4f)", maps["hybrid"], maps["lexical"])
			}
		})
	}
}

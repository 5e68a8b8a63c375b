package weaviatekb_test

import (
	"context"
	"os"
	"testing"

	"warren/config"
	"warren/internal/shareddata"
	"warren/retrieval"
	"warren/service"
)

// `warren eval ir` on Cranfield through each backend (the eval path indexes into classes of
// its own on the server): Weaviate's MAP must be within 0.01 of the embedded store's, or above.
func TestCranfieldMAPOnWeaviate(t *testing.T) {
	url := os.Getenv("WARREN_WEAVIATE_URL")
	if url == "" {
		if os.Getenv("WARREN_E2E_WEAVIATE") == "1" {
			t.Fatal("WARREN_WEAVIATE_URL is not set: scripts/e2e-weaviate.sh sets it when its server started")
		}
		t.Skip("WARREN_WEAVIATE_URL is not set: make e2e-weaviate runs this test against a real Weaviate server")
	}
	cran := shareddata.Path(t, "ir/cranfield")
	maps := map[string]float64{}
	for _, env := range [][]string{
		{"WARREN_KB_BACKEND=embedded"},
		{"WARREN_KB_BACKEND=weaviate", "WARREN_KB_WEAVIATE_URL=" + url, "WARREN_KB_WEAVIATE_GRPC=" + os.Getenv("WARREN_WEAVIATE_GRPC")},
	} {
		res, err := service.EvalIR(context.Background(), service.IREvalOptions{Format: "cranfield",
			Docs: cran + "/cran.all.1400", Queries: cran + "/cran.qry", Qrels: cran + "/cranqrel", KeepSourcePapers: true,
			Mode: retrieval.Hybrid, Embedder: "builtin", Sources: config.Sources{Env: env}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: MAP %.4f over %d queries (index %.1f s, queries %.1f s)", res.Backend, res.MAP, res.Queries, res.IndexSecs, res.QuerySecs)
		maps[res.Backend] = res.MAP
	}
	if len(maps) != 2 || maps["embedded"] < 0.4 || maps["weaviate"] < maps["embedded"]-0.01 {
		t.Errorf("Cranfield MAP: %v; want Weaviate within 0.01 of the embedded store or above", maps)
	}
}

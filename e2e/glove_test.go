//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/internal/shareddata"
	"warren/service"
)

const gloveModel = "warren-e2e-glove"

// TestRetrievalWithGloVe serves real word vectors (GloVe 6B, 100 dimensions, written by
// glovemodel) from a real Ollama, checks that its /api/embed answers mean something, and runs
// `warren eval ir` on Cranfield and CISI through it in dense, lexical and hybrid mode. Hybrid
// search must beat lexical search on both collections with a real embedding model (issue 15).
func TestRetrievalWithGloVe(t *testing.T) {
	ollama := need(t, "WARREN_E2E_OLLAMA", "the ollama binary")
	gguf := need(t, "WARREN_E2E_GLOVE", "the GloVe model's GGUF file (go run ./e2e/glovemodel)")
	cran := shareddata.Path(t, "ir/cranfield")
	cisi := shareddata.Path(t, "ir/cisi")

	server := startOllama(t, ollama)
	// One thread: the model's work per text is a few row lookups, and a second thread only
	// spins waiting for it (25 ms of CPU a request instead of 4).
	server.createModel(t, gloveModel, gguf, "PARAMETER num_thread 1")

	t.Run("similar words are closer", func(t *testing.T) { similarIsCloser(t, server.addr) })
	if t.Failed() {
		return
	}

	env := []string{"WARREN_WORKSPACE=" + filepath.Join(t.TempDir(), "none"), "OLLAMA_HOST=" + server.addr,
		"WARREN_MODELS_EMBED_MODEL=" + gloveModel}
	collections := []struct {
		name  string
		args  []string
		dense float64 // floor under the measured dense MAP: the model works, not a target
	}{
		{"cranfield", []string{"--format", "cranfield", "--docs", cran + "/cran.all.1400", "--queries", cran + "/cran.qry",
			"--qrels", cran + "/cranqrel", "--keep-source-papers"}, 0.20},
		{"cisi", []string{"--format", "cisi", "--docs", cisi + "/CISI.ALL", "--queries", cisi + "/CISI.QRY",
			"--qrels", cisi + "/CISI.REL"}, 0.08},
	}
	embeds0, start := server.requests(t, "/api/embed"), time.Now()
	var mu sync.Mutex
	var rows []string
	// The two collections run side by side: each query is one /api/embed request, and the
	// server's share of a request is mostly work that runs in parallel.
	t.Run("eval ir", func(t *testing.T) {
		for _, c := range collections {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				got := map[string]*service.IREvalResult{}
				for _, mode := range []string{"dense", "hybrid", "lexical"} {
					embedder := "ollama"
					if mode == "lexical" {
						embedder = "builtin" // the ranking ignores the vectors; no need to embed again
					}
					args := append([]string{"eval", "ir", "--json", "--mode", mode, "--embedder", embedder}, c.args...)
					r := warren(t, 20*time.Minute, env, args...)
					var res service.IREvalResult
					if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
						t.Fatalf("eval ir %s %s: exit %d\n%s", c.name, mode, r.code, lastLines(r.stderr, 10))
					}
					if want := "ollama:" + gloveModel; embedder == "ollama" && res.Embedder != want {
						t.Errorf("%s %s: embedded by %q, want %q", c.name, mode, res.Embedder, want)
					}
					t.Logf("%s %s: MAP %.4f nDCG@10 %.4f P@10 %.4f Recall@100 %.4f over %d queries; indexed in %.1fs, queried in %.1fs",
						c.name, mode, res.MAP, res.NDCG10, res.P10, res.Recall100, res.Queries, res.IndexSecs, res.QuerySecs)
					got[mode] = &res
					mu.Lock()
					rows = append(rows, fmt.Sprintf("%-10s %-8s %7.4f %8.4f %7.4f %10.4f %8.1f %8.1f",
						c.name, mode, res.MAP, res.NDCG10, res.P10, res.Recall100, res.IndexSecs, res.QuerySecs))
					mu.Unlock()
				}
				if got["dense"].MAP < c.dense {
					t.Errorf("%s: dense MAP %.4f is below %.2f: is the GloVe model serving its vectors?", c.name, got["dense"].MAP, c.dense)
				}
				if h, l := got["hybrid"].MAP, got["lexical"].MAP; h <= l {
					t.Errorf("%s: hybrid MAP %.4f does not beat lexical MAP %.4f with a real embedding model (dense %.4f)",
						c.name, h, l, got["dense"].MAP)
				}
			})
		}
	})
	embeds, took := server.requests(t, "/api/embed")-embeds0, time.Since(start)
	t.Logf("GloVe retrieval figures (%s, %d cores; %d /api/embed requests in %.0fs, both collections side by side):\n%-10s %-8s %7s %8s %7s %10s %8s %8s\n%s",
		runtime.GOOS, runtime.NumCPU(), embeds, took.Seconds(), "collection", "mode", "MAP", "nDCG@10", "P@10", "Recall@100", "index s", "query s",
		strings.Join(rows, "\n"))
}

// similarIsCloser asks /api/embed for words and phrases and checks the vectors: 100 dimensions,
// unit length, and related meanings closer than unrelated ones.
func similarIsCloser(t *testing.T, addr string) {
	texts := []string{
		"aircraft", "airplane", "banana",
		"library", "librarian", "turbulence",
		"supersonic flow over a swept wing", "aerodynamics of high speed aircraft", "cataloguing of books in libraries",
		"zzqxv qqzzx", // no word of the vocabulary
	}
	body, _ := json.Marshal(map[string]any{"model": gloveModel, "input": texts})
	resp, err := http.Post("http://"+addr+"/api/embed", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Embeddings [][]float64 `json:"embeddings"`
		Error      string      `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || len(out.Embeddings) != len(texts) {
		t.Fatalf("/api/embed: status %d, %d vectors for %d texts, %v %s", resp.StatusCode, len(out.Embeddings), len(texts), err, out.Error)
	}
	vec := map[string][]float64{}
	for i, e := range out.Embeddings {
		vec[texts[i]] = e
		var norm float64
		for _, x := range e {
			norm += x * x
		}
		switch {
		case len(e) != 100:
			t.Errorf("%q: %d dimensions, want 100", texts[i], len(e))
		case i == len(texts)-1:
			if norm != 0 {
				t.Errorf("%q, all unknown words: want the zero vector, got length %.3f", texts[i], math.Sqrt(norm))
			}
		case math.Abs(math.Sqrt(norm)-1) > 1e-3:
			t.Errorf("%q: length %.4f, want 1", texts[i], math.Sqrt(norm))
		}
	}
	cos := func(a, b string) float64 {
		var s float64
		for i := range vec[a] {
			s += vec[a][i] * vec[b][i]
		}
		return s
	}
	for _, c := range []struct{ text, near, far string }{
		{"aircraft", "airplane", "banana"},
		{"library", "librarian", "turbulence"},
		{"supersonic flow over a swept wing", "aerodynamics of high speed aircraft", "cataloguing of books in libraries"},
	} {
		near, far := cos(c.text, c.near), cos(c.text, c.far)
		t.Logf("cos(%q, %q) = %.3f, cos(%q, %q) = %.3f", c.text, c.near, near, c.text, c.far, far)
		if near < far+0.2 {
			t.Errorf("%q is not clearly closer to %q (%.3f) than to %q (%.3f)", c.text, c.near, near, c.far, far)
		}
	}
}

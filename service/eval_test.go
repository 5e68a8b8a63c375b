package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"warren/retrieval"
)

// An IR evaluation indexes a small TREC collection into a throwaway workspace and ranks the
// judged documents first.
func TestEvalIR(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	docs := write("docs", `<DOC><DOCNO>d1</DOCNO><TEXT>silane is a pyrophoric gas that ignites in air</TEXT></DOC>
<DOC><DOCNO>d2</DOCNO><TEXT>arsine is a highly toxic gas with a garlic odour</TEXT></DOC>
<DOC><DOCNO>d3</DOCNO><TEXT>nitrogen is an inert gas used for purging lines</TEXT></DOC>
`)
	topics := write("topics", "<top><num>1<title>pyrophoric silane</top>\n<top><num>2<title>toxic arsine odour</top>\n")
	qrels := write("qrels", "1 0 d1 1\n2 0 d2 1\n")
	var indexed int
	res, err := EvalIR(context.Background(), IREvalOptions{Format: "trec", Docs: docs, Queries: topics, Qrels: qrels,
		Mode: retrieval.Lexical, Embedder: "builtin", Progress: func(done, total int) { indexed = done }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Documents != 3 || indexed != 3 || res.Queries != 2 || res.MAP != 1 || res.Format != "trec" || res.Mode != "lexical" {
		t.Errorf("result: %+v (indexed %d)", res, indexed)
	}
	if _, err := EvalIR(context.Background(), IREvalOptions{Format: "trec", Docs: docs, Queries: topics, Qrels: qrels,
		Mode: retrieval.Lexical, Embedder: "nope"}); err == nil {
		t.Error("an unknown embedder is accepted")
	}
}

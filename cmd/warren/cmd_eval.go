package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/llm"
	"warren/retrieval"
	"warren/retrieval/ireval"
)

func (a *app) evalCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "eval",
		Short:   "Measure warren against benchmark collections",
		Example: "  warren eval ir --format cranfield --docs cran.all.1400 --queries cran.qry --qrels cranqrel",
	}
	cmd.AddCommand(a.evalIRCommand())
	return cmd
}

// evalResult is what `warren eval ir --json` prints.
type evalResult struct {
	ireval.Metrics
	Format      string  `json:"format"`
	Mode        string  `json:"mode"`
	Embedder    string  `json:"embedder"`
	Documents   int     `json:"documents"`
	IndexSecs   float64 `json:"index_seconds"`
	QuerySecs   float64 `json:"query_seconds"`
	SourcePaper bool    `json:"source_papers_relevant,omitempty"`
}

func (a *app) evalIRCommand() *cobra.Command {
	var format, docs, queries, qrels, mode, embedder string
	var keepSource bool
	var headingWeight float64
	cmd := checked(&cobra.Command{
		Use:   "ir",
		Short: "Retrieval quality on a test collection: MAP, nDCG@10, P@10, Recall@100",
		Long: `eval ir indexes a test collection into a temporary knowledge base with warren's own
analysis, chunking and stores, runs every judged query, and reports MAP, nDCG@10 (graded),
P@10 and Recall@100. Formats: cranfield (cran.all.1400, cran.qry, cranqrel; queries numbered by
position, grade 5 − code), cisi (CISI.ALL, CISI.QRY, CISI.REL; the 76 judged queries), trec
(<DOC><DOCNO>…</DOCNO>text</DOC>, <top><num>…<title>…, "qid 0 docid rel").

Cranfield's "-1" judgment of each query names the paper the query was written from. It is
dropped by default; --keep-source-papers counts it as relevant, which is how the published
Lucene baselines for Cranfield were measured.`,
		Example: `  D=../shared/data/ir/cranfield
  warren eval ir --format cranfield --docs $D/cran.all.1400 --queries $D/cran.qry --qrels $D/cranqrel --mode lexical
  warren eval ir --format cisi --docs CISI.ALL --queries CISI.QRY --qrels CISI.REL --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := retrieval.ParseMode(mode)
			if err != nil {
				return usageError{err}
			}
			coll, err := ireval.LoadWith(format, docs, queries, qrels, ireval.Options{KeepSourcePapers: keepSource})
			if err != nil {
				return err
			}
			ctx, stop := interruptible(cmd)
			defer stop()
			res, err := a.runIREval(ctx, coll, m, embedder, headingWeight)
			if err != nil {
				return err
			}
			res.Format, res.SourcePaper = format, keepSource
			if a.jsonOut {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "%s, %d documents, %d judged queries, %s mode, %s embedder\n",
				format, res.Documents, res.Queries, res.Mode, res.Embedder)
			fmt.Fprintf(a.stdout, "MAP %.4f   nDCG@10 %.4f   P@10 %.4f   Recall@100 %.4f\n", res.MAP, res.NDCG10, res.P10, res.Recall100)
			fmt.Fprintf(a.stdout, "indexed in %.1fs, queries in %.1fs\n", res.IndexSecs, res.QuerySecs)
			return nil
		},
	},
		oneOf("format", &format, "cranfield", "cisi", "trec"),
		oneOf("mode", &mode, string(retrieval.Hybrid), string(retrieval.Dense), string(retrieval.Lexical)),
		oneOf("embedder", &embedder, "builtin", "ollama"),
		above("heading-weight", &headingWeight, 0),
		when("docs", func(cmd *cobra.Command, args []string) error {
			for _, f := range []struct{ name, v string }{{"docs", docs}, {"queries", queries}, {"qrels", qrels}} {
				if strings.TrimSpace(f.v) == "" {
					return fmt.Errorf("--%s %q: allowed is the path of the collection's %s file (--docs, --queries and --qrels are all required)", f.name, f.v, f.name)
				}
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVar(&format, "format", "cranfield", "cranfield, cisi or trec")
	f.StringVar(&docs, "docs", "", "documents file")
	f.StringVar(&queries, "queries", "", "queries (topics) file")
	f.StringVar(&qrels, "qrels", "", "relevance judgments file")
	f.StringVar(&mode, "mode", "hybrid", "hybrid, dense or lexical")
	f.StringVar(&embedder, "embedder", "builtin", "builtin or ollama (the workspace's embed role)")
	f.Float64Var(&headingWeight, "heading-weight", kb.DefaultHeadingWeight, "BM25 weight of heading (title) terms against body terms")
	f.BoolVar(&keepSource, "keep-source-papers", false, "cranfield: count each query's -1 judgment (its source paper) as relevant")
	return cmd
}

// runIREval indexes the collection into a throwaway workspace and runs the judged queries.
func (a *app) runIREval(ctx context.Context, coll *ireval.Collection, mode retrieval.Mode, embedderName string, headingWeight float64) (*evalResult, error) {
	dir, err := os.MkdirTemp("", "warren-eval-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := kb.Init(dir, schema.All()); err != nil {
		return nil, err
	}
	ws, err := kb.Open(dir, config.Sources{Env: a.env, Flags: a.sources().Flags}, schema.All())
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	store := kb.NewStore(ws)
	if headingWeight > 0 {
		store.HeadingWeight = headingWeight
	}
	var emb kb.Embedder = kb.Builtin{}
	if embedderName == "ollama" {
		g, err := llm.New(ws.Config, llm.WithLogger(a.logger))
		if err != nil {
			return nil, err
		}
		if err := g.CheckModel(ctx, config.RoleEmbed); err != nil {
			return nil, err
		}
		emb = kb.Ollama{Gateway: g}
	} else if embedderName != "builtin" {
		return nil, usageError{fmt.Errorf("--embedder %q: use builtin or ollama", embedderName)}
	}
	start := time.Now()
	bar := newProgressLine(a.stderr)
	// One chunk per document (chunks up to the largest size), so rankings are of documents.
	chunking := kb.ChunkOptions{Size: 20_000, Overlap: 0}
	for i, d := range coll.Docs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The title is the document's heading, as a section heading is a chunk's.
		doc := &kb.Document{ID: d.ID, Collection: "eval", Title: d.Title, Language: "en", Format: "text",
			Source: "eval", Meta: map[string]string{}, Sections: []kb.Section{{Heading: d.Title, Text: d.Text}}}
		if _, err := store.AddDocument(ctx, doc, emb, chunking, nil); err != nil && !strings.Contains(err.Error(), "no text") {
			return nil, fmt.Errorf("couldn't index document %s: %w", d.ID, err)
		}
		bar.draw(fmt.Sprintf("indexing %d/%d documents", i+1, len(coll.Docs)))
	}
	bar.done()
	indexed := time.Since(start)
	s := &retrieval.Searcher{Store: store}
	if embedderName == "ollama" {
		s.Gateway = emb.(kb.Ollama).Gateway
	}
	start = time.Now()
	run, err := ireval.Run(coll, func(q string, k int) ([]string, error) {
		results, err := s.Search(ctx, retrieval.Request{Query: q, K: k, Mode: mode, Language: "en"})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(results))
		for i, r := range results {
			ids[i] = r.Doc
		}
		return ids, nil
	}, ireval.DefaultK)
	if err != nil {
		return nil, err
	}
	return &evalResult{Metrics: ireval.Evaluate(coll, run), Mode: string(mode), Embedder: emb.ID(),
		Documents: len(coll.Docs), IndexSecs: indexed.Seconds(), QuerySecs: time.Since(start).Seconds()}, nil
}

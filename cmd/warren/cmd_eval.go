package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/kb/lexical"
	"warren/retrieval"
	"warren/service"
)

func (a *app) evalCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "eval"}
	cmd.AddCommand(a.evalIRCommand())
	return cmd
}

func (a *app) evalIRCommand() *cobra.Command {
	var format, docs, queries, qrels, mode, embedder string
	var keepSource bool
	var headingWeight float64
	cmd := cli.Checked(&cobra.Command{
		Use:  "ir",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := retrieval.ParseMode(mode)
			if err != nil {
				return cli.UsageError{Err: err}
			}
			ctx, stop := interruptible(cmd)
			defer stop()
			bar := cli.NewProgressLine(a.stderr)
			res, err := service.EvalIR(ctx, service.IREvalOptions{Format: format, Docs: docs, Queries: queries, Qrels: qrels,
				KeepSourcePapers: keepSource, Mode: m, Embedder: embedder, HeadingWeight: headingWeight,
				Sources: a.sources(), Logger: a.logger, Progress: func(done, total int) {
					bar.Draw(fmt.Sprintf("indexing %d/%d documents", done, total))
					if done == total {
						bar.Done()
					}
				}})
			if err != nil {
				return err
			}
			return a.output(res, func(w io.Writer) error {
				fmt.Fprintf(w, "%s, %d documents, %d judged queries, %s mode, %s embedder\n",
					format, res.Documents, res.Queries, res.Mode, res.Embedder)
				fmt.Fprintf(w, "MAP %.4f   nDCG@10 %.4f   P@10 %.4f   Recall@100 %.4f\n", res.MAP, res.NDCG10, res.P10, res.Recall100)
				_, err := fmt.Fprintf(w, "indexed in %.1fs, queries in %.1fs\n", res.IndexSecs, res.QuerySecs)
				return err
			})
		},
	},
		cli.OneOf("format", &format, "cranfield", "cisi", "cacm", "trec"),
		cli.OneOf("mode", &mode, string(retrieval.Hybrid), string(retrieval.Dense), string(retrieval.Lexical)),
		cli.OneOf("embedder", &embedder, "builtin", "ollama"),
		cli.Above("heading-weight", &headingWeight, 0),
		cli.When("docs", func(cmd *cobra.Command, args []string) error {
			for _, f := range []struct{ name, v string }{{"docs", docs}, {"queries", queries}, {"qrels", qrels}} {
				if strings.TrimSpace(f.v) == "" {
					return fmt.Errorf("--%s %q: allowed is the path of the collection's %s file (--docs, --queries and --qrels are all required)", f.name, f.v, f.name)
				}
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVar(&format, "format", "cranfield", "cranfield, cisi, cacm or trec")
	f.StringVar(&docs, "docs", "", "documents file")
	f.StringVar(&queries, "queries", "", "queries (topics) file")
	f.StringVar(&qrels, "qrels", "", "relevance judgments file")
	f.StringVar(&mode, "mode", "hybrid", "hybrid, dense or lexical")
	f.StringVar(&embedder, "embedder", "builtin", "builtin or ollama (the workspace's embed role)")
	f.Float64Var(&headingWeight, "heading-weight", lexical.DefaultHeadingWeight, "BM25 weight of heading (title) terms against body terms")
	f.BoolVar(&keepSource, "keep-source-papers", false, "cranfield: count each query's -1 judgment (its source paper) as relevant")
	return cmd
}

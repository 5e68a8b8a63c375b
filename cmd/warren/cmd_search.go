package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/internal/snippet"
	"warren/kb/analysis"
	"warren/kb/chunk"
	"warren/retrieval"
)

func (a *app) searchCommand() *cobra.Command {
	var collection, doc, section, mode, lang string
	var k int
	cmd := cli.Checked(&cobra.Command{
		Use:  "search QUERY",
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			scope := chunk.Scope{Doc: doc, Section: section}
			if collection != "" {
				scope.Collections = cli.SplitList(collection)
			}
			results, err := e.Knowledge().Search(ctx, retrieval.Request{Query: args[0], Scope: scope, K: k, Mode: retrieval.Mode(mode), Language: lang})
			if err != nil || a.jsonOut {
				return a.resultJSON(cli.EmptyIfNil(results), collectionUsage(err, "collection", collection))
			}
			if len(results) == 0 {
				fmt.Fprintln(a.stdout, "No matching passages.")
			}
			for i, r := range results {
				fmt.Fprintf(a.stdout, "%2d. %s — %s  [%s, %.4f]\n    %s\n", i+1, cli.Line(cli.DocSection(r.Doc, r.Place())), cli.Line(r.Heading), cli.Line(r.Collection), r.Score,
					snippet.Cut(cli.Line(r.Text), 220))
			}
			return nil
		}),
	},
		cli.Text(0, "QUERY", "a query with words to search for"),
		cli.AtLeast("k", &k, 1),
		cli.OneOf("mode", &mode, string(retrieval.Hybrid), string(retrieval.Dense), string(retrieval.Lexical)),
		cli.OneOf("lang", &lang, "de", "en"),
		cli.CollectionList("collection", &collection),
		cli.When("section", func(cmd *cobra.Command, args []string) error {
			if section != "" && doc == "" {
				return fmt.Errorf("--section %q needs --doc: a section number means something only within a document", section)
			}
			return nil
		}),
		cli.When("QUERY", func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && len(analysis.QueryTerms(args[0], lang)) == 0 {
				return fmt.Errorf("QUERY %q has no searchable words (only stop words or punctuation): allowed is a query with words to search for", args[0])
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVarP(&collection, "collection", "c", "", "only these collections (comma-separated)")
	f.StringVar(&doc, "doc", "", "only this document")
	f.StringVar(&section, "section", "", "only this section of the document")
	f.IntVarP(&k, "k", "k", 10, "number of results")
	f.StringVar(&mode, "mode", "hybrid", "hybrid, dense or lexical")
	f.StringVar(&lang, "lang", "", "query language for stemming: de, en (default: both)")
	return cmd
}

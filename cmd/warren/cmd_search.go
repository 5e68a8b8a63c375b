package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"warren/kb"
	"warren/kb/analysis"
	"warren/retrieval"
)

func (a *app) searchCommand() *cobra.Command {
	var collection, doc, section, mode, lang string
	var k int
	cmd := checked(&cobra.Command{
		Use:   "search QUERY",
		Short: "Search the knowledge base (hybrid, dense or lexical; scoped by collection, document, section)",
		Long: `search ranks chunks for a query. Hybrid mode fuses the BM25 ranking of the lexical index
with the vector ranking by reciprocal rank; dense and lexical use one ranking alone. --doc takes
a registry path, a unique synonym or title, or the document's file or folder name; --section
narrows to one section ("§ 6", "4.2"; "4" includes 4.1, 4.2 …). Works without any model when the
collections were built with the built-in embedder.`,
		Example: `  warren search "purge before cylinder change"
  warren search "Gefährdungsbeurteilung" --doc GefStoffV --section "§ 6"
  warren search "add operation" --collection rfc -k 3 --mode lexical --json`,
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			scope := kb.Scope{Section: section}
			if collection != "" {
				scope.Collections = splitList(collection)
			}
			results, err := e.SearchIn(ctx, retrieval.Request{Query: args[0], Scope: scope, K: k, Mode: retrieval.Mode(mode), Language: lang}, doc)
			if err != nil || a.jsonOut {
				return a.resultJSON(emptyIfNil(results), collectionUsage(err, "collection", collection))
			}
			if len(results) == 0 {
				fmt.Fprintln(a.stdout, "No matching passages.")
			}
			for i, r := range results {
				fmt.Fprintf(a.stdout, "%2d. %s — %s  [%s, %.4f]\n    %s\n", i+1, docSection(r.Doc, r.Section), r.Heading, r.Collection, r.Score, snippet(r.Text, 220))
			}
			return nil
		}),
	},
		text(0, "QUERY", "a query with words to search for"),
		atLeast("k", &k, 1),
		oneOf("mode", &mode, string(retrieval.Hybrid), string(retrieval.Dense), string(retrieval.Lexical)),
		oneOf("lang", &lang, "de", "en"),
		collectionList("collection", &collection),
		when("section", func(cmd *cobra.Command, args []string) error {
			if section != "" && doc == "" {
				return fmt.Errorf("--section %q needs --doc: a section number means something only within a document", section)
			}
			return nil
		}),
		when("QUERY", func(cmd *cobra.Command, args []string) error {
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

// docSection names a place: the document, and the section in it when there is one.
func docSection(doc, section string) string {
	if section != "" {
		return doc + " " + section
	}
	return doc
}

func snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return text[:cut] + " …"
}

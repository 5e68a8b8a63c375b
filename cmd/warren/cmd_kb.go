package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
)

func (a *app) kbCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "kb"}
	var collection string
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			l, err := e.List(ctx, collection)
			if err != nil {
				return collectionUsage(err, "collection", collection)
			}
			if a.jsonOut {
				l.Collections, l.Documents = cli.EmptyIfNil(l.Collections), cli.EmptyIfNil(l.Documents)
				return a.printJSON(l)
			}
			if len(l.Collections) == 0 {
				fmt.Fprintln(a.stdout, "The knowledge base is empty: add documents with `warren ingest`.")
				return nil
			}
			a.table("COLLECTION\tDOCUMENTS\tCHUNKS\tEMBEDDER", len(l.Collections), func(i int) string {
				c := l.Collections[i]
				return fmt.Sprintf("%s\t%d\t%d\t%s", c.Name, c.Documents, c.Chunks, c.Embedder)
			})
			fmt.Fprintln(a.stdout)
			return a.table("DOCUMENT\tCOLLECTION\tCHUNKS\tLANG\tTITLE", len(l.Documents), func(i int) string {
				d := l.Documents[i]
				return fmt.Sprintf("%s\t%s\t%d\t%s\t%s", d.ID, d.Collection, d.Chunks, d.Language, d.Title)
			})
		}),
	}
	list.Flags().StringVarP(&collection, "collection", "c", "", "only this collection")
	cli.Checked(list, cli.CollectionName("collection", &collection))
	rm := &cobra.Command{
		Use:  "rm DOC...",
		Args: cobra.MinimumNArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			removed, err := e.RemoveDocuments(ctx, args)
			if err != nil || a.jsonOut {
				return a.resultJSON(map[string]any{"removed": removed}, err)
			}
			fmt.Fprintf(a.stdout, "Removed %s.\n", strings.Join(removed, ", "))
			return nil
		}),
	}
	cmd.AddCommand(list, rm)
	return cmd
}

// checkCollections refuses collection names the knowledge base does not have: the value of
// the flag that named them is a usage error that lists the collections there are.
func checkCollections(ctx context.Context, e *env, flag, value string, names []string) error {
	return collectionUsage(e.CheckCollections(ctx, names), flag, value)
}

// collectionUsage turns a collection the knowledge base lacks into a usage error of the flag
// that named it; other errors pass unchanged.
func collectionUsage(err error, flag, value string) error {
	var unknown *service.UnknownCollectionError
	switch {
	case !errors.As(err, &unknown):
		return err
	case len(unknown.Have) == 0:
		return cli.UsageError{Err: cli.WithHint(fmt.Errorf("%s %q: the knowledge base has no collections yet", cli.FlagName(flag), value),
			"add documents with `warren ingest PATH --collection NAME`")}
	}
	return cli.Usage("%s %q: no collection %q in the knowledge base; allowed is %s", cli.FlagName(flag), value, unknown.Name, cli.OrList(unknown.Have))
}

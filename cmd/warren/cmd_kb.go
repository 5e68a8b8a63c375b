package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/config"
	"warren/internal/cli"
	"warren/kb"
	"warren/kb/kbcopy"
	"warren/service"
)

func (a *app) kbCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "kb"}
	var collection string
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			l, err := e.Knowledge().List(ctx, collection)
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
			removed, err := e.Knowledge().RemoveDocuments(ctx, args)
			if err != nil || a.jsonOut {
				return a.resultJSON(map[string]any{"removed": removed}, err)
			}
			fmt.Fprintf(a.stdout, "Removed %s.\n", cli.Line(strings.Join(removed, ", ")))
			return nil
		}),
	}
	cmd.AddCommand(list, rm, a.kbMigrateCommand())
	return cmd
}

func (a *app) kbMigrateCommand() *cobra.Command {
	var to string
	var prune bool
	cmd := cli.Checked(&cobra.Command{
		Use:  "migrate --to weaviate|embedded",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error { return a.migrate(ctx, cmd, e, to, prune) })
		},
	}, cli.OneOf("to", &to, kb.BackendWeaviate, kb.BackendEmbedded),
		cli.When("to", func(cmd *cobra.Command, args []string) error {
			if !cli.Given(cmd, "to") {
				return fmt.Errorf("--to is missing: allowed is %s or %s", kb.BackendWeaviate, kb.BackendEmbedded)
			}
			return nil
		}))
	cmd.Flags().StringVar(&to, "to", "", "the backend to copy the knowledge base to: weaviate or embedded")
	cmd.Flags().BoolVar(&prune, "prune", false, "remove documents from the destination that the source does not hold")
	return cmd
}

// migrate runs `warren kb migrate` and prints its report.
func (a *app) migrate(ctx context.Context, cmd *cobra.Command, e *env, to string, prune bool) error {
	bar := cli.NewProgressLine(a.stderr)
	rep, err := e.Knowledge().Migrate(ctx, service.MigrateOptions{To: to, Prune: prune, Progress: func(p kbcopy.Progress) {
		bar.Draw(fmt.Sprintf("%d/%d documents · %d chunks copied · %s", p.Done, p.Total, p.Chunks, p.Doc)) // Draw cleans it
	}})
	bar.Done()
	var extra *kbcopy.ExtraDocumentsError
	if errors.As(err, &extra) {
		err = cli.WithHint(err, "give --prune to remove them from the destination, or remove them there first")
	} else if err != nil && ctx.Err() == nil {
		err = cli.WithHint(err, "run the same command again: it goes on where it stopped (after a mismatch, it copies everything anew)")
	}
	if err != nil {
		return a.fail(cmd, rep, err)
	}
	return a.output(rep, func(w io.Writer) error {
		where := rep.To
		if rep.To == kb.BackendWeaviate {
			where += " at " + rep.URL
		}
		fmt.Fprintf(w, "Copied %s (%s) from %s to %s", cli.Plural(rep.Copied, "document", "documents"),
			cli.Plural(rep.Chunks, "chunk", "chunks"), rep.From, where)
		if rep.Resumed > 0 {
			fmt.Fprintf(w, "; %d were copied by an earlier run", rep.Resumed)
		}
		fmt.Fprintln(w, ".")
		for _, id := range rep.Pruned {
			fmt.Fprintf(w, "Removed %s from %s (not in the source).\n", cli.Line(id), rep.To)
		}
		fmt.Fprintf(w, "Verified: %d documents, %d chunks and checksum %s on both sides.\n",
			rep.Destination.Documents, rep.Destination.Chunks, rep.Destination.Sum)
		if e.Knowledge().Backend() != rep.To {
			fmt.Fprintf(w, "To search it, set kb.backend = %q in warren.toml (or %s=%s).\n", rep.To, config.EnvName("kb.backend"), rep.To)
		}
		return nil
	})
}

// checkCollections refuses collection names the knowledge base does not have: the value of
// the flag that named them is a usage error that lists the collections there are.
func checkCollections(ctx context.Context, e *env, flag, value string, names []string) error {
	return collectionUsage(e.Knowledge().CheckCollections(ctx, names), flag, value)
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

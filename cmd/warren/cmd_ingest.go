package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/kb"
	"warren/registry"
	"warren/service"
)

func (a *app) ingestCommand() *cobra.Command {
	var collection, registryFile, embedder string
	var force, allowOutside, followSymlinks, move bool
	cmd := cli.Checked(&cobra.Command{
		Use: "ingest [PATH...]",
		RunE: func(cmd *cobra.Command, args []string) error {
			var reg *registry.Registry
			var items []kb.Item
			if registryFile != "" {
				var err error
				var refused *service.RegistryRefusal
				if reg, items, err = service.IngestRegistry(registryFile, allowOutside); errors.As(err, &refused) {
					return a.refuseRegistry(cmd, refused)
				} else if err != nil {
					return err
				}
			}
			return a.onWorkspace(cmd, func(ctx context.Context, e *env) error {
				bar := cli.NewProgressLine(a.stderr)
				// Stopping after Ctrl-C stores the documents in hand and saves the index, which
				// takes a while: the line says so at once rather than freeze on a time left.
				said := make(chan struct{})
				unsay := context.AfterFunc(ctx, func() {
					defer close(said)
					bar.Stopping("stopping: saving what is done…")
				})
				// The paths are the desk's to read, as the workbench's are.
				rep, err := e.Knowledge().Ingest(ctx, items, service.IngestOptions{Paths: args, Collection: collection, FollowSymlinks: followSymlinks,
					Embedder: embedder, Force: force, Move: move, Registry: reg,
					Progress: bar.Ingest, Note: func(msg string) {
						bar.Done()
						fmt.Fprintln(a.stderr, "note:", msg)
					}})
				if !unsay() && ctx.Err() != nil {
					<-said // drawn before the line is cleared, not after
				}
				bar.Done()
				if err != nil {
					return err
				}
				return a.report(cmd, rep, cli.IngestOutcome(rep), func(w io.Writer) { cli.WriteIngestReport(w, rep) })
			})
		},
	},
		cli.CollectionName("collection", &collection),
		cli.OneOf("embedder", &embedder, "auto", "builtin", "ollama"),
		cli.When("registry", func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && registryFile == "":
				return fmt.Errorf("nothing to ingest: allowed is PATH... or --registry FILE (one of the two)")
			case len(args) > 0 && registryFile != "":
				return fmt.Errorf("--registry %q with PATH %q: allowed is PATH... or --registry FILE, not both", registryFile, args[0])
			case allowOutside && registryFile == "":
				return fmt.Errorf("--allow-outside without --registry: it allows a registry's documents outside its folder")
			case followSymlinks && registryFile != "":
				return fmt.Errorf("--follow-symlinks with --registry: a registry's documents are read where it names them; --allow-outside allows them outside its folder")
			case cli.Given(cmd, "collection") && registryFile != "":
				return fmt.Errorf("--collection %q with --registry: the registry names each document's collection", collection)
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVarP(&collection, "collection", "c", "general", "collection for the documents")
	f.StringVar(&registryFile, "registry", "", "ingest every document this registry file lists")
	f.BoolVar(&allowOutside, "allow-outside", false, "with --registry: ingest documents outside the registry's folder too")
	f.BoolVar(&followSymlinks, "follow-symlinks", false, "ingest what symbolic links in a folder lead to even outside it (without: skipped, each with its reason)")
	f.StringVar(&embedder, "embedder", "", "auto, builtin or ollama (default kb.embedder, auto)")
	f.BoolVar(&move, "move", false, "move documents already in another collection into this one (without it, such an ingest is refused)")
	f.BoolVar(&force, "rebuild", false, "re-ingest unchanged documents too (after changing the embedder or chunking)")
	return cmd
}

// refuseRegistry lists the problems that keep a registry from being ingested, and says how
// to fix them.
func (a *app) refuseRegistry(cmd *cobra.Command, r *service.RegistryRefusal) error {
	n := len(r.Problems)
	what := cli.Plural(n, "conflicting entry", "conflicting entries")
	hint := "make each path and synonym name one document (`warren registry check " + r.Path + "` shows every problem), then ingest again"
	if r.Outside {
		what = cli.Plural(n, "document outside the registry's folder", "documents outside the registry's folder")
		hint = "move them under " + filepath.Dir(r.Path) + ", or give --allow-outside to ingest them from where they are"
	}
	err := cli.WithHint(fmt.Errorf("couldn't ingest %s: %d %s (listed above); nothing was ingested", r.Path, n, what), hint)
	return a.report(cmd, map[string]any{"registry": r.Path, "problems": r.Problems}, err, func(w io.Writer) { printProblems(w, r.Problems) })
}

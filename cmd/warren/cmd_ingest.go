package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/kb"
	"warren/registry"
	"warren/service"
)

func (a *app) ingestCommand() *cobra.Command {
	var collection, registryFile, embedder string
	var force, allowOutside bool
	cmd := cli.Checked(&cobra.Command{
		Use:   "ingest [PATH...]",
		Short: "Add documents to the knowledge base (Markdown, text, PDF, HTML, folder documents)",
		RunE: func(cmd *cobra.Command, args []string) error {
			var reg *registry.Registry
			var items []kb.Item
			var err error
			var refused *service.RegistryRefusal
			if registryFile == "" {
				items, err = kb.CollectItems(args, collection)
			} else if reg, items, err = service.IngestRegistry(registryFile, allowOutside); errors.As(err, &refused) {
				return a.refuseRegistry(cmd, refused)
			}
			if err != nil {
				return err
			}
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx, stop := interruptible(cmd)
			defer stop()
			bar := cli.NewProgressLine(a.stderr)
			rep, err := e.IngestJob(ctx, items, service.IngestOptions{Embedder: embedder, Force: force, Registry: reg,
				Progress: bar.Ingest, Note: func(msg string) {
					bar.Done()
					fmt.Fprintln(a.stderr, "note:", msg)
				}})
			bar.Done()
			if err != nil {
				return err
			}
			if !a.jsonOut {
				printIngestReport(a, rep)
			}
			if err := ingestOutcome(rep); err != nil {
				return a.fail(cmd, rep, err)
			}
			if a.jsonOut {
				return a.printJSON(rep)
			}
			return nil
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
			case cli.Given(cmd, "collection") && registryFile != "":
				return fmt.Errorf("--collection %q with --registry: the registry names each document's collection", collection)
			}
			return nil
		}))
	f := cmd.Flags()
	f.StringVarP(&collection, "collection", "c", "general", "collection for the documents")
	f.StringVar(&registryFile, "registry", "", "ingest every document this registry file lists")
	f.BoolVar(&allowOutside, "allow-outside", false, "with --registry: ingest documents outside the registry's folder too")
	f.StringVar(&embedder, "embedder", "", "auto, builtin or ollama (default kb.embedder, auto)")
	f.BoolVar(&force, "rebuild", false, "re-ingest unchanged documents too (after changing the embedder or chunking)")
	return cmd
}

// refuseRegistry lists the problems that keep a registry from being ingested, and says how
// to fix them.
func (a *app) refuseRegistry(cmd *cobra.Command, r *service.RegistryRefusal) error {
	if !a.jsonOut {
		for _, p := range r.Problems {
			fmt.Fprintln(a.stdout, p.String())
		}
	}
	n := len(r.Problems)
	what := cli.Plural(n, "conflicting entry", "conflicting entries")
	hint := "make each path and synonym name one document (`warren registry check " + r.Path + "` shows every problem), then ingest again"
	if r.Outside {
		what = cli.Plural(n, "document outside the registry's folder", "documents outside the registry's folder")
		hint = "move them under " + filepath.Dir(r.Path) + ", or give --allow-outside to ingest them from where they are"
	}
	return a.fail(cmd, map[string]any{"registry": r.Path, "problems": r.Problems},
		cli.WithHint(fmt.Errorf("couldn't ingest %s: %d %s (listed above); nothing was ingested", r.Path, n, what), hint))
}

// ingestOutcome is the exit class of a finished ingest: interrupted (1), nothing stored (5),
// some files skipped or failed (3), or nil.
func ingestOutcome(rep *kb.IngestReport) error {
	bad := rep.Skipped + rep.Failed
	switch {
	case rep.Canceled:
		return cli.WithHint(fmt.Errorf("interrupted: %d document(s) stored, the rest left as they were", rep.Ingested),
			"run the same ingest again to go on: stored files are unchanged and skipped")
	case len(rep.Files) == 0:
		return cli.NothingStored("give files or folders with documents warren reads (Markdown, text, PDF, HTML)", "nothing stored: no files to ingest")
	case rep.Ingested+rep.Unchanged == 0: // an unchanged file is stored
		return cli.NothingStored("fix or remove the files listed, then ingest again",
			"nothing stored: all %d %s skipped or failed (each is listed with its reason)", bad, cli.Plural(bad, "file was", "files were"))
	case rep.Partial():
		return cli.Partial("fix or remove the files listed, then ingest again (stored files are unchanged and skipped)",
			"%d of %d files skipped or failed (each is listed with its reason); the others are stored", bad, len(rep.Files))
	}
	return nil
}

func printIngestReport(a *app, rep *kb.IngestReport) {
	for _, f := range rep.Files {
		switch f.Status {
		case kb.StatusSkipped, kb.StatusFailed:
			fmt.Fprintf(a.stdout, "%-7s %s: %s\n", strings.ToUpper(f.Status[:4]), f.Path, f.Reason)
		}
	}
	fmt.Fprintf(a.stdout, "Ingested %d, unchanged %d, skipped %d, failed %d: %d chunks in %.1fs (%.0f chunks/s).\n",
		rep.Ingested, rep.Unchanged, rep.Skipped, rep.Failed, rep.Chunks, rep.Duration.Seconds(), rep.ChunksPerSec)
}

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"warren/kb"
	"warren/registry"
)

func (a *app) kbCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "kb",
		Short:   "List and remove knowledge-base documents",
		Example: "  warren kb list\n  warren kb list --collection rfc --json\n  warren kb rm rfc/rfc2119.txt",
	}
	var collection string
	list := &cobra.Command{
		Use:     "list",
		Short:   "List collections and documents with their chunk counts and embedder",
		Example: "  warren kb list\n  warren kb list --collection suppliers --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			if collection != "" {
				if err := checkCollections(ctx, e, "collection", collection, []string{collection}); err != nil {
					return err
				}
			}
			cols, err := e.Store.Collections(ctx)
			if err != nil {
				return err
			}
			docs, err := e.Store.Documents(ctx, collection)
			if err != nil {
				return err
			}
			if collection != "" {
				var only []kb.CollectionInfo
				for _, c := range cols {
					if c.Name == collection {
						only = append(only, c)
					}
				}
				cols = only
			}
			if a.jsonOut {
				cols = emptyIfNil(cols)
				docs = emptyIfNil(docs)
				return a.printJSON(map[string]any{"collections": cols, "documents": docs})
			}
			if len(cols) == 0 {
				fmt.Fprintln(a.stdout, "The knowledge base is empty: add documents with `warren ingest`.")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "COLLECTION\tDOCUMENTS\tCHUNKS\tEMBEDDER")
			for _, c := range cols {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.Name, c.Documents, c.Chunks, c.Embedder)
			}
			tw.Flush()
			fmt.Fprintln(a.stdout)
			tw = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DOCUMENT\tCOLLECTION\tCHUNKS\tLANG\tTITLE")
			for _, d := range docs {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", d.ID, d.Collection, d.Chunks, d.Language, d.Title)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVarP(&collection, "collection", "c", "", "only this collection")
	checked(list, collectionName("collection", &collection))
	rm := &cobra.Command{
		Use:     "rm DOC...",
		Short:   "Remove documents (and their chunks and vectors) from the knowledge base",
		Long:    "rm removes documents by registry path, synonym or file name; their registry entries stay, so a later ingest can bring them back.",
		Example: "  warren kb rm rfc/rfc2119.txt\n  warren kb rm GefStoffV ChemG",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			var removed []string
			for _, name := range args {
				id, err := findDocument(ctx, e, name)
				if err != nil {
					return err
				}
				if _, err := e.Store.RemoveDocument(ctx, id); err != nil {
					return err
				}
				removed = append(removed, id)
			}
			if err := e.Store.SaveVectors(ctx); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"removed": removed})
			}
			fmt.Fprintf(a.stdout, "Removed %s.\n", strings.Join(removed, ", "))
			return nil
		},
	}
	cmd.AddCommand(list, rm)
	return cmd
}

// findDocument turns what an analyst typed into a stored document ID: the ID itself, or else
// a registry name (synonym, title) or the file or folder name, with or without a known
// extension. When these point at different documents the name is ambiguous and says so.
func findDocument(ctx context.Context, e *env, name string) (string, error) {
	docs, err := e.Store.Documents(ctx, "")
	if err != nil {
		return "", err
	}
	candidates := map[string]bool{}
	for _, d := range docs {
		if d.ID == name {
			return d.ID, nil
		}
		base := filepath.Base(d.ID)
		if strings.EqualFold(base, name) || strings.EqualFold(trimKnownExt(base), name) {
			candidates[d.ID] = true
		}
	}
	reg, err := e.Registry()
	if err != nil {
		return "", err
	}
	if m, ok := registry.NewResolver(reg).Resolve(name, ""); ok && m.Method == registry.MethodExact {
		for _, d := range docs {
			if d.ID == m.Doc.Path {
				candidates[d.ID] = true
			}
		}
	}
	switch len(candidates) {
	case 1:
		for id := range candidates {
			return id, nil
		}
	case 0:
		return "", fmt.Errorf("no document %q in the knowledge base: `warren kb list` shows what is there", name)
	}
	ids := make([]string, 0, len(candidates))
	for id := range candidates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return "", fmt.Errorf("%q could mean %s: give the full document path", name, strings.Join(ids, " or "))
}

// trimKnownExt drops a file extension warren reads, so "rfc6902" names rfc6902.txt but "12"
// does not name the folder 12.BImSchV.
func trimKnownExt(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".md", ".markdown", ".txt", ".text", ".pdf", ".html", ".htm":
		return strings.TrimSuffix(name, filepath.Ext(name))
	}
	return name
}

// checkCollections refuses collection names the knowledge base does not have: the value of
// the flag that named them is a usage error that lists the collections there are.
func checkCollections(ctx context.Context, e *env, flag, value string, names []string) error {
	cols, err := e.Store.Collections(ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	var all []string
	for _, c := range cols {
		have[c.Name] = true
		all = append(all, c.Name)
	}
	for _, n := range names {
		if have[n] {
			continue
		}
		if len(all) == 0 {
			return usageError{withHint(fmt.Errorf("%s %q: the knowledge base has no collections yet", flagName(flag), value),
				"add documents with `warren ingest PATH --collection NAME`")}
		}
		return usageError{fmt.Errorf("%s %q: no collection %q in the knowledge base; allowed is %s", flagName(flag), value, n, orList(all))}
	}
	return nil
}

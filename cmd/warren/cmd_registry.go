package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/registry"
)

func (a *app) registryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Check the document registry and propose synonyms",
	}
	check := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Validate document paths and find synonyms used by two documents",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := filepath.Join(a.workspaceDir(), registry.FileName)
			if len(args) == 1 {
				path = args[0]
			}
			problems, err := registry.Check(path)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				if !a.jsonOut {
					for _, p := range problems {
						fmt.Fprintln(a.stdout, p.String())
					}
				}
				return a.fail(cmd, map[string]any{"registry": path, "problems": problems},
					cli.WithHint(fmt.Errorf("%s: %d %s", path, len(problems), cli.Plural(len(problems), "problem", "problems")),
						"correct the registry file as each problem says, then check it again"))
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"registry": path, "problems": cli.EmptyIfNil(problems)})
			}
			fmt.Fprintf(a.stdout, "%s: no problems.\n", path)
			return nil
		},
	}
	var apply bool
	suggest := &cobra.Command{
		Use:   "suggest",
		Short: "Propose synonyms for the workspace's documents from their metadata",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.open()
			if err != nil {
				return err
			}
			defer e.Close()
			proposals, err := e.SuggestSynonyms(cmd.Context(), apply)
			if err != nil {
				return err
			}
			if a.jsonOut {
				byDoc := map[string][]string{}
				for _, p := range proposals {
					byDoc[p.Doc] = p.Synonyms
				}
				return a.printJSON(byDoc)
			}
			if len(proposals) == 0 {
				fmt.Fprintln(a.stdout, "No new synonyms to propose.")
			}
			for _, p := range proposals {
				fmt.Fprintf(a.stdout, "%s: %s\n", p.Doc, strings.Join(p.Synonyms, "; "))
			}
			if apply && len(proposals) > 0 {
				fmt.Fprintln(a.stdout, "Added to the workspace registry.")
			}
			return nil
		},
	}
	suggest.Flags().BoolVar(&apply, "apply", false, "add the proposals to the workspace registry")
	cmd.AddCommand(check, suggest)
	return cmd
}

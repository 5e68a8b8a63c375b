package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/registry"
)

func (a *app) registryCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "registry"}
	check := &cobra.Command{
		Use:  "check [FILE]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := filepath.Join(a.workspaceDir(), registry.FileName)
			if len(args) == 1 {
				path = args[0]
			}
			problems, err := registry.Check(path)
			if err != nil {
				return err
			}
			var failed error
			if len(problems) > 0 {
				failed = cli.WithHint(fmt.Errorf("%s: %d %s", path, len(problems), cli.Plural(len(problems), "problem", "problems")),
					"correct the registry file as each problem says, then check it again")
			}
			return a.report(cmd, map[string]any{"registry": path, "problems": cli.EmptyIfNil(problems)}, failed, func(w io.Writer) {
				printProblems(w, problems)
				if len(problems) == 0 {
					fmt.Fprintf(w, "%s: no problems.\n", path)
				}
			})
		},
	}
	var apply bool
	suggest := &cobra.Command{
		Use:  "suggest",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				proposals, err := e.Knowledge().SuggestSynonyms(cmd.Context(), apply)
				if err != nil {
					return err
				}
				byDoc := map[string][]string{}
				for _, p := range proposals {
					byDoc[p.Doc] = p.Synonyms
				}
				return a.output(byDoc, func(w io.Writer) error {
					if len(proposals) == 0 {
						fmt.Fprintln(w, "No new synonyms to propose.")
					}
					for _, p := range proposals {
						fmt.Fprintf(w, "%s: %s\n", cli.Line(p.Doc), cli.Line(strings.Join(p.Synonyms, "; ")))
					}
					if apply && len(proposals) > 0 {
						fmt.Fprintln(w, "Added to the workspace registry.")
					}
					return nil
				})
			})
		},
	}
	suggest.Flags().BoolVar(&apply, "apply", false, "add the proposals to the workspace registry")
	cmd.AddCommand(check, suggest)
	return cmd
}

// printProblems lists a registry's problems, one a line.
func printProblems(w io.Writer, problems []registry.Problem) {
	for _, p := range problems {
		fmt.Fprintln(w, cli.Line(p.String()))
	}
}

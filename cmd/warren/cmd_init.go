package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/internal/schema"
	"warren/kb"
)

func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "init [DIR]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.workspaceDir()
			if len(args) == 1 {
				dir = args[0]
			}
			res, err := kb.Init(dir, schema.All())
			if err != nil {
				return err
			}
			return a.output(res, func(w io.Writer) error {
				if len(res.Created) == 0 {
					_, err := fmt.Fprintf(w, "Workspace %s is complete; nothing to create.\n", res.Dir)
					return err
				}
				fmt.Fprintf(w, "Workspace %s: created %s.\n", res.Dir, strings.Join(res.Created, ", "))
				fmt.Fprint(w, cli.Wrap("Kept as they were: ", strings.Join(res.Existing, ", "), ".\n"))
				_, err := fmt.Fprintf(w, "Next: edit %s/warren.toml if your models differ, then run `warren doctor`.\n", res.Dir)
				return err
			})
		},
	}
}

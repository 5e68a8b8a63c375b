package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/schema"
	"warren/kb"
)

func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a workspace (configuration, empty registry, stores)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.workspaceDir()
			if len(args) == 1 {
				dir = args[0]
			}
			res, err := kb.Init(dir, schema.All())
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res)
			}
			if len(res.Created) == 0 {
				fmt.Fprintf(a.stdout, "Workspace %s is complete; nothing to create.\n", res.Dir)
				return nil
			}
			fmt.Fprintf(a.stdout, "Workspace %s: created %s.\n", res.Dir, strings.Join(res.Created, ", "))
			if len(res.Existing) > 0 {
				fmt.Fprintf(a.stdout, "Kept as they were: %s.\n", strings.Join(res.Existing, ", "))
			}
			fmt.Fprintf(a.stdout, "Next: edit %s/warren.toml if your models differ, then run `warren doctor`.\n", res.Dir)
			return nil
		},
	}
}

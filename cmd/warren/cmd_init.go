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
		Long: `init creates a workspace folder with warren.toml, an empty registry.json, the SQLite
database warren.db (WAL mode), and the vectors/ and exports/ folders. Run it again on an
existing workspace to add missing parts; files you edited are never overwritten.`,
		Example: "  warren init                # ./.warren, or $WARREN_WORKSPACE\n  warren init ~/fab-research\n  warren init --json",
		Args:    cobra.MaximumNArgs(1),
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

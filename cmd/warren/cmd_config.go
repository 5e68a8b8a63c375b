package main

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"warren/config"
)

func (a *app) configCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show every setting, its effective value and where it came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src := a.sources()
			src.File = filepath.Join(a.workspaceDir(), config.FileName)
			cfg, err := config.Load(src)
			if err != nil {
				return err
			}
			entries := cfg.Entries()
			if a.jsonOut {
				return a.printJSON(entries)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tVALUE\tFROM\tALLOWED")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%v\t%s\t%s\n", e.Key, e.Value, e.Source, e.Allowed)
			}
			return tw.Flush()
		},
	}
}

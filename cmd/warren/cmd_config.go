package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"warren/config"
)

func (a *app) configCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "config",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src := a.sources()
			src.File = filepath.Join(a.workspaceDir(), config.FileName)
			cfg, err := config.Load(src)
			if err != nil {
				return err
			}
			entries := cfg.Entries()
			return a.listing(entries, "", "KEY\tVALUE\tFROM\tALLOWED", len(entries), func(i int) string {
				e := entries[i]
				return fmt.Sprintf("%s\t%v\t%s\t%s", e.Key, e.Value, e.Source, e.Allowed)
			})
		},
	}
}

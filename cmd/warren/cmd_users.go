package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"warren/access"
	"warren/internal/cli"
)

// authorizedKeys is the analysts' key file: --authorized-keys, else serve/authorized_keys in
// the workspace.
func (a *app) authorizedKeys(flag string) string {
	if flag != "" {
		return flag
	}
	return filepath.Join(a.workspaceDir(), "serve", "authorized_keys")
}

func (a *app) usersCommand() *cobra.Command {
	var keys string
	cmd := &cobra.Command{
		Use: "users",
	}
	cmd.PersistentFlags().StringVar(&keys, "authorized-keys", "", "the analysts' key file (default serve/authorized_keys in the workspace)")
	var admin bool
	add := &cobra.Command{
		Use:  "add NAME KEYFILE",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := access.CheckName(args[0]); err != nil {
				return cli.UsageError{Err: err}
			}
			text, err := os.ReadFile(args[1])
			if err != nil {
				return fmt.Errorf("couldn't read the key file: %w", err)
			}
			key, _, err := access.ParseKey(text)
			if err != nil {
				return cli.UsageError{Err: fmt.Errorf("%s: %w", args[1], err)}
			}
			path := a.authorizedKeys(keys)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			added, err := access.Add(path, args[0], key, admin)
			if err != nil {
				return err
			}
			return a.output(added, func(w io.Writer) error {
				role := "analyst"
				if added.Admin {
					role = "admin"
				}
				_, err := fmt.Fprintf(w, "Added %s (%s, %s %s) to %s; it takes effect at their next connection.\n", added.Name, role, added.Type, added.Fingerprint, path)
				return err
			})
		},
	}
	add.Flags().BoolVar(&admin, "admin", false, "an admin may answer, approve and cancel every analyst's jobs")
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := a.authorizedKeys(keys)
			all, err := access.Load(path)
			if err != nil {
				return err
			}
			return a.output(cli.EmptyIfNil(all), func(w io.Writer) error {
				if len(all) == 0 {
					_, err := fmt.Fprintf(w, "No analyst may connect yet (%s): add one with `warren users add NAME KEYFILE`.\n", path)
					return err
				}
				return cli.Rows(w, "NAME\tROLE\tKEY", len(all), func(i int) string {
					role := "analyst"
					if all[i].Admin {
						role = "admin"
					}
					return fmt.Sprintf("%s\t%s\t%s %s", all[i].Name, role, all[i].Type, all[i].Fingerprint)
				})
			})
		},
	}
	rm := &cobra.Command{
		Use:  "rm NAME",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := a.authorizedKeys(keys)
			n, err := access.Remove(path, args[0])
			if err != nil {
				return err
			}
			if n == 0 {
				return cli.WithHint(fmt.Errorf("no analyst %q in %s", args[0], path), "`warren users list` shows who is there")
			}
			return a.output(map[string]any{"name": args[0], "removed_keys": n}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Removed %s (%s); a connection open now stays until it closes.\n", args[0], fmt.Sprintf("%d %s", n, cli.Plural(n, "key", "keys")))
				return err
			})
		},
	}
	cmd.AddCommand(add, list, rm)
	return cmd
}

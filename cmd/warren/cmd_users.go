package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	var from, expires string
	add := &cobra.Command{
		Use:  "add NAME KEYFILE",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := access.CheckName(args[0]); err != nil {
				return cli.UsageError{Err: err}
			}
			opts := access.KeyOptions{Admin: admin}
			// Checked before the key file is read: a bad flag is a usage error, whatever the key.
			if cmd.Flags().Changed("from") {
				if err := access.CheckFrom(from); err != nil {
					return cli.Usage("--from: %v", err)
				}
				opts.From = from
			}
			if cmd.Flags().Changed("expires") {
				t, err := access.ParseExpiry(expires)
				if err != nil {
					return cli.Usage("--expires: %v", err)
				}
				if !t.After(time.Now()) {
					return cli.Usage("--expires %s is already past (%s): the key would never get in; give a later date, YYYY-MM-DD or YYYYMMDDHHMM", expires, t.Format("2006-01-02 15:04 MST"))
				}
				opts.Expires = t
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
				return fmt.Errorf("couldn't create the folder of %s: %w", path, err)
			}
			added, err := access.AddWithOptions(path, args[0], key, opts)
			if err != nil {
				return err
			}
			// The key is written, but warren serve would refuse it: say so now, not at login.
			if err := access.CheckModes(filepath.Dir(path), path); err != nil {
				fmt.Fprintf(a.stderr, "warren: warning: %v (until then warren serve refuses every key)\n", err)
			}
			return a.output(added, func(w io.Writer) error {
				terms := []string{analystRole(added), added.Type + " " + added.Fingerprint}
				if added.From != "" {
					terms = append(terms, "from "+added.From)
				}
				if !added.Expires.IsZero() {
					terms = append(terms, "until "+added.Expires.Format("2006-01-02 15:04 MST"))
				}
				_, err := fmt.Fprintf(w, "Added %s (%s) to %s; it takes effect at their next connection.\n", added.Name, strings.Join(terms, ", "), path)
				return err
			})
		},
	}
	add.Flags().BoolVar(&admin, "admin", false, "an admin may answer, approve and cancel every analyst's jobs")
	add.Flags().StringVar(&from, "from", "", "let the key in only from these client addresses: comma-separated IPs, CIDR blocks (10.0.0.0/8, 2001:db8::/32) or wildcards (192.168.1.*), ! to exclude; no host names (warren does no DNS lookups)")
	add.Flags().StringVar(&expires, "expires", "", "refuse the key from this time on: YYYY-MM-DD (the start of that day) or YYYYMMDD[HHMM], local time")
	list := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := a.authorizedKeys(keys)
			all, err := access.Load(path)
			if err != nil {
				return err
			}
			// refused says why a key can't get in now, its expiry included.
			now := time.Now()
			for i := range all {
				all[i].Refused = all[i].RefusedAt(now)
			}
			return a.output(cli.EmptyIfNil(all), func(w io.Writer) error {
				if len(all) == 0 {
					_, err := fmt.Fprintf(w, "No analyst may connect yet (%s): add one with `warren users add NAME KEYFILE`.\n", path)
					return err
				}
				return cli.Rows(w, "NAME\tROLE\tKEY\tOPTIONS\tSTATUS", len(all), func(i int) string {
					status := "ok"
					if all[i].Refused != "" {
						status = "refused: " + all[i].Refused
					}
					return fmt.Sprintf("%s\t%s\t%s %s\t%s\t%s", all[i].Name, analystRole(all[i]), all[i].Type, all[i].Fingerprint, optionsText(all[i]), status)
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

// analystRole is how an analyst's role reads in a list.
func analystRole(a access.Analyst) string {
	if a.Admin {
		return "admin"
	}
	return "analyst"
}

// optionsText is a key's options as the file writes them, its role aside (ROLE shows it).
func optionsText(a access.Analyst) string {
	var shown []string
	for _, o := range a.Options {
		if !strings.EqualFold(o, `environment="WARREN_ROLE=admin"`) {
			shown = append(shown, o)
		}
	}
	if len(shown) == 0 {
		return "-"
	}
	return strings.Join(shown, ",")
}

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/service"
	"warren/tox"
	"warren/tox/jsonpatch"
)

func (a *app) toxCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "tox"}
	cmd.AddCommand(a.toxImportCommand(), a.toxListCommand(), a.toxShowCommand(), a.toxHistoryCommand(),
		a.toxDiffCommand(), a.toxRollbackCommand(), a.toxExportCommand())
	cmd.AddCommand(a.toxEditCommand(), a.toxBatchCommand(), a.toxApproveCommand())
	return cmd
}

// inciAllowed is what an INCI argument may be.
const inciAllowed = "an INCI name (`warren tox list` shows them)"

func (a *app) toxImportCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:  "import FILE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := call(a, func(e *env) (*service.ToxImported, error) { return e.Tox().Import(cmd.Context(), args[0]) }, func(w io.Writer, res *service.ToxImported) error {
				fmt.Fprintf(w, "Imported %s: %d %s — %d new, %d updated, %d unchanged.\n", cli.Line(res.File), res.Profiles,
					cli.Plural(res.Profiles, "profile", "profiles"), res.New, res.Updated, res.Unchanged)
				return cli.Table(w, func(tw io.Writer) {
					for _, r := range res.Results {
						fmt.Fprintf(tw, "  %s\t%s\tversion %d\n", r.Status, cli.Line(r.INCI), r.Version)
					}
				})
			})
			if f := (*service.ToxImportFailure)(nil); errors.As(err, &f) {
				return a.fail(cmd, f, cli.WithHint(f, "fix the file and import it again (docs/tox-profile.md describes the format)"))
			}
			return err
		},
	}, cli.Extension(0, "FILE", ".json", ".csv"))
}

func (a *app) toxListCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				list, err := e.Tox().Profiles(cmd.Context())
				if err != nil {
					return err
				}
				return a.listing(cli.EmptyIfNil(list), "No toxicology profiles: import some with `warren tox import FILE` (e.g. sample/tox/profiles.json).",
					"INCI\tCAS\tVERSION\tUPDATED", len(list), func(i int) string {
						p := list[i]
						return fmt.Sprintf("%s\t%s\t%d\t%s", p.INCI, cli.OrDash(p.CAS), p.Version, p.UpdatedAt.Local().Format("2006-01-02 15:04"))
					})
			})
		},
	}
}

func (a *app) toxShowCommand() *cobra.Command {
	var version int
	cmd := cli.Checked(&cobra.Command{
		Use:  "show INCI",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				v, err := e.Tox().Show(cmd.Context(), args[0], version)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(v.Data)
				}
				p, err := v.Profile()
				if err != nil {
					return fmt.Errorf("version %d of profile %s is not a valid profile: %w", v.Version, v.INCI, err)
				}
				cli.WriteProfile(a.stdout, v.ProfileVersion, v.Latest, p)
				return nil
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.AtLeast("version", &version, 1))
	cmd.Flags().IntVar(&version, "version", 0, "show this version (default: the latest)")
	return cmd
}

func (a *app) toxHistoryCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:  "history INCI",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) ([]tox.VersionInfo, error) { return e.Tox().History(cmd.Context(), args[0]) }, func(w io.Writer, hist []tox.VersionInfo) error {
				fmt.Fprintf(w, "%s: %d %s\n", cli.Line(hist[0].INCI), len(hist), cli.Plural(len(hist), "version", "versions"))
				return cli.Rows(w, "VERSION\tWHEN\tBY\tEDIT\tSUMMARY\tBATCH", len(hist), func(i int) string {
					v := hist[i]
					return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s", v.Version, v.CreatedAt.Local().Format("2006-01-02 15:04:05"), cli.OrDash(v.By), v.EditType, cli.OrDash(v.Summary), cli.OrDash(v.BatchID))
				})
			})
		},
	}, cli.Text(0, "INCI", inciAllowed))
}

func (a *app) toxDiffCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:  "diff INCI V1 V2",
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			v1, _ := cli.ToxVersion("V1", args[1]) // checked already
			v2, _ := cli.ToxVersion("V2", args[2])
			return a.inWorkspace(func(e *env) error {
				d, err := e.Tox().Diff(cmd.Context(), args[0], v1, v2)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(d.Ops)
				}
				text, err := jsonpatch.Render(d.From.Data, d.To.Data, cli.TerminalWidth(a.stdout, 100))
				if err == nil && text == "" {
					fmt.Fprintf(a.stdout, "Versions %d and %d of %s are identical.\n", v1, v2, cli.Line(d.From.INCI))
				} else if err == nil {
					inci := cli.Line(d.From.INCI)
					fmt.Fprintf(a.stdout, "--- %s version %d\n+++ %s version %d\n%s", inci, v1, inci, v2, text)
				}
				return err
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.ToxVersionArg(1, "V1"), cli.ToxVersionArg(2, "V2"))
}

func (a *app) toxRollbackCommand() *cobra.Command {
	var to int
	var yes bool
	cmd := cli.Checked(&cobra.Command{
		Use:  "rollback INCI --to N",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				plan, err := e.Tox().PlanRollback(cmd.Context(), args[0], to)
				if err != nil {
					return err
				}
				name, latest := plan.INCI, plan.Latest.Version
				if !yes && !cli.IsTerminal(a.stdin) {
					return cli.Usage("rolling %s back to version %d needs confirmation: add --yes (see the change first with `warren tox diff %s %d %d`)",
						name, to, service.ShellQuote(name), latest, to)
				}
				if !yes {
					diff, err := jsonpatch.Render(plan.Latest.Data, plan.Target.Data, cli.TerminalWidth(a.stdout, 100))
					if err != nil {
						return err
					}
					shown := cli.Line(name)
					fmt.Fprintf(a.stderr, "--- %s version %d (latest)\n+++ %s version %d\n%s", shown, latest, shown, to, diff)
					if diff == "" {
						fmt.Fprintf(a.stderr, "(version %d has the same data as the latest version)\n", to)
					}
					fmt.Fprintf(a.stderr, "Roll %s back to version %d, saved as version %d? [y/N] ", shown, to, latest+1)
					if !cli.Confirmed(a.stdin) {
						return a.fail(cmd, nil, cli.WithHint(fmt.Errorf("not rolled back: nothing was saved"), "answer y to roll back, or give --yes"))
					}
				}
				v, err := e.Tox().Rollback(cmd.Context(), name, to, latest, "")
				if err != nil {
					return err
				}
				return a.output(map[string]any{"inci": name, "to": to, "version": v}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "Rolled %s back to version %d: saved as version %d.\n", cli.Line(name), to, v)
					return err
				})
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.AtLeast("to", &to, 1), cli.When("to", func(cmd *cobra.Command, args []string) error {
		if !cli.Given(cmd, "to") {
			return fmt.Errorf("no --to: allowed is --to N, the version to roll back to; `warren tox history %s` lists them", service.ShellQuote(args[0]))
		}
		return nil
	}))
	cmd.Flags().IntVar(&to, "to", 0, "the version to restore (required)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "roll back without asking")
	return cmd
}

// toxExportCommand is `warren tox export INCI`: the profile's latest version as a document.
func (a *app) toxExportCommand() *cobra.Command {
	var format, out string
	formats := service.ReportFormats()
	cmd := cli.Checked(&cobra.Command{
		Use:  "export INCI",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) (map[string]any, error) {
				path, err := e.Tox().Export(cmd.Context(), args[0], format, out)
				return map[string]any{"inci": args[0], "format": format, "path": path}, err
			}, func(w io.Writer, res map[string]any) error {
				_, err := fmt.Fprintf(w, "Exported the profile of %s (%s) to %s.\n", cli.Line(args[0]), format, cli.Line(res["path"].(string)))
				return err
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.OneOf("format", &format, formats...))
	cmd.Flags().StringVarP(&format, "format", "f", "docx", "the file format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the document here (default exports/tox-INCI.FORMAT)")
	return cmd
}

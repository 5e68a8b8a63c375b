package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"warren/internal/cli"
	"warren/kb/toxdb"
	"warren/kb/toxdb/jsonpatch"
	"warren/service"
)

func (a *app) toxCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tox",
		Short: "Toxicology profiles: import, show, history, diff between versions, rollback",
	}
	cmd.AddCommand(a.toxImportCommand(), a.toxListCommand(), a.toxShowCommand(), a.toxHistoryCommand(),
		a.toxDiffCommand(), a.toxRollbackCommand())
	cmd.AddCommand(a.toxEditCommand(), a.toxBatchCommand(), a.toxApproveCommand())
	return cmd
}

// inciAllowed is what an INCI argument may be.
const inciAllowed = "an INCI name (`warren tox list` shows them)"

// versionArg: argument i is a version number.
func versionArg(i int, label string) cli.Rule {
	return cli.When(label, func(_ *cobra.Command, args []string) error {
		if i >= len(args) {
			return nil
		}
		_, err := toxVersionArg(label, args[i])
		return err
	})
}

// toxVersionArg reads a version number argument.
func toxVersionArg(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "v"))
	if err != nil || n < 1 {
		return 0, cli.Usage("%s %q: allowed is a version number (1, 2, …); `warren tox history INCI` lists them", name, s)
	}
	return n, nil
}

func (a *app) toxImportCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:   "import FILE",
		Short: "Import profiles from JSON or CSV; a changed profile gets a new version, an unchanged one none",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := call(a, func(e *env) (*service.ToxImported, error) { return e.ToxImport(cmd.Context(), args[0]) }, func(w io.Writer, res *service.ToxImported) error {
				fmt.Fprintf(w, "Imported %s: %d %s — %d new, %d updated, %d unchanged.\n", res.File, res.Profiles,
					cli.Plural(res.Profiles, "profile", "profiles"), res.New, res.Updated, res.Unchanged)
				return cli.Table(w, func(tw io.Writer) {
					for _, r := range res.Results {
						fmt.Fprintf(tw, "  %s\t%s\tversion %d\n", r.Status, r.INCI, r.Version)
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
		Use:   "list",
		Short: "List the profiles: INCI name, CAS, latest version, when it was saved",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) ([]toxdb.ProfileInfo, error) {
				list, err := e.ToxProfiles(cmd.Context())
				return cli.EmptyIfNil(list), err
			}, func(w io.Writer, list []toxdb.ProfileInfo) error {
				if len(list) == 0 {
					_, err := fmt.Fprintln(w, "No toxicology profiles: import some with `warren tox import FILE` (e.g. sample/tox/profiles.json).")
					return err
				}
				return cli.Table(w, func(tw io.Writer) {
					fmt.Fprintln(tw, "INCI\tCAS\tVERSION\tUPDATED")
					for _, p := range list {
						fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.INCI, cli.OrDash(p.CAS), p.Version, p.UpdatedAt.Local().Format("2006-01-02 15:04"))
					}
				})
			})
		},
	}
}

func (a *app) toxShowCommand() *cobra.Command {
	var version int
	cmd := cli.Checked(&cobra.Command{
		Use:   "show INCI",
		Short: "Show a profile (the latest version, or --version N): NOAEL table, DAP, Annex entries, references, statements",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				v, err := e.ToxShow(cmd.Context(), args[0], version)
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
				writeProfile(a.stdout, v.ProfileVersion, v.Latest, p)
				return nil
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), cli.AtLeast("version", &version, 1))
	cmd.Flags().IntVar(&version, "version", 0, "show this version (default: the latest)")
	return cmd
}

// writeProfile prints a profile for reading.
func writeProfile(w io.Writer, v toxdb.ProfileVersion, latest int, p *toxdb.Profile) {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	fmt.Fprintln(w, p.INCI+cli.Wrap(" (CAS ", p.CAS, ")"))
	fmt.Fprintf(w, "version %d of %d · %s · %s%s%s\n", v.Version, latest, v.CreatedAt.Local().Format("2006-01-02 15:04"), v.EditType,
		cli.Wrap(" · ", v.Summary, ""), cli.Wrap(" · batch ", v.BatchID, ""))

	fmt.Fprintf(w, "\nNOAEL (%d)\n", len(p.NOAEL))
	if len(p.NOAEL) > 0 {
		cli.Table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "  #\tVALUE\tUNIT\tTYPE\tSPECIES\tROUTE\tDAYS\tREF\tSTUDY")
			for i, n := range p.NOAEL {
				days, study := "—", n.Study
				if n.DurationDays != nil {
					days = strconv.Itoa(*n.DurationDays)
				}
				if n.Source != "" {
					study = strings.TrimSpace(study + " [" + n.Source + "]")
				}
				fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, num(n.Value), n.Unit, n.Type,
					cli.OrDash(n.Species), cli.OrDash(n.Route), days, cli.OrDash(n.Reference), cli.OrDash(study))
			}
		})
	}
	fmt.Fprintf(w, "\nDAP (%d)\n", len(p.DAP))
	for _, d := range p.DAP {
		fmt.Fprintf(w, "  %s %%%s%s\n", num(d.Value), cli.Wrap("  ", d.Source, ""), cli.Wrap("  [", d.Reference, "]"))
	}
	fmt.Fprintf(w, "\nAnnex entries (%d)\n", len(p.AnnexEntries))
	for _, x := range p.AnnexEntries {
		limits := strings.Join(cli.NonEmpty(x.ProductType, cli.Wrap("max ", x.MaxConcentration, ""), x.Conditions), "; ")
		fmt.Fprintf(w, "  Annex %s%s%s\n", x.Annex, cli.Wrap(" entry ", x.Entry, ""), cli.Wrap(": ", limits, ""))
	}
	fmt.Fprintf(w, "\nReferences (%d)\n", len(p.References))
	for _, r := range p.References {
		fmt.Fprintf(w, "  [%s] %s\n", r.ID, r.Citation)
	}
	fmt.Fprintf(w, "\nStatements (%d)\n", len(p.Statements))
	for _, s := range p.Statements {
		fmt.Fprintf(w, "  %q%s\n", s.Text, cli.Wrap(" — ", strings.TrimSpace(strings.Join(cli.NonEmpty(s.Author, s.Date), ", ")), ""))
	}
}

func (a *app) toxHistoryCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:   "history INCI",
		Short: "List the versions of a profile, newest first: when, edit type, summary, batch",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return call(a, func(e *env) ([]toxdb.VersionInfo, error) { return e.ToxHistory(cmd.Context(), args[0]) }, func(w io.Writer, hist []toxdb.VersionInfo) error {
				fmt.Fprintf(w, "%s: %d %s\n", hist[0].INCI, len(hist), cli.Plural(len(hist), "version", "versions"))
				return cli.Table(w, func(tw io.Writer) {
					fmt.Fprintln(tw, "VERSION\tWHEN\tBY\tEDIT\tSUMMARY\tBATCH")
					for _, v := range hist {
						fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", v.Version, v.CreatedAt.Local().Format("2006-01-02 15:04:05"), cli.OrDash(v.By), v.EditType, cli.OrDash(v.Summary), cli.OrDash(v.BatchID))
					}
				})
			})
		},
	}, cli.Text(0, "INCI", inciAllowed))
}

func (a *app) toxDiffCommand() *cobra.Command {
	return cli.Checked(&cobra.Command{
		Use:   "diff INCI V1 V2",
		Short: "Show what changed between two versions of a profile (a unified diff; --json: RFC 6902 operations)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			v1, _ := toxVersionArg("V1", args[1]) // checked already
			v2, _ := toxVersionArg("V2", args[2])
			return a.inWorkspace(func(e *env) error {
				d, err := e.ToxDiffVersions(cmd.Context(), args[0], v1, v2)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(d.Ops)
				}
				text, err := jsonpatch.Render(d.From.Data, d.To.Data, cli.TerminalWidth(a.stdout, 100))
				if err == nil && text == "" {
					fmt.Fprintf(a.stdout, "Versions %d and %d of %s are identical.\n", v1, v2, d.From.INCI)
				} else if err == nil {
					fmt.Fprintf(a.stdout, "--- %s version %d\n+++ %s version %d\n%s", d.From.INCI, v1, d.From.INCI, v2, text)
				}
				return err
			})
		},
	}, cli.Text(0, "INCI", inciAllowed), versionArg(1, "V1"), versionArg(2, "V2"))
}

func (a *app) toxRollbackCommand() *cobra.Command {
	var to int
	var yes bool
	cmd := cli.Checked(&cobra.Command{
		Use:   "rollback INCI --to N",
		Short: "Save a new version of a profile equal to an old one (no version is removed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.inWorkspace(func(e *env) error {
				plan, err := e.ToxPlanRollback(cmd.Context(), args[0], to)
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
					fmt.Fprintf(a.stderr, "--- %s version %d (latest)\n+++ %s version %d\n%s", name, latest, name, to, diff)
					if diff == "" {
						fmt.Fprintf(a.stderr, "(version %d has the same data as the latest version)\n", to)
					}
					fmt.Fprintf(a.stderr, "Roll %s back to version %d, saved as version %d? [y/N] ", name, to, latest+1)
					if !cli.Confirmed(a.stdin) {
						return a.fail(cmd, nil, cli.WithHint(fmt.Errorf("not rolled back: nothing was saved"), "answer y to roll back, or give --yes"))
					}
				}
				v, err := e.ToxRollbackPlanned(cmd.Context(), plan)
				if err != nil {
					return err
				}
				return a.output(map[string]any{"inci": name, "to": to, "version": v}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "Rolled %s back to version %d: saved as version %d.\n", name, to, v)
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

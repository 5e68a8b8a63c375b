package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"warren/kb/toxdb"
	"warren/kb/toxdb/jsonpatch"
)

func (a *app) toxCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tox",
		Short: "Toxicology profiles: import, show, history, diff between versions, rollback",
		Long: `tox keeps one toxicology profile per cosmetic ingredient (INCI name): NOAEL values with their
studies, dermal absorption (DAP), Annex entries, references and expert statements
(docs/tox-profile.md describes the schema). Every save validates the whole profile and adds a
new numbered version; versions are never changed or deleted, so history lists them all, diff
compares any two and rollback saves a new version equal to an old one. INCI names are matched
case-insensitively.`,
		Example: `  warren tox import sample/tox/profiles.json
  warren tox list
  warren tox show eugenol
  warren tox history EUGENOL
  warren tox diff EUGENOL 1 2
  warren tox rollback EUGENOL --to 1`,
	}
	cmd.AddCommand(a.toxImportCommand(), a.toxListCommand(), a.toxShowCommand(), a.toxHistoryCommand(),
		a.toxDiffCommand(), a.toxRollbackCommand())
	cmd.AddCommand(a.toxEditCommand(), a.toxBatchCommand(), a.toxApproveCommand())
	return cmd
}

// toxStore opens the workspace and its profile store; close the env when done.
func (a *app) toxStore() (*env, *toxdb.Store, error) {
	e, err := a.open()
	if err != nil {
		return nil, nil, err
	}
	return e, &toxdb.Store{DB: e.WS.DB}, nil
}

// toxNameKey is the form of an INCI name that suggestions compare: upper case, without spaces,
// hyphens and other separators.
func toxNameKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '_' || r == '.' || r == ',' {
			return -1
		}
		return unicode.ToUpper(r)
	}, s)
}

// toxResolve checks that the store has a profile named inci (case-insensitively) and returns
// its stored name; for an unknown one the error says how to find the names, and suggests one
// that differs only by case or spacing.
func toxResolve(ctx context.Context, st *toxdb.Store, inci string) (string, error) {
	v, err := st.Latest(ctx, inci)
	if err == nil {
		return v.INCI, nil
	}
	if !errors.Is(err, toxdb.ErrNoProfile) {
		return "", err
	}
	return "", toxUnknown(ctx, st, inci)
}

func toxUnknown(ctx context.Context, st *toxdb.Store, inci string) error {
	list, err := st.List(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("no toxicology profile %q: the workspace has no profiles yet; import some with `warren tox import FILE`", inci)
	}
	want := toxNameKey(inci)
	for _, p := range list {
		if toxNameKey(p.INCI) == want {
			return fmt.Errorf("no toxicology profile %q: did you mean %q? (`warren tox list` shows every name)", inci, p.INCI)
		}
	}
	return fmt.Errorf("no toxicology profile %q: `warren tox list` shows the %d profile names", inci, len(list))
}

// inciAllowed is what an INCI argument may be.
const inciAllowed = "an INCI name (`warren tox list` shows them)"

// versionArg: argument i is a version number.
func versionArg(i int, label string) rule {
	return rule{label, func(_ *cobra.Command, args []string) error {
		if i >= len(args) {
			return nil
		}
		_, err := toxVersionArg(label, args[i])
		return err
	}}
}

// toxVersionArg reads a version number argument.
func toxVersionArg(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "v"))
	if err != nil || n < 1 {
		return 0, usageError{fmt.Errorf("%s %q: allowed is a version number (1, 2, …); `warren tox history INCI` lists them", name, s)}
	}
	return n, nil
}

// toxLoad loads version n of a profile (the latest when n is 0), naming the way out of an
// unknown profile or version.
func toxLoad(ctx context.Context, st *toxdb.Store, inci string, n int) (toxdb.ProfileVersion, error) {
	name, err := toxResolve(ctx, st, inci)
	if err != nil {
		return toxdb.ProfileVersion{}, err
	}
	if n == 0 {
		return st.Latest(ctx, name)
	}
	v, err := st.Version(ctx, name, n)
	if errors.Is(err, toxdb.ErrNoVersion) {
		return v, fmt.Errorf("%w; `warren tox history %s` lists them", err, shellQuote(name))
	}
	return v, err
}

// shellQuote quotes an INCI name for a command line shown in a message.
func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"\\$`!*?()[]{};&|<>#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

func (a *app) toxImportCommand() *cobra.Command {
	return checked(&cobra.Command{
		Use:   "import FILE",
		Short: "Import profiles from JSON or CSV; a changed profile gets a new version, an unchanged one none",
		Long: `import reads a .json file (one profile object, or an array of them; each replaces the stored
profile as a whole) or a .csv file (one row per NOAEL entry, grouped by INCI name; for a stored
profile the rows replace its NOAEL list and keep the rest). The whole file is checked first:
one bad record imports nothing, and every bad record is listed. Importing the same file again
makes no new versions.`,
		Example: "  warren tox import sample/tox/profiles.json\n  warren tox import noael.csv --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			ext := strings.ToLower(filepath.Ext(path))
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			var results []toxdb.ImportResult
			if ext == ".json" {
				results, err = st.ImportJSON(cmd.Context(), path)
			} else {
				results, err = st.ImportCSV(cmd.Context(), path)
			}
			var ie *toxdb.ImportError
			if errors.As(err, &ie) {
				return a.toxImportFailed(cmd, ie)
			}
			if err != nil {
				return err
			}
			counts := map[string]int{}
			for _, r := range results {
				counts[r.Status]++
			}
			if a.jsonOut {
				results = emptyIfNil(results)
				return a.printJSON(map[string]any{"file": path, "profiles": len(results), "new": counts[toxdb.ImportNew],
					"updated": counts[toxdb.ImportUpdated], "unchanged": counts[toxdb.ImportUnchanged], "results": results})
			}
			fmt.Fprintf(a.stdout, "Imported %s: %d %s — %d new, %d updated, %d unchanged.\n", path, len(results), plural(len(results), "profile", "profiles"),
				counts[toxdb.ImportNew], counts[toxdb.ImportUpdated], counts[toxdb.ImportUnchanged])
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, r := range results {
				fmt.Fprintf(tw, "  %s\t%s\tversion %d\n", r.Status, r.INCI, r.Version)
			}
			return tw.Flush()
		},
	}, extension(0, "FILE", ".json", ".csv"))
}

// toxImportFailed reports the bad records of a file; nothing of it was imported.
func (a *app) toxImportFailed(cmd *cobra.Command, ie *toxdb.ImportError) error {
	type bad struct {
		Where string `json:"where,omitempty"`
		Error string `json:"error"`
	}
	list := make([]bad, len(ie.Records))
	var b strings.Builder
	fmt.Fprintf(&b, "couldn't import %s (nothing was imported): ", ie.File)
	if len(ie.Records) == 1 {
		r := ie.Records[0]
		list[0] = bad{r.Where, r.Err.Error()}
		if r.Where != "" {
			b.WriteString(r.Where + ": ")
		}
		b.WriteString(r.Err.Error())
	} else {
		fmt.Fprintf(&b, "%d bad records:", len(ie.Records))
		for i, r := range ie.Records {
			list[i] = bad{r.Where, r.Err.Error()}
			b.WriteString("\n  ")
			if r.Where != "" {
				b.WriteString(r.Where + ": ")
			}
			b.WriteString(r.Err.Error())
		}
	}
	return a.fail(cmd, map[string]any{"file": ie.File, "imported": false, "errors": list},
		withHint(errors.New(b.String()), "fix the file and import it again (docs/tox-profile.md describes the format)"))
}

func (a *app) toxListCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the profiles: INCI name, CAS, latest version, when it was saved",
		Example: "  warren tox list\n  warren tox list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			list, err := st.List(cmd.Context())
			if err != nil {
				return err
			}
			if a.jsonOut {
				list = emptyIfNil(list)
				return a.printJSON(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stdout, "No toxicology profiles: import some with `warren tox import FILE` (e.g. sample/tox/profiles.json).")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "INCI\tCAS\tVERSION\tUPDATED")
			for _, p := range list {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.INCI, orDash(p.CAS), p.Version, p.UpdatedAt.Local().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

func (a *app) toxShowCommand() *cobra.Command {
	var version int
	cmd := checked(&cobra.Command{
		Use:   "show INCI",
		Short: "Show a profile (the latest version, or --version N): NOAEL table, DAP, Annex entries, references, statements",
		Long: `show prints a profile readably. --json prints the stored profile document itself (the canonical
JSON that edits patch and diffs compare).`,
		Example: "  warren tox show EUGENOL\n  warren tox show 'methyl salicylate' --version 1\n  warren tox show EUGENOL --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			v, err := toxLoad(ctx, st, args[0], version)
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
			latest, err := st.Latest(ctx, v.INCI)
			if err != nil {
				return err
			}
			writeProfile(a.stdout, v, latest.Version, p)
			return nil
		},
	}, text(0, "INCI", inciAllowed), atLeast("version", &version, 1))
	cmd.Flags().IntVar(&version, "version", 0, "show this version (default: the latest)")
	return cmd
}

// writeProfile prints a profile for reading.
func writeProfile(w io.Writer, v toxdb.ProfileVersion, latest int, p *toxdb.Profile) {
	fmt.Fprint(w, p.INCI)
	if p.CAS != "" {
		fmt.Fprintf(w, " (CAS %s)", p.CAS)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "version %d of %d · %s · %s", v.Version, latest, v.CreatedAt.Local().Format("2006-01-02 15:04"), v.EditType)
	if v.Summary != "" {
		fmt.Fprintf(w, " · %s", v.Summary)
	}
	if v.BatchID != "" {
		fmt.Fprintf(w, " · batch %s", v.BatchID)
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "\nNOAEL (%d)\n", len(p.NOAEL))
	if len(p.NOAEL) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tVALUE\tUNIT\tTYPE\tSPECIES\tROUTE\tDAYS\tREF\tSTUDY")
		for i, n := range p.NOAEL {
			days := "—"
			if n.DurationDays != nil {
				days = strconv.Itoa(*n.DurationDays)
			}
			study := n.Study
			if n.Source != "" {
				study = strings.TrimSpace(study + " [" + n.Source + "]")
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, strconv.FormatFloat(n.Value, 'g', -1, 64), n.Unit, n.Type,
				orDash(n.Species), orDash(n.Route), days, orDash(n.Reference), orDash(study))
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\nDAP (%d)\n", len(p.DAP))
	for _, d := range p.DAP {
		fmt.Fprintf(w, "  %s %%", strconv.FormatFloat(d.Value, 'g', -1, 64))
		if d.Source != "" {
			fmt.Fprintf(w, "  %s", d.Source)
		}
		if d.Reference != "" {
			fmt.Fprintf(w, "  [%s]", d.Reference)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\nAnnex entries (%d)\n", len(p.AnnexEntries))
	for _, x := range p.AnnexEntries {
		line := "Annex " + x.Annex
		if x.Entry != "" {
			line += " entry " + x.Entry
		}
		var parts []string
		if x.ProductType != "" {
			parts = append(parts, x.ProductType)
		}
		if x.MaxConcentration != "" {
			parts = append(parts, "max "+x.MaxConcentration)
		}
		if x.Conditions != "" {
			parts = append(parts, x.Conditions)
		}
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, "; ")
		}
		fmt.Fprintf(w, "  %s\n", line)
	}

	fmt.Fprintf(w, "\nReferences (%d)\n", len(p.References))
	for _, r := range p.References {
		fmt.Fprintf(w, "  [%s] %s\n", r.ID, r.Citation)
	}

	fmt.Fprintf(w, "\nStatements (%d)\n", len(p.Statements))
	for _, s := range p.Statements {
		by := strings.TrimSpace(strings.Join(nonEmpty(s.Author, s.Date), ", "))
		if by != "" {
			by = " — " + by
		}
		fmt.Fprintf(w, "  %q%s\n", s.Text, by)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (a *app) toxHistoryCommand() *cobra.Command {
	return checked(&cobra.Command{
		Use:     "history INCI",
		Short:   "List the versions of a profile, newest first: when, edit type, summary, batch",
		Example: "  warren tox history EUGENOL\n  warren tox history eugenol --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			name, err := toxResolve(ctx, st, args[0])
			if err != nil {
				return err
			}
			hist, err := st.History(ctx, name)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(hist)
			}
			fmt.Fprintf(a.stdout, "%s: %d %s\n", name, len(hist), plural(len(hist), "version", "versions"))
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tWHEN\tEDIT\tSUMMARY\tBATCH")
			for _, v := range hist {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", v.Version, v.CreatedAt.Local().Format("2006-01-02 15:04:05"), v.EditType, orDash(v.Summary), orDash(v.BatchID))
			}
			return tw.Flush()
		},
	}, text(0, "INCI", inciAllowed))
}

// terminalWidth is the width of the terminal a.stdout is, or fallback.
func (a *app) terminalWidth(fallback int) int {
	if f, ok := a.stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 20 {
			return w
		}
	}
	return fallback
}

func (a *app) toxDiffCommand() *cobra.Command {
	return checked(&cobra.Command{
		Use:   "diff INCI V1 V2",
		Short: "Show what changed between two versions of a profile (a unified diff; --json: RFC 6902 operations)",
		Long: `diff compares two versions of a profile, pretty-printed with sorted keys, as a unified diff
("-" lines are in V1 only, "+" lines in V2 only). --json prints the JSON Patch (RFC 6902)
operations that turn V1 into V2.`,
		Example: "  warren tox diff EUGENOL 1 2\n  warren tox diff EUGENOL 3 1 --json",
		Args:    cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			v1, err := toxVersionArg("V1", args[1])
			if err != nil {
				return err
			}
			v2, err := toxVersionArg("V2", args[2])
			if err != nil {
				return err
			}
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			from, err := toxLoad(ctx, st, args[0], v1)
			if err != nil {
				return err
			}
			to, err := toxLoad(ctx, st, from.INCI, v2)
			if err != nil {
				return err
			}
			if a.jsonOut {
				ops, err := jsonpatch.Diff(from.Data, to.Data)
				if err != nil {
					return err
				}
				if ops == nil {
					ops = jsonpatch.Patch{}
				}
				return a.printJSON(ops)
			}
			text, err := jsonpatch.Render(from.Data, to.Data, a.terminalWidth(100))
			if err != nil {
				return err
			}
			if text == "" {
				fmt.Fprintf(a.stdout, "Versions %d and %d of %s are identical.\n", v1, v2, from.INCI)
				return nil
			}
			fmt.Fprintf(a.stdout, "--- %s version %d\n+++ %s version %d\n%s", from.INCI, v1, from.INCI, v2, text)
			return nil
		},
	}, text(0, "INCI", inciAllowed), versionArg(1, "V1"), versionArg(2, "V2"))
}

func (a *app) toxRollbackCommand() *cobra.Command {
	var to int
	var yes bool
	cmd := checked(&cobra.Command{
		Use:   "rollback INCI --to N",
		Short: "Save a new version of a profile equal to an old one (no version is removed)",
		Long: `rollback saves a new version whose data equals version N, after showing the diff from the
latest version to N and asking for confirmation; no version is removed, so a rollback can itself
be rolled back. Outside a terminal it needs --yes.`,
		Example: "  warren tox rollback EUGENOL --to 1\n  warren tox rollback EUGENOL --to 1 --yes --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, st, err := a.toxStore()
			if err != nil {
				return err
			}
			defer e.Close()
			ctx := cmd.Context()
			target, err := toxLoad(ctx, st, args[0], to)
			if err != nil {
				return err
			}
			name := target.INCI
			latest, err := st.Latest(ctx, name)
			if err != nil {
				return err
			}
			if latest.Version == to {
				return fmt.Errorf("version %d is already the latest version of %s: nothing to roll back (`warren tox history %s` lists the versions)", to, name, shellQuote(name))
			}
			if !yes {
				if !isTerminal(a.stdin) {
					return usageError{fmt.Errorf("rolling %s back to version %d needs confirmation: add --yes (see the change first with `warren tox diff %s %d %d`)",
						name, to, shellQuote(name), latest.Version, to)}
				}
				diff, err := jsonpatch.Render(latest.Data, target.Data, a.terminalWidth(100))
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "--- %s version %d (latest)\n+++ %s version %d\n%s", name, latest.Version, name, to, diff)
				if diff == "" {
					fmt.Fprintf(a.stderr, "(version %d has the same data as the latest version)\n", to)
				}
				fmt.Fprintf(a.stderr, "Roll %s back to version %d, saved as version %d? [y/N] ", name, to, latest.Version+1)
				line, _ := bufio.NewReader(a.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					return a.fail(cmd, nil, withHint(fmt.Errorf("not rolled back: nothing was saved"), "answer y to roll back, or give --yes"))
				}
				// The diff shown was from the latest version then: refuse if another save came since.
				now, err := st.Latest(ctx, name)
				if err != nil {
					return err
				}
				if now.Version != latest.Version {
					return fmt.Errorf("%s changed while you were deciding (now at version %d): nothing was saved; run the rollback again to see the new diff", name, now.Version)
				}
			}
			v, err := st.Rollback(ctx, name, to, "")
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"inci": name, "to": to, "version": v})
			}
			fmt.Fprintf(a.stdout, "Rolled %s back to version %d: saved as version %d.\n", name, to, v)
			return nil
		},
	}, text(0, "INCI", inciAllowed), atLeast("to", &to, 1), when("to", func(cmd *cobra.Command, args []string) error {
		if !given(cmd, "to") {
			return fmt.Errorf("no --to: allowed is --to N, the version to roll back to; `warren tox history %s` lists them", shellQuote(args[0]))
		}
		return nil
	}))
	cmd.Flags().IntVar(&to, "to", 0, "the version to restore (required)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "roll back without asking")
	return cmd
}

package cli

// The toxicology commands' version arguments, and their text: a profile, a proposed edit, a
// batch's results.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"warren/service"
	"warren/tox"
)

// ToxVersionArg: argument i is a version number of a toxicology profile.
func ToxVersionArg(i int, label string) Rule {
	return When(label, func(_ *cobra.Command, args []string) error {
		if i >= len(args) {
			return nil
		}
		_, err := ToxVersion(label, args[i])
		return err
	})
}

// ToxVersion reads a version number argument of a toxicology profile.
func ToxVersion(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "v"))
	if err != nil || n < 1 {
		return 0, Usage("%s %q: allowed is a version number (1, 2, …); `warren tox history INCI` lists them", name, s)
	}
	return n, nil
}

// WriteProfile prints a toxicology profile for reading.
func WriteProfile(w io.Writer, v tox.ProfileVersion, latest int, p *tox.Profile) {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	fmt.Fprintln(w, Line(p.INCI+Wrap(" (CAS ", p.CAS, ")")))
	fmt.Fprintf(w, "version %d of %d · %s · %s\n", v.Version, latest, v.CreatedAt.Local().Format("2006-01-02 15:04"),
		Line(service.ToxEditTypeWords(v.EditType)+Wrap(" · ", v.Summary, "")+Wrap(" · batch ", v.BatchID, "")))

	fmt.Fprintf(w, "\nNOAEL (%d)\n", len(p.NOAEL))
	if len(p.NOAEL) > 0 {
		Table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "  #\tVALUE\tUNIT\tTYPE\tSPECIES\tROUTE\tDAYS\tREF\tSTUDY")
			for i, n := range p.NOAEL {
				days, study := "—", n.Study
				if n.DurationDays != nil {
					days = strconv.Itoa(*n.DurationDays)
				}
				if n.Source != "" {
					study = strings.TrimSpace(study + " [" + n.Source + "]")
				}
				fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, num(n.Value), Line(n.Unit), Line(n.Type),
					Line(OrDash(n.Species)), Line(OrDash(n.Route)), days, Line(OrDash(n.Reference)), Line(OrDash(study)))
			}
		})
	}
	fmt.Fprintf(w, "\nDAP (%d)\n", len(p.DAP))
	for _, d := range p.DAP {
		fmt.Fprintf(w, "  %s %%%s\n", num(d.Value), Line(Wrap("  ", d.Source, "")+Wrap("  [", d.Reference, "]")))
	}
	fmt.Fprintf(w, "\nAnnex entries (%d)\n", len(p.AnnexEntries))
	for _, x := range p.AnnexEntries {
		limits := strings.Join(NonEmpty(x.ProductType, Wrap("max ", x.MaxConcentration, ""), x.Conditions), "; ")
		fmt.Fprintf(w, "  Annex %s\n", Line(x.Annex+Wrap(" entry ", x.Entry, "")+Wrap(": ", limits, "")))
	}
	fmt.Fprintf(w, "\nReferences (%d)\n", len(p.References))
	for _, r := range p.References {
		fmt.Fprintf(w, "  [%s] %s\n", Line(r.ID), Line(r.Citation))
	}
	fmt.Fprintf(w, "\nStatements (%d)\n", len(p.Statements))
	for _, s := range p.Statements {
		fmt.Fprintf(w, "  %q%s\n", s.Text, Line(Wrap(" — ", strings.TrimSpace(strings.Join(NonEmpty(s.Author, s.Date), ", ")), "")))
	}
}

// WriteProposal prints a proposed toxicology edit: what it is, how it was made, its diff.
func WriteProposal(w io.Writer, p *service.ToxProposal) {
	fmt.Fprintf(w, "%s · %s · %s · %d %s · base version %d\n", Line(p.INCI), service.ToxEditTypeWords(string(p.EditType)), service.ToxMethodWords(p.Method),
		p.ModelCalls, Plural(p.ModelCalls, "model call", "model calls"), p.BaseVersion)
	if p.Note != "" {
		fmt.Fprintf(w, "Note: %s\n", Line(p.Note))
	}
	if p.Summary != "" {
		fmt.Fprintf(w, "Summary: %s\n", Line(p.Summary))
	}
	fmt.Fprint(w, p.Diff)
}

// WriteBatch prints the results of a toxicology batch: a table of its lines, then the counts.
func WriteBatch(w io.Writer, res *service.ToxBatchResult) {
	Table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "LINE\tINCI\tEDIT TYPE\tSTATUS\tVERSION\tRUN / ERROR")
		for _, l := range res.Lines {
			detail := l.Error
			if l.Status == service.ToxLineProposed && l.Proposal != nil {
				detail = l.Proposal.ID
			} else if l.Status == service.ToxLineApplied {
				detail = l.Proposal.Summary
			}
			version := "-"
			if l.Version > 0 {
				version = fmt.Sprint(l.Version)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", l.Line, Line(OrDash(l.INCI)), Line(OrDash(service.ToxEditTypeWords(string(l.EditType)))), l.Status, version, Line(detail))
		}
	})
	fmt.Fprintf(w, "Batch %s: %d applied, %d proposed, %d without change, %d failed.\n",
		res.ID, res.Applied, res.Proposed, res.NoChange, res.Failed)
	if res.Proposed > 0 {
		fmt.Fprintln(w, "Approve the proposals in the workbench's Toxicology tab, or with `warren tox approve RUN`.")
	}
}

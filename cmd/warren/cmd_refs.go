package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"warren/retrieval"
	"warren/retrieval/refs"
)

func (a *app) refsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "refs",
		Short: "Detect references in text and resolve them to passages of the knowledge base",
		Example: `  warren refs detect "nach § 5 des Arbeitsschutzgesetzes"
  warren refs resolve --from GefStoffV --section "§ 6" "nach § 5 des Arbeitsschutzgesetzes" --json`,
	}
	var detector, from, section string
	note := func(s string) { fmt.Fprintln(a.stderr, "note:", s) }
	detect := &cobra.Command{
		Use:   "detect TEXT",
		Short: "List the references in a text (TEXT may be - for standard input)",
		Long: `detect finds references: legal sections ("§ 6 Absatz 1 Satz 2 Nummer 4", "§§ 93, 97",
"Anhang I Nummer 1.7"), numbered sections ("Section 4 of RFC 6901"), document mentions ("[RFC2119]",
"see the Gas Cabinet Procedure"), citations ("[12]", "(Smith et al., 2020)") and URLs.
--detector regex needs no model; model and hybrid ask the fast model role too.`,
		Example: `  warren refs detect "Section 4 of [RFC6901] and [RFC2119]"
  warren refs detect --detector hybrid --json - < passage.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.textArg(args[0])
			if err != nil {
				return err
			}
			found := refs.DetectRegex(text) // the regex needs no workspace
			if detector != retrieval.DetectorRegex {
				err = a.serviceRun(func(ctx context.Context, e *env, _ []string) (err error) {
					found, err = e.DetectReferences(ctx, detector, text, note)
					return err
				})(cmd, args)
			}
			if err != nil || a.jsonOut {
				return a.resultJSON(emptyIfNil(found), err)
			}
			if len(found) == 0 {
				fmt.Fprintln(a.stdout, "No references found.")
			}
			for _, r := range found {
				ctxNote := ""
				if r.DocumentContext != "" {
					ctxNote = " in " + r.DocumentContext
				}
				fmt.Fprintf(a.stdout, "%-19s %s%s  «%s»  (%s)\n", r.Type, r.Target, ctxNote, r.OriginalText, r.Method)
			}
			return nil
		},
	}
	resolve := &cobra.Command{
		Use:   "resolve TEXT",
		Short: "Resolve the references in a text to documents, sections and chunks",
		Long: `resolve detects the references in TEXT and follows each: a named document through the
registry, then the exact section in it; a section without a named document in the --from
document. A reference to a document that is not in the knowledge base, an external one, or a
section the document lacks ends unresolved with the reason; nothing is guessed.
--from takes a registry path, a unique synonym or title, or the file or folder name.`,
		Example: `  warren refs resolve --from GefStoffV --section "§ 6" "nach § 5 des Arbeitsschutzgesetzes"
  warren refs resolve --from rfc6902 --json "as defined in Section 4 of [RFC6901]"`,
		Args: cobra.ExactArgs(1),
		RunE: a.serviceRun(func(ctx context.Context, e *env, args []string) error {
			text, err := a.textArg(args[0])
			if err != nil {
				return err
			}
			results, err := e.ResolveReferences(ctx, detector, text, from, section, note)
			if err != nil || a.jsonOut {
				return a.resultJSON(results, err)
			}
			if len(results) == 0 {
				fmt.Fprintln(a.stdout, "No references found.")
			}
			for _, res := range results {
				if r := res.Resolved; r != nil {
					fmt.Fprintf(a.stdout, "«%s» → %s (%s; %s)\n", res.OriginalText, docSection(r.Doc, r.Section), r.Method, strings.Join(r.ChunkIDs, ", "))
				} else {
					fmt.Fprintf(a.stdout, "«%s» → unresolved: %s\n", res.OriginalText, res.Reason)
				}
			}
			return nil
		}),
	}
	for _, c := range []*cobra.Command{detect, resolve} {
		c.Flags().StringVar(&detector, "detector", "regex", "regex, model or hybrid")
		checked(c, text(0, "TEXT", "a text with references, or - for standard input"),
			oneOf("detector", &detector, retrieval.DetectorRegex, retrieval.DetectorModel, retrieval.DetectorHybrid))
	}
	resolve.Flags().StringVar(&from, "from", "", "the document the text comes from")
	resolve.Flags().StringVar(&section, "section", "", "the section the text comes from")
	cmd.AddCommand(detect, resolve)
	return cmd
}

// textArg reads "-" as standard input.
func (a *app) textArg(arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(a.stdin, 16<<20))
	if err != nil {
		return "", fmt.Errorf("couldn't read standard input: %w", err)
	}
	return string(data), nil
}

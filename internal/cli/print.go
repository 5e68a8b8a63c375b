package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/term"

	"warren/internal/termsafe"
)

// PrintJSON writes v to w as indented JSON.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// EmptyIfNil makes a nil list print as [] rather than null in --json output.
func EmptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Table prints tab-separated lines aligned in columns.
func Table(w io.Writer, lines func(tw io.Writer)) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	lines(tw)
	return tw.Flush()
}

// Rows prints n rows (tab-separated columns) under a header, the columns aligned. Each cell
// goes through Cells: a value with a line break or an escape sequence cannot break the table.
func Rows(w io.Writer, header string, n int, row func(i int) string) error {
	return Table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, header)
		for i := range n {
			fmt.Fprintln(tw, Cells(row(i)))
		}
	})
}

// Cells makes a row of tab-separated cells safe to print: each cell on one line, without
// escape sequences or control characters (termsafe.Line).
func Cells(row string) string {
	if termsafe.Line(row) == row {
		return row
	}
	cells := strings.Split(row, "\t")
	for i, c := range cells {
		cells[i] = termsafe.Line(c)
	}
	return strings.Join(cells, "\t")
}

// Line is a value from a document, a file name, the registry or a model made safe to print on
// one line (termsafe.Line); the CLI's streams remove escape sequences anyway, this keeps the
// value's line whole.
func Line(s string) string { return termsafe.Line(s) }

// Confirmed reads the answer to a y/N question from r.
func Confirmed(r io.Reader) bool {
	line, _ := bufio.NewReader(r).ReadString('\n')
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes"
}

// IsTerminal reports whether r is a terminal.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd()) // /dev/null is a character device, not a terminal
}

// File is the file w writes to, looking through writers that wrap another (the CLI's
// sanitising streams have Unwrap).
func File(w io.Writer) (*os.File, bool) {
	for {
		switch v := w.(type) {
		case *os.File:
			return v, true
		case interface{ Unwrap() io.Writer }:
			w = v.Unwrap()
		default:
			return nil, false
		}
	}
}

// TerminalWidth is the width of the terminal w is, or fallback.
func TerminalWidth(w io.Writer, fallback int) int {
	if f, ok := File(w); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 20 {
			return w
		}
	}
	return fallback
}

// Wrap is before+s+after, or "" for an empty s.
func Wrap(before, s, after string) string {
	if s == "" {
		return ""
	}
	return before + s + after
}

// OrDash is s, or "—" for a blank s.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// Plural is one for n = 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// NonEmpty is ss without its empty strings.
func NonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DocSection names a place: the document, and the section in it when there is one (with its
// page, see chunk.Place).
func DocSection(doc, section string) string {
	if section != "" {
		return doc + " " + section
	}
	return doc
}

// TextArg is arg, or standard input (up to 16 MiB) for "-".
func TextArg(stdin io.Reader, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		return "", fmt.Errorf("couldn't read standard input: %w", err)
	}
	return string(data), nil
}

// Lines prints each item on a line of its own after indent (an item with a line break stays
// on its line: see Line).
func Lines(w io.Writer, indent string, items []string) error {
	for _, item := range items {
		if _, err := fmt.Fprintln(w, indent+Line(item)); err != nil {
			return err
		}
	}
	return nil
}

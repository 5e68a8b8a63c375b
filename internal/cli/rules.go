package cli

// Every command checks its numeric and enumerated flags and its arguments before it does any
// work, from one table of rules per command: a broken rule is a usage error (exit 2) of one
// line naming the flag, the value and what is allowed.

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"warren/kb"
)

// A Rule checks one flag or argument of a command line.
type Rule struct {
	Name  string // the flag ("iterations") or argument ("QUESTION") it checks
	Check func(cmd *cobra.Command, args []string) error
}

// CheckedAnnotation lists, in a command's annotations, the flags and arguments its rules check.
const CheckedAnnotation = "warren-checked"

// Checked makes rules the command's PreRunE: they run in order after cobra has parsed the
// command line and before the command starts; the first broken one ends it with exit 2.
func Checked(cmd *cobra.Command, rules ...Rule) *cobra.Command {
	var names []string
	for _, r := range rules {
		names = append(names, r.Name)
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[CheckedAnnotation] = strings.Join(names, ",")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error { return CheckLine(cmd, args, rules...) }
	return cmd
}

// CheckLine runs rules, returning the first broken one as a usage error.
func CheckLine(cmd *cobra.Command, args []string, rules ...Rule) error {
	for _, r := range rules {
		if err := r.Check(cmd, args); err != nil {
			return UsageError{err}
		}
	}
	return nil
}

// FlagName is the flag as typed: -k, --iterations.
func FlagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Given reports whether the command line sets the flag (a default is always allowed).
func Given(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Changed
}

// AtLeast: a whole number of min or more.
func AtLeast(name string, v *int, min int) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if Given(cmd, name) && *v < min {
			return fmt.Errorf("%s %d: allowed is a whole number of %d or more", FlagName(name), *v, min)
		}
		return nil
	}}
}

// Above: a finite number greater than min.
func Above(name string, v *float64, min float64) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if Given(cmd, name) && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v <= min) {
			return fmt.Errorf("%s %v: allowed is a number greater than %v", FlagName(name), *v, min)
		}
		return nil
	}}
}

// OneOf: one of the allowed words.
func OneOf(name string, v *string, allowed ...string) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if !Given(cmd, name) {
			return nil
		}
		for _, a := range allowed {
			if *v == a {
				return nil
			}
		}
		return fmt.Errorf("%s %q: allowed is %s", FlagName(name), *v, OrList(allowed))
	}}
}

// CollectionList: comma-separated collection names (which exist is checked against the
// knowledge base once it is open).
func CollectionList(name string, v *string) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if !Given(cmd, name) {
			return nil
		}
		list := SplitList(*v)
		if len(list) == 0 {
			return fmt.Errorf("%s %q: allowed is one or more collection names separated by commas", FlagName(name), *v)
		}
		for _, c := range list {
			if !kb.CollectionName.MatchString(c) {
				return fmt.Errorf("%s %q: %q is no collection name; allowed are lower-case letters, digits, '-' and '_'", FlagName(name), *v, c)
			}
		}
		return nil
	}}
}

// CollectionName: one collection name.
func CollectionName(name string, v *string) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if Given(cmd, name) && !kb.CollectionName.MatchString(*v) {
			return fmt.Errorf("%s %q: allowed is a collection name of lower-case letters, digits, '-' and '_'", FlagName(name), *v)
		}
		return nil
	}}
}

// Parsed: a flag whose value parse accepts; parse's error says what is allowed.
func Parsed(name string, v *string, parse func(string) error) Rule {
	return Rule{name, func(cmd *cobra.Command, _ []string) error {
		if !Given(cmd, name) {
			return nil
		}
		return parse(*v)
	}}
}

// Text: argument i (named label in messages) is not blank.
func Text(i int, label, allowed string) Rule {
	return Rule{label, func(_ *cobra.Command, args []string) error {
		if i < len(args) && strings.TrimSpace(args[i]) == "" {
			return fmt.Errorf("%s %q: allowed is %s", label, args[i], allowed)
		}
		return nil
	}}
}

// Extension: argument i is a file with one of the extensions.
func Extension(i int, label string, exts ...string) Rule {
	return Rule{label, func(_ *cobra.Command, args []string) error {
		if i >= len(args) {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(args[i]))
		for _, e := range exts {
			if ext == e {
				return nil
			}
		}
		return fmt.Errorf("%s %q: allowed is a %s file", label, args[i], OrList(exts))
	}}
}

// When: a rule about how flags and arguments go together; check returns the message.
func When(name string, check func(cmd *cobra.Command, args []string) error) Rule {
	return Rule{name, check}
}

// maxRows bounds one --rows range: far above any gas table, far below an allocation to fear.
const maxRows = 100_000

// ParseRows reads a --rows value, "1-20,25", into row IDs.
func ParseRows(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, fmt.Errorf("--rows %q: allowed is row numbers and ranges such as 1-20,25", s)
		}
		if b-a >= maxRows {
			return nil, fmt.Errorf("--rows %q: allowed is ranges of at most %d rows (leave out --rows to fill every row)", s, maxRows)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--rows %q: allowed is row numbers and ranges such as 1-20,25 (leave out --rows to fill every row)", s)
	}
	return out, nil
}

// OrList joins words as "a, b or c".
func OrList(words []string) string {
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// SplitList reads "a, b,c" into its non-empty items.
func SplitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

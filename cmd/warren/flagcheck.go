package main

// Every command checks its numeric and enumerated flags and its arguments before it does any
// work, from one table of rules per command: a broken rule is a usage error (exit 2) of one
// line naming the flag, the value and what is allowed.

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"warren/kb"
)

// A rule checks one flag or argument of a command line.
type rule struct {
	name  string // the flag ("iterations") or argument ("QUESTION") it checks
	check func(cmd *cobra.Command, args []string) error
}

// checkedAnnotation lists, in a command's annotations, the flags and arguments its rules check.
const checkedAnnotation = "warren-checked"

// checked makes rules the command's PreRunE: they run in order after cobra has parsed the
// command line and before the command starts; the first broken one ends it with exit 2.
func checked(cmd *cobra.Command, rules ...rule) *cobra.Command {
	var names []string
	for _, r := range rules {
		names = append(names, r.name)
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[checkedAnnotation] = strings.Join(names, ",")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error { return checkLine(cmd, args, rules...) }
	return cmd
}

// checkLine runs rules, returning the first broken one as a usage error.
func checkLine(cmd *cobra.Command, args []string, rules ...rule) error {
	for _, r := range rules {
		if err := r.check(cmd, args); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// flagName is the flag as typed: -k, --iterations.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// given reports whether the command line sets the flag (a default is always allowed).
func given(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Changed
}

// atLeast: a whole number of min or more.
func atLeast(name string, v *int, min int) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if given(cmd, name) && *v < min {
			return fmt.Errorf("%s %d: allowed is a whole number of %d or more", flagName(name), *v, min)
		}
		return nil
	}}
}

// above: a finite number greater than min.
func above(name string, v *float64, min float64) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if given(cmd, name) && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v <= min) {
			return fmt.Errorf("%s %v: allowed is a number greater than %v", flagName(name), *v, min)
		}
		return nil
	}}
}

// oneOf: one of the allowed words.
func oneOf(name string, v *string, allowed ...string) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if !given(cmd, name) {
			return nil
		}
		for _, a := range allowed {
			if *v == a {
				return nil
			}
		}
		return fmt.Errorf("%s %q: allowed is %s", flagName(name), *v, orList(allowed))
	}}
}

// collectionList: comma-separated collection names (which exist is checked against the
// knowledge base once it is open: see env.checkCollections).
func collectionList(name string, v *string) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if !given(cmd, name) {
			return nil
		}
		list := splitList(*v)
		if len(list) == 0 {
			return fmt.Errorf("%s %q: allowed is one or more collection names separated by commas", flagName(name), *v)
		}
		for _, c := range list {
			if !kb.CollectionName.MatchString(c) {
				return fmt.Errorf("%s %q: %q is no collection name; allowed are lower-case letters, digits, '-' and '_'", flagName(name), *v, c)
			}
		}
		return nil
	}}
}

// collectionName: one collection name.
func collectionName(name string, v *string) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if given(cmd, name) && !kb.CollectionName.MatchString(*v) {
			return fmt.Errorf("%s %q: allowed is a collection name of lower-case letters, digits, '-' and '_'", flagName(name), *v)
		}
		return nil
	}}
}

// parsed: a flag whose value parse accepts; parse's error says what is allowed.
func parsed(name string, v *string, parse func(string) error) rule {
	return rule{name, func(cmd *cobra.Command, _ []string) error {
		if !given(cmd, name) {
			return nil
		}
		return parse(*v)
	}}
}

// text: argument i (named label in messages) is not blank.
func text(i int, label, allowed string) rule {
	return rule{label, func(_ *cobra.Command, args []string) error {
		if i < len(args) && strings.TrimSpace(args[i]) == "" {
			return fmt.Errorf("%s %q: allowed is %s", label, args[i], allowed)
		}
		return nil
	}}
}

// extension: argument i is a file with one of the extensions.
func extension(i int, label string, exts ...string) rule {
	return rule{label, func(_ *cobra.Command, args []string) error {
		if i >= len(args) {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(args[i]))
		for _, e := range exts {
			if ext == e {
				return nil
			}
		}
		return fmt.Errorf("%s %q: allowed is a %s file", label, args[i], orList(exts))
	}}
}

// when: a rule about how flags and arguments go together; check returns the message.
func when(name string, check func(cmd *cobra.Command, args []string) error) rule {
	return rule{name, check}
}

func orList(words []string) string {
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// splitList reads "a, b,c" into its non-empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

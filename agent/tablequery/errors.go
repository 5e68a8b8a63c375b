package tablequery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	edlib "github.com/hbollon/go-edlib"
)

// ErrorKind sorts why an expression was rejected; the recovery tiers word their hints by it.
type ErrorKind string

// Error kinds.
const (
	UnknownField ErrorKind = "unknown field" // a name that is not a field (Suggestions: close names)
	TypeMismatch ErrorKind = "type mismatch" // e.g. a number compared with text, a non-boolean result
	Syntax       ErrorKind = "syntax"        // the expression does not parse
	SQL          ErrorKind = "sql"           // SQL instead of an expr expression
	Runtime      ErrorKind = "runtime"       // it compiled, and failed on every row while it ran
	Other        ErrorKind = "other"
)

// QueryError is an expression rejected before it ran, or (Kind Runtime) while it ran.
type QueryError struct {
	Kind        ErrorKind
	Message     string
	Suggestions []string // did-you-mean names, closest first
}

func (e *QueryError) Error() string {
	msg := string(e.Kind) + ": " + e.Message
	if len(e.Suggestions) > 0 && !strings.Contains(e.Message, "did you mean") {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

// maxSuggestions bounds the did-you-mean list per unknown name.
const maxSuggestions = 3

// suggest returns the candidates closest to name: by edit distance (ignoring case) within a
// third of the name's length (at least 2), containing one another, sharing a part of at
// least three letters or the first five ("cas" → cas_number, "flash_point" → flash_point_c,
// "flammable" → flammability).
func suggest(name string, candidates []string) []string {
	type scored struct {
		name string
		dist int
	}
	low := strings.ToLower(name)
	limit := max(2, len(low)/3)
	var found []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := edlib.LevenshteinDistance(low, lc)
		switch {
		case d <= limit:
		case len(low) >= 3 && (strings.Contains(lc, low) || strings.Contains(low, lc)):
			d = limit + 1 + abs(len(lc)-len(low))
		case sharesPart(low, lc) || commonPrefix(low, lc) >= 5:
			d = limit + 1 + d
		default:
			continue
		}
		found = append(found, scored{c, d})
	}
	slices.SortFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.name, b.name))
	})
	var out []string
	for _, s := range found[:min(len(found), maxSuggestions)] {
		out = append(out, s.name)
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// sharesPart reports whether two snake_case names have a part of three or more letters in
// common.
func sharesPart(a, b string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r >= '0' && r <= '9' })
	}
	bp := split(b)
	for _, p := range split(a) {
		if len(p) >= 3 && slices.Contains(bp, p) {
			return true
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// unknownNamesError builds the error for names that are neither fields nor functions.
func unknownNamesError(fields, funcs []string, schema Schema, fieldNames, funcNames []string) *QueryError {
	var parts []string
	var suggestions []string
	add := func(list []string) {
		for _, s := range list {
			if !slices.Contains(suggestions, s) {
				suggestions = append(suggestions, s)
			}
		}
	}
	for _, n := range fields {
		s := suggest(n, fieldNames)
		add(s)
		parts = append(parts, fmt.Sprintf("%q is not a field of the table%s", n, didYouMean(s, schema)))
	}
	for _, n := range funcs {
		s := suggest(n, funcNames)
		add(s)
		hint := didYouMean(s, nil)
		if hint == "" {
			hint = "; for missing values use empty(x) or has(x)"
		}
		parts = append(parts, fmt.Sprintf("%s() is not a known function%s", n, hint))
	}
	kind := UnknownField
	if len(fields) == 0 {
		kind = Other
	}
	return &QueryError{Kind: kind, Message: strings.Join(parts, "; "), Suggestions: suggestions}
}

func didYouMean(names []string, schema Schema) string {
	if len(names) == 0 {
		return ""
	}
	var described []string
	for _, n := range names {
		if f, ok := schema.Field(n); ok {
			described = append(described, f.describe())
		} else {
			described = append(described, n)
		}
	}
	return " (did you mean " + strings.Join(described, " or ") + "?)"
}

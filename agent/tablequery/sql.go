package tablequery

import (
	"regexp"
	"strings"
)

// sqlRule is one sign that a model wrote SQL, with the fix to tell it.
type sqlRule struct {
	re   *regexp.Regexp
	word string // the keyword, when the rule is one; a field of that name turns the rule off
	fix  string
}

var sqlRules = []sqlRule{
	{regexp.MustCompile(`(?i)\bselect\b`), "select", "no SELECT: write only the condition"},
	{regexp.MustCompile(`(?i)\bwhere\b`), "where", "no WHERE: write only the condition"},
	{regexp.MustCompile(`\bFROM\b`), "FROM", "no FROM: the table is implied"},
	{regexp.MustCompile(`(?i)\bi?like\b`), "like", `no LIKE: use x contains "a", x startsWith "a" or lower(x) contains "a"`},
	{regexp.MustCompile(`(?i)\bis\s+not\s+null\b`), "", "no IS NOT NULL: use has(x)"},
	{regexp.MustCompile(`(?i)\bis\s+null\b`), "", "no IS NULL: use empty(x)"},
	{regexp.MustCompile(`(?i)\bnull\b`), "null", "no NULL: use empty(x) or has(x)"},
	{regexp.MustCompile(`(?i)\bbetween\b`), "between", "no BETWEEN: use x >= a and x <= b"},
	{regexp.MustCompile(`\bAND\b`), "AND", "and/or/not are written in lower case"},
	{regexp.MustCompile(`\bOR\b`), "OR", "and/or/not are written in lower case"},
	{regexp.MustCompile(`\bNOT\b`), "NOT", "and/or/not are written in lower case"},
	{regexp.MustCompile(`(?i)\bin\s*\(`), "", `lists use square brackets: x in ["a", "b"]`},
	{regexp.MustCompile(`<>`), "", "use != for not equal"},
}

// checkSQL rejects SQL before it reaches the parser, whose errors about it would not help a
// model see what it did. String literals are blanked first, so "LIKE" inside quotes is text.
func checkSQL(schema Schema, expression string) *QueryError {
	code := blankStrings(expression)
	fields := schema.types()
	var fixes []string
	add := func(fix string) {
		for _, f := range fixes {
			if f == fix {
				return
			}
		}
		fixes = append(fixes, fix)
	}
	for _, r := range sqlRules {
		if r.word != "" {
			if _, isField := fields[strings.ToLower(r.word)]; isField {
				continue
			}
		}
		if r.re.MatchString(code) {
			add(r.fix)
		}
	}
	if singleEquals(code) {
		add("compare with ==, not a single =")
	}
	if len(fixes) == 0 {
		return nil
	}
	return &QueryError{Kind: SQL, Message: "this is SQL, but the filter must be an expr expression: " + strings.Join(fixes, "; ")}
}

// singleEquals reports a lone = (not part of ==, !=, <=, >=), unless the expression declares
// a variable with let, the one place expr uses it.
func singleEquals(code string) bool {
	if regexp.MustCompile(`\blet\b`).MatchString(code) {
		return false
	}
	for i := 0; i < len(code); i++ {
		if code[i] != '=' {
			continue
		}
		if i+1 < len(code) && code[i+1] == '=' {
			i++ // ==
			continue
		}
		if i > 0 && strings.IndexByte("=!<>", code[i-1]) >= 0 {
			continue
		}
		return true
	}
	return false
}

// blankStrings replaces the contents of string literals ("…", '…', `…`) by spaces.
func blankStrings(s string) string {
	b := []byte(s)
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote == 0 && (c == '"' || c == '\'' || c == '`'):
			quote = c
		case quote != 0 && c == '\\' && quote != '`':
			b[i] = ' '
			if i+1 < len(b) {
				i++
				b[i] = ' '
			}
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		}
	}
	return string(b)
}

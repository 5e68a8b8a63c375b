package tablequery

import (
	"fmt"
	"strconv"
	"strings"
)

// maxExamples bounds the example values shown per field.
const maxExamples = 3

// Phrases that start each tier's prompt; tests match on them.
const (
	questionLabel  = "Question: "
	fixOpening     = "Your expression was rejected before it ran."
	runtimeOpening = "Your expression compiled, but failed on every row of the table while it ran."
	freshOpening   = "Start from scratch."
)

const systemWrite = `You translate an analyst's question about a table into one filter expression in the expr language (not SQL). ` +
	`The expression is evaluated once for each row and must be true exactly for the rows the question asks for. ` +
	`Use only the fields listed, by their exact names. Answer with JSON: "expression" holds the expression, "explanation" one sentence saying what it selects.`

const systemFresh = `You write filter expressions in the expr language (not SQL) for a table. ` +
	`Earlier expressions for this question were rejected. Ignore them except as mistakes to avoid, and write a new, simple expression ` +
	`from the field list and the syntax rules. It is evaluated once for each row and must be true exactly for the rows asked for. ` +
	`Answer with JSON: "expression" holds the expression, "explanation" one sentence saying what it selects.`

// fieldSheet lists the fields with their types, units, meanings and example values.
func fieldSheet(schema Schema) string {
	var b strings.Builder
	b.WriteString("Fields of the table (name (type, unit): meaning; e.g. example values):\n")
	for _, f := range schema {
		b.WriteString("- ")
		b.WriteString(f.describe())
		if f.Doc != "" {
			b.WriteString(": ")
			b.WriteString(f.Doc)
		}
		if len(f.Examples) > 0 {
			ex := f.Examples[:min(len(f.Examples), maxExamples)]
			shown := make([]string, len(ex))
			for i, e := range ex {
				shown[i] = e
				if f.Type == TypeString {
					shown[i] = strconv.Quote(e)
				}
			}
			b.WriteString("; e.g. ")
			b.WriteString(strings.Join(shown, ", "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// syntaxSheet is the short grammar the model is asked to keep to, with an example over the
// table's own fields so that it does not copy names that do not exist.
func syntaxSheet(schema Schema) string {
	var b strings.Builder
	b.WriteString(`Syntax (expr language):
- compare: == != < <= > >= (never a single =); text in "double quotes"; numbers without quotes; true/false fields with true or false
- combine: and, or, not, parentheses (lower case)
- lists: x in ["a", "b"] or x in [1, 2]
- text: x contains "a", x startsWith "a", x endsWith "a", lower(x) contains "a" (case-insensitive)
- ` + AnyText + ` contains "word": some text field of the row mentions the word (` + AnyText + ` is lower case)
- missing values: empty(x) is true when the cell is blank, has(x) when it has a value. A comparison with a blank cell is false, so not (x > 3) is true for a blank x; write has(x) and not (x > 3) to leave blanks out
- no SQL: no SELECT, FROM, WHERE, LIKE, IS NULL, NULL, or AND/OR/NOT in capitals
`)
	if ex := exampleExpression(schema); ex != "" {
		b.WriteString("Example: ")
		b.WriteString(ex)
		b.WriteByte('\n')
	}
	return b.String()
}

// exampleExpression combines the first number (or int) field and the first text field.
func exampleExpression(schema Schema) string {
	var parts []string
	for _, f := range schema {
		if f.Type == TypeNumber || f.Type == TypeInt {
			parts = append(parts, fmt.Sprintf("has(%s) and %s >= 2", f.Name, f.Name))
			break
		}
	}
	for _, f := range schema {
		if f.Type == TypeString {
			parts = append(parts, fmt.Sprintf("empty(%s)", f.Name))
			break
		}
	}
	return strings.Join(parts, " and ")
}

func writePrompt(schema Schema, question string) string {
	return fieldSheet(schema) + "\n" + syntaxSheet(schema) + "\n" + questionLabel + question
}

// fixPrompt asks for a targeted correction of the last attempt (tier 1).
func fixPrompt(schema Schema, question string, a Attempt) string {
	var b strings.Builder
	if a.Error.Kind == Runtime {
		b.WriteString(runtimeOpening)
	} else {
		b.WriteString(fixOpening)
	}
	b.WriteString("\nExpression: ")
	b.WriteString(a.Expression)
	fmt.Fprintf(&b, "\nError (%s): %s\n", a.Error.Kind, a.Error.Message)
	if len(a.Error.Suggestions) > 0 && !strings.Contains(a.Error.Message, "did you mean") {
		var named []string
		for _, s := range a.Error.Suggestions {
			if f, ok := schema.Field(s); ok {
				named = append(named, f.describe())
			} else {
				named = append(named, s+"()")
			}
		}
		fmt.Fprintf(&b, "Did you mean: %s?\n", strings.Join(named, ", "))
	}
	b.WriteString(kindHint(a.Error.Kind))
	b.WriteString("\nWrite the corrected expression for the same question, changing only what the error is about.\n")
	b.WriteString(questionLabel)
	b.WriteString(question)
	return b.String()
}

func kindHint(k ErrorKind) string {
	switch k {
	case UnknownField:
		return "Use only field names from the list, spelled exactly as there."
	case TypeMismatch:
		return "Compare each field with a value of its type; the whole expression must be true or false."
	case SQL:
		return "Write an expr expression, not SQL: only the condition, == for equality, lower-case and/or/not, empty(x) for blanks."
	case Syntax:
		return "Check the parentheses, the quotes (text in double quotes) and the operators (==, !=, and, or, not)."
	case Runtime:
		return "Convert no field to a type its values do not have (int() of a name), index nothing that may be shorter, and compare each field with a value of its own type."
	}
	return "Keep to the syntax rules given before."
}

// freshPrompt starts over (tier 2), listing the rejected attempts as what not to do.
func freshPrompt(schema Schema, question string, rejected []Attempt) string {
	var b strings.Builder
	b.WriteString(freshOpening)
	b.WriteString(" The expressions below were rejected; do not repeat their mistakes:\n")
	for _, a := range rejected {
		fmt.Fprintf(&b, "- %s → %s\n", orNothing(a.Expression), oneLine(a.Error))
	}
	b.WriteString("\n")
	b.WriteString(fieldSheet(schema))
	b.WriteString("\n")
	b.WriteString(syntaxSheet(schema))
	b.WriteString("\nWrite the simplest expression that answers the question, with only the fields and the syntax above.\n")
	b.WriteString(questionLabel)
	b.WriteString(question)
	return b.String()
}

func orNothing(expression string) string {
	if strings.TrimSpace(expression) == "" {
		return "(no usable answer)"
	}
	return expression
}

// oneLine is an error without the source snippet, for lists.
func oneLine(e *QueryError) string {
	if e == nil {
		return ""
	}
	msg, _, _ := strings.Cut(e.Message, "\n")
	msg = string(e.Kind) + ": " + msg
	if len(e.Suggestions) > 0 && !strings.Contains(msg, "did you mean") {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

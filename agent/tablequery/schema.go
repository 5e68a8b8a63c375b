package tablequery

import (
	"fmt"
	"regexp"
	"strings"
)

// Field types.
const (
	TypeString = "string"
	TypeNumber = "number" // float64 in rows
	TypeInt    = "int"    // int in rows
	TypeBool   = "bool"
)

// Field is one column of a table as expressions see it.
type Field struct {
	Name     string   // the identifier used in expressions: letters, digits and _
	Type     string   // string, number, int or bool
	Unit     string   // shown to the model, such as "°C" or "ppm"
	Doc      string   // what the column holds, in a few words
	Examples []string // a few typical values, shown to the model
}

// Schema is a table's columns. Rows are map[string]any keyed by field name; a missing value
// is nil or absent, a number is float64, an int int, a bool bool and a text string.
type Schema []Field

// AnyText is a pseudo-field every schema has: all text fields of a row, lower-cased and
// joined, for whole-row word search (`any_text contains "silane"`).
const AnyText = "any_text"

// Functions that compiled expressions may call, besides expr's builtins.
const (
	fnHas   = "has"
	fnEmpty = "empty"
	// Internal helpers the nil-safety rewrite inserts; expressions may not call them.
	fnText    = "text__"
	fnAnyText = "anytext__"
)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are names a field cannot have: expr's keywords and literals, and the names this
// package defines.
var reserved = map[string]bool{
	"and": true, "or": true, "not": true, "in": true, "matches": true, "contains": true,
	"startsWith": true, "endsWith": true, "nil": true, "true": true, "false": true, "let": true,
	"if": true, "else": true, fnHas: true, fnEmpty: true, fnText: true, fnAnyText: true, AnyText: true,
}

// Validate reports the first problem that keeps the schema from being used in expressions.
func (s Schema) Validate() error {
	if len(s) == 0 {
		return fmt.Errorf("the table schema has no fields")
	}
	seen := map[string]bool{}
	for _, f := range s {
		switch {
		case !identRE.MatchString(f.Name):
			return fmt.Errorf("field %q cannot be used in expressions: a field name is letters, digits and _ and does not start with a digit", f.Name)
		case reserved[f.Name]:
			return fmt.Errorf("field %q cannot be used in expressions: the name is reserved", f.Name)
		case seen[f.Name]:
			return fmt.Errorf("field %q appears twice in the schema", f.Name)
		}
		switch f.Type {
		case TypeString, TypeNumber, TypeInt, TypeBool:
		default:
			return fmt.Errorf("field %q has type %q; use string, number, int or bool", f.Name, f.Type)
		}
		seen[f.Name] = true
	}
	return nil
}

// Field returns the named field.
func (s Schema) Field(name string) (Field, bool) {
	for _, f := range s {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// types maps each field name to its type.
func (s Schema) types() map[string]string {
	m := make(map[string]string, len(s))
	for _, f := range s {
		m[f.Name] = f.Type
	}
	return m
}

// env is the typed environment expressions are checked against: each field's zero value
// gives expr its type.
func (s Schema) env() map[string]any {
	env := make(map[string]any, len(s)+1)
	for _, f := range s {
		switch f.Type {
		case TypeString:
			env[f.Name] = ""
		case TypeNumber:
			env[f.Name] = float64(0)
		case TypeInt:
			env[f.Name] = 0
		case TypeBool:
			env[f.Name] = false
		}
	}
	env[AnyText] = ""
	return env
}

// textFields returns the names of the text fields, in schema order.
func (s Schema) textFields() []string {
	var names []string
	for _, f := range s {
		if f.Type == TypeString {
			names = append(names, f.Name)
		}
	}
	return names
}

// describe is how a field is named in prompts and error hints: "flash_point_c (number, °C)".
func (f Field) describe() string {
	parts := []string{typeWord(f.Type)}
	if f.Unit != "" {
		parts = append(parts, f.Unit)
	}
	return fmt.Sprintf("%s (%s)", f.Name, strings.Join(parts, ", "))
}

func typeWord(t string) string {
	switch t {
	case TypeString:
		return "text"
	case TypeNumber:
		return "number"
	case TypeInt:
		return "whole number"
	case TypeBool:
		return "true/false"
	}
	return t
}

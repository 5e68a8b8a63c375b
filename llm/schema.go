package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Schema is the subset of JSON Schema that Ollama turns into a grammar and that the gateway
// validates: types, properties in declaration order, required fields, enums, numeric ranges,
// string lengths and array bounds.
type Schema struct {
	Type        string // object, array, string, integer, number, boolean; empty: anything
	Description string
	Properties  []Property // in order: small models fill fields in the order they see them
	Required    []string
	Items       *Schema
	Enum        []any
	Minimum     *float64
	Maximum     *float64
	MinItems    *int
	MaxItems    *int
	MinLength   *int
	MaxLength   *int
	// Clamp reads a number outside [Minimum, Maximum] instead of asking for a repair when it
	// says plainly what was meant: an overshoot by no more than the scale's width, brought to
	// the nearest bound, or a percentage given on a 0–1 scale. It is for the model's own scores
	// (coverage, relevance, quality), never for facts: Ollama's grammar does not hold numbers to
	// their bounds, so small models miss them often.
	Clamp bool
}

// anyType is the type list of an untyped schema, as it is sent.
var anyType = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// Property is one named field of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Clone is a deep copy, to change for one request without touching the cached schema of a
// type (SchemaOf shares one per type).
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	c.Properties = make([]Property, len(s.Properties))
	for i, p := range s.Properties {
		c.Properties[i] = Property{Name: p.Name, Schema: p.Schema.Clone()}
	}
	c.Required = append([]string(nil), s.Required...)
	c.Enum = append([]any(nil), s.Enum...)
	c.Items = s.Items.Clone()
	return &c
}

// Property returns the schema of the named property, or nil.
func (s *Schema) Property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// MarshalJSON writes the schema with properties in declaration order.
func (s *Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	field := func(name string, v any) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(name))
		b.WriteByte(':')
		data, _ := json.Marshal(v) // values are plain JSON types or *Schema
		b.Write(data)
	}
	switch {
	case s.Type != "":
		field("type", s.Type)
	case len(s.Enum) == 0 && len(s.Properties) == 0:
		// "Any value" must name every type: Ollama's grammar builder reads {} as any object
		// and refuses a schema with keywords but no type ("Unrecognized schema").
		field("type", anyType)
	}
	if s.Description != "" {
		field("description", s.Description)
	}
	// An object without properties is any object: an empty "properties" would let the grammar
	// build only {}.
	if len(s.Properties) > 0 {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"properties":{`)
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(p.Name))
			b.WriteByte(':')
			data, err := p.Schema.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b.Write(data)
		}
		b.WriteByte('}')
	}
	if len(s.Required) > 0 {
		field("required", s.Required)
	}
	if s.Items != nil {
		field("items", s.Items)
	}
	if len(s.Enum) > 0 {
		field("enum", s.Enum)
	}
	for _, n := range []struct {
		name string
		v    any
	}{{"minimum", s.Minimum}, {"maximum", s.Maximum}, {"minItems", s.MinItems}, {"maxItems", s.MaxItems},
		{"minLength", s.MinLength}, {"maxLength", s.MaxLength}} {
		if !reflect.ValueOf(n.v).IsNil() {
			field(n.name, n.v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a schema, keeping the order of its properties.
func (s *Schema) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type        any             `json:"type"`
		Description string          `json:"description"`
		Properties  json.RawMessage `json:"properties"`
		Required    []string        `json:"required"`
		Items       *Schema         `json:"items"`
		Enum        []any           `json:"enum"`
		Minimum     *float64        `json:"minimum"`
		Maximum     *float64        `json:"maximum"`
		MinItems    *int            `json:"minItems"`
		MaxItems    *int            `json:"maxItems"`
		MinLength   *int            `json:"minLength"`
		MaxLength   *int            `json:"maxLength"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	switch t := raw.Type.(type) {
	case nil:
	case string:
		s.Type = t
	default:
		return fmt.Errorf("schema type must be a single string, got %v", t)
	}
	s.Description, s.Required, s.Items, s.Enum = raw.Description, raw.Required, raw.Items, raw.Enum
	s.Minimum, s.Maximum, s.MinItems, s.MaxItems = raw.Minimum, raw.Maximum, raw.MinItems, raw.MaxItems
	s.MinLength, s.MaxLength = raw.MinLength, raw.MaxLength
	if len(raw.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("schema properties must be an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		sub := &Schema{}
		if err := dec.Decode(sub); err != nil {
			return fmt.Errorf("property %v: %w", tok, err)
		}
		s.Properties = append(s.Properties, Property{Name: tok.(string), Schema: sub})
	}
	return nil
}

var schemaCache sync.Map // reflect.Type → *Schema

// SchemaOf derives the schema of a Go value's type. Fields are required unless their json tag
// has omitempty. Struct tags refine a field: `desc:"…"` describes it and
// `schema:"enum=a|b,min=0,max=1,minItems=1,maxItems=15,minLength=1,maxLength=200"` bounds it;
// `clamp` beside min/max brings an out-of-range number to its bound (Schema.Clamp);
// `type=object` types a field whose Go type says nothing of its JSON (json.RawMessage).
func SchemaOf(v any) (*Schema, error) {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, fmt.Errorf("couldn't derive a schema from a nil value")
	}
	if s, ok := schemaCache.Load(t); ok {
		return s.(*Schema), nil
	}
	s, err := schemaFor(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, fmt.Errorf("couldn't derive a schema for %s: %w", t, err)
	}
	schemaCache.Store(t, s)
	return s, nil
}

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage{})
)

func schemaFor(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return &Schema{Type: "string"}, nil
	case t == rawType:
		return &Schema{}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaFor(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys must be strings")
		}
		return &Schema{Type: "object"}, nil
	case reflect.Struct:
		if visiting[t] {
			return nil, fmt.Errorf("recursive type %s", t)
		}
		visiting[t] = true
		defer delete(visiting, t)
		return structSchema(t, visiting)
	}
	return nil, fmt.Errorf("unsupported kind %s", t.Kind())
}

func structSchema(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	s := &Schema{Type: "object"}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			// encoding/json flattens an untagged embedded struct into its parent; so must the schema.
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				inner, err := schemaFor(et, visiting)
				if err != nil {
					return nil, fmt.Errorf("embedded %s: %w", et.Name(), err)
				}
				s.Properties = append(s.Properties, inner.Properties...)
				s.Required = append(s.Required, inner.Required...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		sub, err := schemaFor(f.Type, visiting)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		sub = cloneSchema(sub)
		sub.Description = f.Tag.Get("desc")
		if err := applyBounds(sub, f.Tag.Get("schema")); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		s.Properties = append(s.Properties, Property{Name: name, Schema: sub})
		if !strings.Contains(opts, "omitempty") {
			s.Required = append(s.Required, name)
		}
	}
	return s, nil
}

func cloneSchema(s *Schema) *Schema {
	c := *s
	return &c
}

// applyBounds reads a `schema:"…"` tag. Array bounds apply to the array; enum and numeric
// bounds on a slice field apply to its items, which is what a tag on []string means.
func applyBounds(s *Schema, tag string) error {
	if tag == "" {
		return nil
	}
	for _, part := range strings.Split(tag, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok && name != "clamp" {
			return fmt.Errorf("schema tag %q: want name=value or clamp", part)
		}
		target := s
		if s.Type == "array" && s.Items != nil && name != "minItems" && name != "maxItems" {
			s.Items = cloneSchema(s.Items)
			target = s.Items
		}
		if name == "clamp" && !ok {
			target.Clamp = true
			continue
		}
		switch name {
		case "type":
			// For fields whose Go type says nothing of their JSON (json.RawMessage, any).
			if target.Type != "" {
				return fmt.Errorf("schema tag type=%s on a field that is already %s", value, target.Type)
			}
			if !slices.Contains(anyType, value) {
				return fmt.Errorf("schema tag type=%s: want one of %s", value, strings.Join(anyType, ", "))
			}
			target.Type = value
		case "enum":
			for _, e := range strings.Split(value, "|") {
				if target.Type == "integer" || target.Type == "number" {
					n, err := strconv.ParseFloat(e, 64)
					if err != nil {
						return fmt.Errorf("enum value %q is not a number", e)
					}
					target.Enum = append(target.Enum, n)
				} else {
					target.Enum = append(target.Enum, e)
				}
			}
		case "min", "max":
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("%s=%q is not a number", name, value)
			}
			if name == "min" {
				target.Minimum = &n
			} else {
				target.Maximum = &n
			}
		case "minItems", "maxItems", "minLength", "maxLength":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return fmt.Errorf("%s=%q is not a count", name, value)
			}
			switch name {
			case "minItems":
				target.MinItems = &n
			case "maxItems":
				target.MaxItems = &n
			case "minLength":
				target.MinLength = &n
			case "maxLength":
				target.MaxLength = &n
			}
		default:
			return fmt.Errorf("unknown schema bound %q", name)
		}
	}
	return nil
}

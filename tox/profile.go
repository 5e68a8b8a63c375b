// Package tox keeps toxicology profiles of cosmetic ingredients (one per INCI name) as
// append-only versions in the workspace database, and imports them from JSON and CSV.
//
// A profile is validated as a whole on every save: its shape (no unknown keys, the right JSON
// types, required keys present) and its values (units, types, routes, ranges, references that
// point at existing entries). docs/tox-profile.md describes the schema.
package tox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Profile is the toxicology profile of one ingredient. Its JSON form is what the store keeps,
// what edits patch and what imports read.
type Profile struct {
	INCI         string       `json:"inci" tox:"required"`
	CAS          string       `json:"cas,omitempty"`
	NOAEL        []NOAEL      `json:"noael"`
	DAP          []DAP        `json:"dap"`
	AnnexEntries []AnnexEntry `json:"annex_entries"`
	References   []Reference  `json:"references"`
	Statements   []Statement  `json:"statements"`
}

// NOAEL is one point of departure from a study: a NOAEL, or another reference point named by
// Type.
type NOAEL struct {
	Value        float64 `json:"value" tox:"required"`
	Unit         string  `json:"unit" tox:"required"`
	Species      string  `json:"species,omitempty"`
	Route        string  `json:"route,omitempty"`
	DurationDays *int    `json:"duration_days,omitempty"`
	Study        string  `json:"study,omitempty"`
	Type         string  `json:"type" tox:"required"`
	Source       string  `json:"source,omitempty"`
	Reference    string  `json:"reference,omitempty"`
}

// DAP is a dermal absorption percentage.
type DAP struct {
	Value     float64 `json:"value" tox:"required"`
	Source    string  `json:"source,omitempty"`
	Reference string  `json:"reference,omitempty"`
}

// AnnexEntry is an entry of an annex of the EU Cosmetic Products Regulation (EC) 1223/2009.
type AnnexEntry struct {
	Annex            string `json:"annex" tox:"required"`
	Entry            string `json:"entry,omitempty"`
	ProductType      string `json:"product_type,omitempty"`
	MaxConcentration string `json:"max_concentration,omitempty"`
	Conditions       string `json:"conditions,omitempty"`
}

// Reference is a citation that NOAEL and DAP entries point at by its ID.
type Reference struct {
	ID       string `json:"id" tox:"required"`
	Citation string `json:"citation" tox:"required"`
}

// Statement is an expert's statement about the ingredient.
type Statement struct {
	Text   string `json:"text" tox:"required"`
	Author string `json:"author,omitempty"`
	Date   string `json:"date,omitempty"`
}

// The allowed values of the enumerated fields, in the order error messages list them.
var (
	Units   = []string{"mg/kg bw/day", "mg/kg bw", "mg/kg feed", "mg/L", "mg/m³", "ppm", "µg/kg bw/day", "µg/kg bw"}
	Types   = []string{"NOAEL", "LOAEL", "NOEL", "LOEL", "BMDL", "LD50", "other"}
	Routes  = []string{"oral", "dermal", "inhalation", "other"}
	Annexes = []string{"II", "III", "IV", "V", "VI"}
)

// ErrInvalid is matched (errors.Is) by every *ValidationError.
var ErrInvalid = errors.New("invalid toxicology profile")

// Problem is one thing wrong with a profile, at a JSON Pointer (RFC 6901) path.
type Problem struct {
	Path    string // e.g. "/noael/0/unit"; "" for the document itself
	Message string // what is wrong and what is allowed
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// ValidationError lists every problem found in a profile.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Parse decodes and validates a profile. Unknown keys, wrong JSON types, nulls, missing
// required keys and trailing data are refused; the error is a *ValidationError naming each
// problem's path, except for JSON that isn't well-formed.
func Parse(data []byte) (*Profile, error) {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, fmt.Errorf("couldn't read the profile as JSON: %w", describeJSONError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ValidationError{[]Problem{{"", "more than one JSON value; a profile is a single object"}}}
	}
	if probs := checkShape(generic, profileType, ""); len(probs) > 0 {
		return nil, &ValidationError{probs}
	}
	// The shape check mirrors encoding/json, so this strict decode is a backstop: whatever it
	// refuses is a bug in checkShape, but never a silently dropped key.
	var p Profile
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&p); err != nil {
		return nil, &ValidationError{[]Problem{{"", err.Error()}}}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Canonical returns the profile as the store keeps it: compact JSON in struct order, with every
// list present (empty lists as []) so that a patch can always append to them.
func (p *Profile) Canonical() ([]byte, error) {
	c := *p
	c.NOAEL = nonNil(c.NOAEL)
	c.DAP = nonNil(c.DAP)
	c.AnnexEntries = nonNil(c.AnnexEntries)
	c.References = nonNil(c.References)
	c.Statements = nonNil(c.Statements)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" in a citation stays readable in diffs
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Canonical parses, validates and re-encodes a profile (see Profile.Canonical).
func Canonical(data []byte) ([]byte, error) {
	p, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return p.Canonical()
}

// Key is the form of an INCI name that lookups compare: matching is case-insensitive.
func Key(inci string) string { return strings.ToUpper(strings.TrimSpace(inci)) }

var casPattern = regexp.MustCompile(`^\d{2,7}-\d{2}-\d$`)

// ValidCAS reports whether cas is written NNNNNNN-NN-N with a correct check digit, and if not,
// why.
func ValidCAS(cas string) error {
	if !casPattern.MatchString(cas) {
		return fmt.Errorf("%q is not a CAS number; allowed: 2 to 7 digits, 2 digits, 1 check digit, joined by hyphens (e.g. 68-26-8)", cas)
	}
	digits := strings.ReplaceAll(cas, "-", "")
	sum := 0
	for i, pos := len(digits)-2, 1; i >= 0; i, pos = i-1, pos+1 {
		sum += int(digits[i]-'0') * pos
	}
	if want := sum % 10; int(digits[len(digits)-1]-'0') != want {
		return fmt.Errorf("%q fails the CAS check digit (it would end in %d)", cas, want)
	}
	return nil
}

// Validate checks the values of a decoded profile. It returns a *ValidationError or nil.
func (p *Profile) Validate() error {
	var probs []Problem
	add := func(path, format string, args ...any) {
		probs = append(probs, Problem{path, fmt.Sprintf(format, args...)})
	}
	switch {
	case strings.TrimSpace(p.INCI) == "":
		add("/inci", "must not be empty; the INCI name of the ingredient")
	case strings.TrimSpace(p.INCI) != p.INCI:
		add("/inci", "%q must not start or end with spaces", p.INCI)
	}
	if p.CAS != "" {
		if err := ValidCAS(p.CAS); err != nil {
			add("/cas", "%v", err)
		}
	}
	refs := map[string]bool{}
	var ids []string
	for i, r := range p.References {
		at := fmt.Sprintf("/references/%d", i)
		switch {
		case strings.TrimSpace(r.ID) == "":
			add(at+"/id", "must not be empty")
		case strings.TrimSpace(r.ID) != r.ID:
			add(at+"/id", "%q must not start or end with spaces", r.ID)
		case refs[r.ID]:
			add(at+"/id", "%q is used by an earlier reference; ids must be unique", r.ID)
		default:
			refs[r.ID] = true
			ids = append(ids, r.ID)
		}
		if strings.TrimSpace(r.Citation) == "" {
			add(at+"/citation", "must not be empty")
		}
	}
	checkRef := func(at, ref string) {
		if ref == "" || refs[ref] {
			return
		}
		if len(ids) == 0 {
			add(at, "%q is not the id of an entry in /references (there are none)", ref)
		} else {
			add(at, "%q is not the id of an entry in /references; allowed: %s", ref, strings.Join(ids, ", "))
		}
	}
	for i, n := range p.NOAEL {
		at := fmt.Sprintf("/noael/%d", i)
		if !(n.Value > 0) || math.IsInf(n.Value, 0) {
			add(at+"/value", "%s is not allowed; a number > 0", fmtNum(n.Value))
		}
		if !slices.Contains(Units, n.Unit) {
			add(at+"/unit", "%q is not one of %s", n.Unit, strings.Join(Units, ", "))
		}
		if !slices.Contains(Types, n.Type) {
			add(at+"/type", "%q is not one of %s", n.Type, strings.Join(Types, ", "))
		}
		if n.Route != "" && !slices.Contains(Routes, n.Route) {
			add(at+"/route", "%q is not one of %s", n.Route, strings.Join(Routes, ", "))
		}
		if n.DurationDays != nil && *n.DurationDays < 0 {
			add(at+"/duration_days", "%d is not allowed; a whole number of days ≥ 0", *n.DurationDays)
		}
		checkRef(at+"/reference", n.Reference)
	}
	for i, d := range p.DAP {
		at := fmt.Sprintf("/dap/%d", i)
		if !(d.Value > 0 && d.Value <= 100) {
			add(at+"/value", "%s is not allowed; a percentage > 0 and ≤ 100", fmtNum(d.Value))
		}
		checkRef(at+"/reference", d.Reference)
	}
	for i, a := range p.AnnexEntries {
		if !slices.Contains(Annexes, a.Annex) {
			add(fmt.Sprintf("/annex_entries/%d/annex", i), "%q is not one of %s", a.Annex, strings.Join(Annexes, ", "))
		}
	}
	for i, s := range p.Statements {
		at := fmt.Sprintf("/statements/%d", i)
		if strings.TrimSpace(s.Text) == "" {
			add(at+"/text", "must not be empty")
		}
		if s.Date != "" {
			if _, err := time.Parse(time.DateOnly, s.Date); err != nil {
				add(at+"/date", "%q is not a date; allowed: YYYY-MM-DD", s.Date)
			}
		}
	}
	if len(probs) > 0 {
		return &ValidationError{probs}
	}
	return nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// describeJSONError turns an error of decoding data into one that names the line and column
// of the first syntax error in data. A json.Decoder's offsets count what it has buffered, not
// the position in the input, so the input is scanned again with json.Unmarshal, whose offsets
// are exact.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty input")
	}
	var v any
	if uerr := json.Unmarshal(data, &v); errors.As(uerr, &se) {
		line, col := lineCol(data, se.Offset-1)
		return fmt.Errorf("line %d, column %d: %w", line, col, uerr)
	}
	return err
}

// lineCol converts the byte offset of a character into its 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

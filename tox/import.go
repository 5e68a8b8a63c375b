package tox

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// An import reads and checks the whole file first and then saves every profile in one
// transaction: a file with one bad record imports nothing, and the error names every bad
// record. A profile that isn't stored yet becomes version 1; one that is stored gets a new
// version only when the import changes it.

// Import statuses of a profile.
const (
	ImportNew       = "new"
	ImportUpdated   = "updated"
	ImportUnchanged = "unchanged"
)

// ImportResult says what an import did with one profile.
type ImportResult struct {
	INCI    string `json:"inci"`
	Version int    `json:"version"` // the version now latest
	Status  string `json:"status"`  // ImportNew, ImportUpdated or ImportUnchanged
}

// RecordError is what is wrong with one record of an imported file.
type RecordError struct {
	Where string // "record 3 (line 41, RETINOL)", "line 7", …
	Err   error
}

// ImportError lists the bad records of an imported file; nothing of the file was imported.
type ImportError struct {
	File    string
	Records []RecordError
}

func (e *ImportError) Error() string {
	parts := make([]string, len(e.Records))
	for i, r := range e.Records {
		parts[i] = r.Where + ": " + r.Err.Error()
		if r.Where == "" {
			parts[i] = r.Err.Error()
		}
	}
	return fmt.Sprintf("couldn't import %s: %s", e.File, strings.Join(parts, "; "))
}

// Unwrap returns the records' errors, so that errors.Is(err, ErrInvalid) works.
func (e *ImportError) Unwrap() []error {
	errs := make([]error, len(e.Records))
	for i, r := range e.Records {
		errs[i] = r.Err
	}
	return errs
}

// importItem is one profile of a file: build makes the profile to store from the stored one
// (nil when there is none).
type importItem struct {
	inci  string
	where string
	build func(existing *Profile) (*Profile, error)
}

// ImportJSON imports a file holding one profile object or an array of them. Each profile
// replaces the stored one as a whole.
func (s *Store) ImportJSON(ctx context.Context, path string) ([]ImportResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't import %s: %w", path, err)
	}
	items, errs := readJSONProfiles(data)
	if len(errs) > 0 {
		return nil, &ImportError{path, errs}
	}
	return s.importItems(ctx, path, items)
}

func readJSONProfiles(data []byte) ([]importItem, []RecordError) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark, as editors on Windows write
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		p, err := Parse(data)
		if err != nil {
			return nil, []RecordError{{"", err}}
		}
		return []importItem{jsonItem(p, "")}, nil
	}
	skipped := int64(len(data) - len(trimmed))
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, []RecordError{{"", errors.New("not a profile object or an array of profile objects")}}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil { // [
		return nil, []RecordError{{"", describeJSONError(data, err)}}
	}
	var items []importItem
	var errs []RecordError
	seen := map[string]string{}
	for n := 1; dec.More(); n++ {
		start := skipped + dec.InputOffset()
		for start < int64(len(data)) && strings.ContainsRune(" \t\r\n,", rune(data[start])) {
			start++
		}
		line, _ := lineCol(data, start)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, append(errs, RecordError{fmt.Sprintf("record %d (line %d)", n, line), describeJSONError(data, err)})
		}
		p, err := Parse(raw)
		if err != nil {
			errs = append(errs, RecordError{fmt.Sprintf("record %d (line %d)", n, line), err})
			continue
		}
		where := fmt.Sprintf("record %d (line %d, %s)", n, line, p.INCI)
		if first, dup := seen[Key(p.INCI)]; dup {
			errs = append(errs, RecordError{where, fmt.Errorf("profile %s occurs twice in the file (first in %s)", p.INCI, first)})
			continue
		}
		seen[Key(p.INCI)] = where
		items = append(items, jsonItem(p, where))
	}
	if _, err := dec.Token(); err != nil { // ]
		return nil, append(errs, RecordError{"", describeJSONError(data, err)})
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, append(errs, RecordError{"", errors.New("more than one JSON value; expected a single array")})
	}
	if len(items) == 0 && len(errs) == 0 {
		errs = append(errs, RecordError{"", errors.New("the array holds no profiles")})
	}
	return items, errs
}

func jsonItem(p *Profile, where string) importItem {
	return importItem{inci: p.INCI, where: where, build: func(*Profile) (*Profile, error) { return p, nil }}
}

// importItems saves the profiles in one transaction.
func (s *Store) importItems(ctx context.Context, path string, items []importItem) ([]ImportResult, error) {
	summary := "imported from " + filepath.Base(path)
	var results []ImportResult
	var errs []RecordError
	err := s.inTx(ctx, func(tx *writeTx) error {
		for _, it := range items {
			cur, err := loadVersion(ctx, tx, it.inci, 0)
			found := err == nil
			if err != nil && !errors.Is(err, ErrNoProfile) {
				return err
			}
			var existing *Profile
			if found {
				if existing, err = Parse(cur.Data); err != nil {
					errs = append(errs, RecordError{it.where, fmt.Errorf("the stored profile %s (version %d) is no longer valid: %w", it.inci, cur.Version, err)})
					continue
				}
			}
			p, err := it.build(existing)
			if err != nil {
				errs = append(errs, RecordError{it.where, err})
				continue
			}
			canon, err := p.Canonical()
			if err != nil {
				return err
			}
			if found && bytes.Equal(canon, cur.Data) {
				results = append(results, ImportResult{cur.INCI, cur.Version, ImportUnchanged})
				continue
			}
			patch, status := []byte("[]"), ImportNew
			if found {
				patch, status = replaceAll(canon), ImportUpdated
			}
			v, err := tx.save(ctx, p, canon, cur.Version, patch, summary, EditImport, "")
			if err != nil {
				return fmt.Errorf("%s: %w", it.where, err)
			}
			results = append(results, ImportResult{p.INCI, v, status})
		}
		if len(errs) > 0 {
			return &ImportError{path, errs}
		}
		return nil
	})
	if err != nil {
		var ie *ImportError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, fmt.Errorf("couldn't import %s: %w", path, err)
	}
	return results, nil
}

// CSVColumns are the columns of a profile CSV file, in the documented order.
var CSVColumns = []string{"inci", "cas", "value", "unit", "species", "route", "duration_days", "study", "type", "source", "reference_citation"}

var requiredCSVColumns = []string{"inci", "value", "unit", "type"}

type csvRow struct {
	line     int
	noael    *NOAEL // nil for a row that only names the profile
	citation string
}

type csvGroup struct {
	inci, cas string
	casLine   int
	rows      []csvRow
}

// ImportCSV imports a file with one row per NOAEL entry (see CSVColumns and
// docs/tox-profile.md); rows are grouped into profiles by INCI name. For a stored profile the
// file's rows replace its NOAEL list and a non-empty CAS replaces its CAS; its other parts are
// kept, and a citation already among its references is reused.
func (s *Store) ImportCSV(ctx context.Context, path string) ([]ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't import %s: %w", path, err)
	}
	defer f.Close()
	groups, errs := readCSVProfiles(f)
	if len(errs) > 0 {
		return nil, &ImportError{path, errs}
	}
	items := make([]importItem, len(groups))
	for i, g := range groups {
		items[i] = importItem{inci: g.inci, where: g.where(), build: g.build}
	}
	return s.importItems(ctx, path, items)
}

func readCSVProfiles(r io.Reader) ([]*csvGroup, []RecordError) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, []RecordError{{"", errors.New("the file is empty; the first line must name the columns " + strings.Join(CSVColumns, ","))}}
	}
	if err != nil {
		return nil, []RecordError{{"", err}}
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch _, dup := col[h]; {
		case !slices.Contains(CSVColumns, h):
			return nil, []RecordError{{"line 1", fmt.Errorf("unknown column %q; allowed: %s", h, strings.Join(CSVColumns, ", "))}}
		case dup:
			return nil, []RecordError{{"line 1", fmt.Errorf("column %q occurs twice", h)}}
		}
		col[h] = i
	}
	for _, c := range requiredCSVColumns {
		if _, ok := col[c]; !ok {
			return nil, []RecordError{{"line 1", fmt.Errorf("column %q is missing; required: %s", c, strings.Join(requiredCSVColumns, ", "))}}
		}
	}
	var groups []*csvGroup
	byKey := map[string]*csvGroup{}
	var errs []RecordError
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A malformed line (a stray quote, a wrong number of fields) stops the reading: what
			// follows it can't be trusted to be split into the right records.
			return nil, append(errs, RecordError{"", err})
		}
		line, _ := cr.FieldPos(0)
		// Stored JSON would carry U+FFFD for a byte that isn't UTF-8, and the same file imported
		// again would then make a new version that changes nothing.
		if !utf8.ValidString(strings.Join(rec, "")) {
			errs = append(errs, RecordError{fmt.Sprintf("line %d", line), errors.New("not UTF-8 text; save the file as CSV UTF-8")})
			continue
		}
		get := func(name string) string {
			if i, ok := col[name]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row, err := parseCSVRow(get)
		if err != nil {
			errs = append(errs, RecordError{fmt.Sprintf("line %d", line), err})
			continue
		}
		row.line = line
		inci := get("inci")
		if inci == "" {
			errs = append(errs, RecordError{fmt.Sprintf("line %d", line), errors.New("inci is empty")})
			continue
		}
		g := byKey[Key(inci)]
		if g == nil {
			g = &csvGroup{inci: inci}
			byKey[Key(inci)] = g
			groups = append(groups, g)
		}
		if cas := get("cas"); cas != "" {
			if g.cas != "" && g.cas != cas {
				errs = append(errs, RecordError{fmt.Sprintf("line %d", line), fmt.Errorf("cas %q of %s differs from %q on line %d", cas, inci, g.cas, g.casLine)})
				continue
			}
			g.cas, g.casLine = cas, line
		}
		g.rows = append(g.rows, row)
	}
	if len(groups) == 0 && len(errs) == 0 {
		errs = append(errs, RecordError{"", errors.New("the file has no rows after the header")})
	}
	return groups, errs
}

func parseCSVRow(get func(string) string) (csvRow, error) {
	row := csvRow{citation: get("reference_citation")}
	var empty = true
	for _, c := range []string{"value", "unit", "species", "route", "duration_days", "study", "type", "source", "reference_citation"} {
		if get(c) != "" {
			empty = false
		}
	}
	if empty {
		return row, nil // the row only names the profile (and maybe its CAS)
	}
	n := &NOAEL{Unit: normalizeUnit(get("unit")), Species: get("species"), Route: get("route"),
		Study: get("study"), Type: get("type"), Source: get("source")}
	v, err := strconv.ParseFloat(get("value"), 64)
	if err != nil {
		return row, fmt.Errorf("value %q is not a number", get("value"))
	}
	n.Value = v
	if d := get("duration_days"); d != "" {
		days, err := strconv.Atoi(d)
		if err != nil {
			return row, fmt.Errorf("duration_days %q is not a whole number of days", d)
		}
		n.DurationDays = &days
	}
	row.noael = n
	return row, nil
}

// normalizeUnit writes the micro sign as Units do: spreadsheets often give the Greek letter mu
// (U+03BC), which looks the same.
func normalizeUnit(u string) string { return strings.ReplaceAll(u, "\u03bc", "\u00b5") }

func (g *csvGroup) where() string {
	lines := make([]string, len(g.rows))
	for i, r := range g.rows {
		lines[i] = strconv.Itoa(r.line)
	}
	if len(lines) == 1 {
		return fmt.Sprintf("%s (line %s)", g.inci, lines[0])
	}
	return fmt.Sprintf("%s (lines %s)", g.inci, strings.Join(lines, ", "))
}

// build makes the profile of the group, on top of the stored one when there is one.
func (g *csvGroup) build(existing *Profile) (*Profile, error) {
	p := &Profile{INCI: g.inci, CAS: g.cas}
	if existing != nil {
		p = existing // a fresh copy, parsed from the stored data
		if g.cas != "" {
			p.CAS = g.cas
		}
		p.NOAEL = nil
	}
	var lines []int // the line of each NOAEL entry
	for _, r := range g.rows {
		if r.noael == nil {
			continue
		}
		n := *r.noael
		if r.citation != "" {
			n.Reference = p.referenceFor(r.citation)
		}
		p.NOAEL = append(p.NOAEL, n)
		lines = append(lines, r.line)
	}
	if err := p.Validate(); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			for i, pr := range ve.Problems {
				if idx, ok := noaelIndex(pr.Path); ok && idx < len(lines) {
					ve.Problems[i].Message = fmt.Sprintf("%s (line %d)", pr.Message, lines[idx])
				}
			}
		}
		return nil, err
	}
	return p, nil
}

// referenceFor returns the id of the reference with this citation, adding one when there is
// none.
func (p *Profile) referenceFor(citation string) string {
	taken := map[string]bool{}
	for _, r := range p.References {
		if r.Citation == citation {
			return r.ID
		}
		taken[r.ID] = true
	}
	id := ""
	for n := len(p.References) + 1; ; n++ {
		if id = "r" + strconv.Itoa(n); !taken[id] {
			break
		}
	}
	p.References = append(p.References, Reference{ID: id, Citation: citation})
	return id
}

// noaelIndex returns i of a path /noael/i/….
func noaelIndex(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "/noael/")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(num)
	return i, err == nil
}

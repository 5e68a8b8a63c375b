package toxedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"warren/tox"
	"warren/tox/jsonpatch"
)

// Payload is the structured edit form (FORM_EDIT_STRUCTURED), decoded from a JSON object:
//
//	{
//	  "inci": "RETINOL",                      optional: must name the edited profile
//	  "cas": "68-26-8",                       set the CAS number ("" removes it)
//	  "noael": [ {…}, {…} ],                  a list of entries: add them at the end
//	  "dap": {                                or an object of actions on the list:
//	    "add":     [ {…} ],                   append entries
//	    "replace": { "0": {…} },              replace entry 0 as a whole
//	    "update":  { "1": {"value": 5} },     change some fields of entry 1 (others kept)
//	    "remove":  [ 2 ],                     remove entry 2
//	    "set":     [ {…} ]                    replace the whole list (alone only)
//	  },
//	  "references": [ {"citation": "…"} ],    a reference without "id" gets the next free rN
//	  "statements": …, "annex_entries": …
//	}
//
// Indices are 0-based, as in the profile's JSON Pointers (/noael/0). In a section, updates
// and replacements apply first, then removals (highest index first), then additions, so every
// index names an entry of the profile as it was. A JSON array instead of an object is an RFC
// 6902 patch, used as given after the same checks.
type Payload struct {
	INCI     string                  `json:"inci,omitempty"`
	CAS      *string                 `json:"cas,omitempty"`
	Sections map[string]*SectionEdit `json:"-"`
}

// SectionEdit is what a payload does to one list of the profile.
type SectionEdit struct {
	Add     []json.RawMessage                     `json:"add,omitempty"`
	Replace map[string]json.RawMessage            `json:"replace,omitempty"`
	Update  map[string]map[string]json.RawMessage `json:"update,omitempty"`
	Remove  []int                                 `json:"remove,omitempty"`
	Set     *[]json.RawMessage                    `json:"set,omitempty"`
}

// ParsePayload decodes a structured payload object, refusing unknown keys and actions.
func ParsePayload(data []byte) (*Payload, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("the payload isn't a JSON object: %w", err)
	}
	p := &Payload{Sections: map[string]*SectionEdit{}}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range top {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		raw := top[k]
		switch {
		case k == "inci":
			if err := json.Unmarshal(raw, &p.INCI); err != nil {
				return nil, fmt.Errorf("payload inci: must be a string")
			}
		case k == "cas":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("payload cas: must be a string")
			}
			p.CAS = &s
		case sectionElem(k) != nil:
			se, err := parseSection(raw)
			if err != nil {
				return nil, fmt.Errorf("payload %s: %w", k, err)
			}
			p.Sections[k] = se
		default:
			return nil, fmt.Errorf("payload key %q is unknown; allowed: inci, cas, noael, dap, annex_entries, references, statements (or send a JSON Patch array)", k)
		}
	}
	return p, nil
}

func parseSection(raw json.RawMessage) (*SectionEdit, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var add []json.RawMessage
		if err := json.Unmarshal(raw, &add); err != nil {
			return nil, err
		}
		return &SectionEdit{Add: add}, nil
	}
	var se SectionEdit
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&se); err != nil {
		return nil, fmt.Errorf("want a list of entries to add, or an object with add, replace, update, remove or set: %w", err)
	}
	if se.Set != nil && (len(se.Add)+len(se.Replace)+len(se.Update)+len(se.Remove) > 0) {
		return nil, fmt.Errorf(`"set" replaces the whole list and can't be combined with other actions`)
	}
	return &se, nil
}

// Ops turns the payload into operations against the profile, starting with the INCI guard.
func (p *Payload) Ops(prof *tox.Profile) (jsonpatch.Patch, error) {
	if p.INCI != "" && tox.Key(p.INCI) != tox.Key(prof.INCI) {
		return nil, fmt.Errorf("the payload is for %q, not %q", p.INCI, prof.INCI)
	}
	ops := jsonpatch.Patch{guard(prof.INCI)}
	if p.CAS != nil {
		switch {
		case *p.CAS == "" && prof.CAS != "":
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpRemove, Path: "/cas"})
		case *p.CAS != "":
			op := jsonpatch.OpReplace
			if prof.CAS == "" {
				op = jsonpatch.OpAdd
			}
			ops = append(ops, jsonpatch.Operation{Op: op, Path: "/cas", Value: mustJSON(*p.CAS)})
		}
	}
	ids := refIDs(prof)
	for _, s := range sections {
		se := p.Sections[s.key]
		if se == nil {
			continue
		}
		n := sectionLen(prof, s.key)
		base := "/" + s.key
		if se.Set != nil {
			entries := *se.Set
			if s.key == "references" {
				entries = withIDs(entries, ids)
			}
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpReplace, Path: base, Value: mustJSON(entries)})
			continue
		}
		for _, k := range sortedIndexKeys(se.Replace) {
			i, err := index(k, n, s.key)
			if err != nil {
				return nil, err
			}
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpReplace, Path: base + "/" + strconv.Itoa(i), Value: se.Replace[k]})
		}
		for _, k := range sortedIndexKeys(se.Update) {
			i, err := index(k, n, s.key)
			if err != nil {
				return nil, err
			}
			fields := se.Update[k]
			names := make([]string, 0, len(fields))
			for f := range fields {
				names = append(names, f)
			}
			sort.Strings(names)
			for _, f := range names {
				// add sets an object member whether or not it exists.
				ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpAdd, Path: fmt.Sprintf("%s/%d/%s", base, i, jsonpatch.EscapeToken(f)), Value: fields[f]})
			}
		}
		rm := slices.Clone(se.Remove)
		slices.Sort(rm)
		rm = slices.Compact(rm)
		for j := len(rm) - 1; j >= 0; j-- {
			if rm[j] < 0 || rm[j] >= n {
				return nil, fmt.Errorf("%s entry %d doesn't exist (the profile has %d; indices start at 0)", s.key, rm[j], n)
			}
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpRemove, Path: base + "/" + strconv.Itoa(rm[j])})
		}
		add := se.Add
		if s.key == "references" {
			add = withIDs(add, ids)
		}
		for _, e := range add {
			ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpAdd, Path: base + "/-", Value: e})
		}
	}
	return ops, nil
}

func sortedIndexKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		x, _ := strconv.Atoi(keys[a])
		y, _ := strconv.Atoi(keys[b])
		return x < y
	})
	return keys
}

func index(k string, n int, section string) (int, error) {
	i, err := strconv.Atoi(k)
	if err != nil || strconv.Itoa(i) != k {
		return 0, fmt.Errorf("%s: %q is not an index (0, 1, …)", section, k)
	}
	if i < 0 || i >= n {
		return 0, fmt.Errorf("%s entry %d doesn't exist (the profile has %d; indices start at 0)", section, i, n)
	}
	return i, nil
}

func sectionLen(p *tox.Profile, key string) int {
	switch key {
	case "noael":
		return len(p.NOAEL)
	case "dap":
		return len(p.DAP)
	case "annex_entries":
		return len(p.AnnexEntries)
	case "references":
		return len(p.References)
	case "statements":
		return len(p.Statements)
	}
	return 0
}

// refIDs tracks the reference ids in use, to hand out the next free rN.
type refIDSet map[string]bool

func refIDs(p *tox.Profile) refIDSet {
	ids := refIDSet{}
	for _, r := range p.References {
		ids[r.ID] = true
	}
	return ids
}

func (ids refIDSet) next() string {
	for n := 1; ; n++ {
		id := "r" + strconv.Itoa(n)
		if !ids[id] {
			ids[id] = true
			return id
		}
	}
}

// withIDs gives reference entries without an "id" the next free one.
func withIDs(entries []json.RawMessage, ids refIDSet) []json.RawMessage {
	out := make([]json.RawMessage, len(entries))
	for i, e := range entries {
		var m map[string]json.RawMessage
		if json.Unmarshal(e, &m) != nil {
			out[i] = e // validation names the problem
			continue
		}
		if _, ok := m["id"]; ok {
			var id string
			json.Unmarshal(m["id"], &id)
			ids[id] = true
			out[i] = e
			continue
		}
		m["id"] = mustJSON(ids.next())
		out[i] = mustJSON(orderedRef(m))
	}
	return out
}

// orderedRef keeps id before citation, so diffs read naturally.
func orderedRef(m map[string]json.RawMessage) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"id":` + string(m["id"]))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if k != "id" && !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		b.WriteString("," + string(mustJSON(k)) + ":" + string(m[k]))
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

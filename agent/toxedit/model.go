package toxedit

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"warren/config"
	"warren/llm"
	"warren/tox"
	"warren/tox/jsonpatch"
)

const schemaSummary = `A profile has: inci (string, never changed), cas (string "NNNNNNN-NN-N"),
noael[] {value number > 0, unit one of "mg/kg bw/day","mg/kg bw","mg/kg feed","mg/L","mg/m³","ppm","µg/kg bw/day","µg/kg bw",
  species, route one of "oral","dermal","inhalation","other", duration_days integer, study, type one of "NOAEL","LOAEL","NOEL","LOEL","BMDL","LD50","other",
  source, reference (an id of references[])},
dap[] {value number 0-100 (percent), source, reference}, annex_entries[] {annex "II".."VI", entry, product_type, max_concentration, conditions},
references[] {id, citation}, statements[] {text, author, date "YYYY-MM-DD"}.
Leave optional strings out rather than empty; never use null.`

// modelOp is one operation as the model writes it.
type modelOp struct {
	Op    string          `json:"op" schema:"enum=add|remove|replace|move|copy|test"`
	Path  string          `json:"path" desc:"JSON Pointer, e.g. /noael/0/value"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

type modelPatch struct {
	Operations []modelOp `json:"operations"`
}

// modelPatchFor asks the model for RFC 6902 operations that carry out the instruction.
func (e *Editor) modelPatchFor(ctx context.Context, call llm.Call, prof []byte, inci, instruction string) (jsonpatch.Patch, error) {
	pretty, _ := jsonpatch.Pretty(prof)
	prompt := fmt.Sprintf(`Profile:
%s

Instruction: %s

Write the RFC 6902 JSON Patch operations that carry out the instruction and nothing else.
The first operation must be {"op":"test","path":"/inci","value":%q}. Array indices count from 0.`, pretty, instruction, inci)
	var out modelPatch
	err := e.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleChat,
		System: "You edit toxicology profiles of cosmetic ingredients with JSON Patch.\n" + schemaSummary, Prompt: prompt}, &out)
	if err != nil {
		return nil, fmt.Errorf("couldn't get operations from the model: %w", err)
	}
	p := make(jsonpatch.Patch, len(out.Operations))
	for i, o := range out.Operations {
		p[i] = jsonpatch.Operation{Op: o.Op, Path: o.Path, From: o.From, Value: o.Value}
	}
	return p, nil
}

type modelRewrite struct {
	Profile json.RawMessage `json:"profile" desc:"the whole profile after the instruction" schema:"type=object"`
}

// rewriteFor asks the model for the whole profile after the instruction.
func (e *Editor) rewriteFor(ctx context.Context, call llm.Call, prof []byte, instruction, why string) ([]byte, error) {
	pretty, _ := jsonpatch.Pretty(prof)
	prompt := fmt.Sprintf(`Profile:
%s

Instruction: %s

A patch for this instruction failed: %s
Write the whole profile after the instruction. Change only what the instruction asks; copy everything else exactly.`, pretty, instruction, why)
	var out modelRewrite
	err := e.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleChat,
		System: "You edit toxicology profiles of cosmetic ingredients.\n" + schemaSummary, Prompt: prompt}, &out)
	if err != nil {
		return nil, fmt.Errorf("couldn't get a rewrite from the model: %w", err)
	}
	return out.Profile, nil
}

// namedSections maps words of an instruction to the parts of the profile they name.
var namedSections = []struct {
	re   *regexp.Regexp
	path string
}{
	{regexp.MustCompile(`(?i)\b(noael|loael|noel|loel|bmdl|ld50|point of departure|species|route|duration|study|studies|dose)\b`), "/noael"},
	{regexp.MustCompile(`(?i)\b(dap|dermal absorption|absorption)\b`), "/dap"},
	{regexp.MustCompile(`(?i)\bcas\b`), "/cas"},
	{regexp.MustCompile(`(?i)\b(references?|citations?|cited|cite)\b`), "/references"},
	{regexp.MustCompile(`(?i)\b(statements?|opinion)\b`), "/statements"},
	{regexp.MustCompile(`(?i)\b(annex|annexes|max(imum)? concentration|restriction)\b`), "/annex_entries"},
}

// NamedPaths returns the top-level parts of a profile an instruction names, e.g. "/noael" for
// "Set the NOAEL of the rat study to 200": a rewrite may touch these and nothing else.
func NamedPaths(instruction string) []string {
	var out []string
	for _, n := range namedSections {
		if n.re.MatchString(instruction) {
			out = append(out, n.path)
		}
	}
	return out
}

// outside returns the paths of a patch that fall outside every named part.
func outside(p jsonpatch.Patch, named []string) []string {
	seen := map[string]bool{}
	for _, op := range p {
		paths := []string{op.Path}
		if op.Op == jsonpatch.OpMove || op.Op == jsonpatch.OpCopy {
			paths = append(paths, op.From)
		}
		for _, path := range paths {
			in := false
			for _, n := range named {
				if path == n || strings.HasPrefix(path, n+"/") {
					in = true
				}
			}
			if !in {
				seen[path] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// formExtract is what the model reads out of a pasted correction form.
type formExtract struct {
	CAS        string          `json:"cas,omitempty" desc:"CAS number, if the form gives one"`
	NOAEL      []formNOAEL     `json:"noael"`
	DAP        []formDAP       `json:"dap"`
	References []string        `json:"references" desc:"citations the form gives"`
	Statements []formStatement `json:"statements"`
}

type formNOAEL struct {
	Value             float64 `json:"value"`
	Unit              string  `json:"unit"`
	Type              string  `json:"type" schema:"enum=NOAEL|LOAEL|NOEL|LOEL|BMDL|LD50|other"`
	Species           string  `json:"species,omitempty"`
	Route             string  `json:"route,omitempty"`
	DurationDays      int     `json:"duration_days,omitempty"`
	Study             string  `json:"study,omitempty"`
	Source            string  `json:"source,omitempty"`
	ReferenceCitation string  `json:"reference_citation,omitempty"`
}

type formDAP struct {
	Value             float64 `json:"value"`
	Source            string  `json:"source,omitempty"`
	ReferenceCitation string  `json:"reference_citation,omitempty"`
}

type formStatement struct {
	Text   string `json:"text"`
	Author string `json:"author,omitempty"`
	Date   string `json:"date,omitempty"`
}

func (e *Editor) extractForm(ctx context.Context, call llm.Call, form string) (*formExtract, error) {
	prompt := "Correction form:\n" + form + "\n\nRead the NOAEL (or other reference point), DAP, study, reference and statement values the form gives. Leave out what it doesn't give; don't invent values."
	var out formExtract
	err := e.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleChat,
		System: "You read correction forms for toxicology profiles of cosmetic ingredients.\n" + schemaSummary, Prompt: prompt}, &out)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the form with the model: %w", err)
	}
	return &out, nil
}

// payload turns an extracted form into a structured payload. A form NOAEL replaces the one
// entry of the profile with the same type, species and route, if there is exactly one; else
// it is added. A form DAP replaces the profile's DAP when each has exactly one. Citations
// become references (reused when the profile already cites them).
func (f *formExtract) payload(prof *tox.Profile) *Payload {
	p := &Payload{Sections: map[string]*SectionEdit{}}
	if f.CAS != "" && f.CAS != prof.CAS {
		cas := f.CAS
		p.CAS = &cas
	}
	ids := refIDs(prof)
	var newRefs []json.RawMessage
	citeID := func(c string) string {
		c = strings.TrimSpace(c)
		if c == "" {
			return ""
		}
		for _, r := range prof.References {
			if strings.EqualFold(r.Citation, c) {
				return r.ID
			}
		}
		id := ids.next()
		prof.References = append(prof.References, tox.Reference{ID: id, Citation: c})
		newRefs = append(newRefs, mustJSON(tox.Reference{ID: id, Citation: c}))
		return id
	}
	for _, c := range f.References {
		citeID(c)
	}
	noael := &SectionEdit{Replace: map[string]json.RawMessage{}}
	for _, n := range f.NOAEL {
		unit, ok := normalUnit(n.Unit)
		if !ok {
			unit = n.Unit // validation names it
		}
		e := tox.NOAEL{Value: n.Value, Unit: unit, Species: n.Species, Route: strings.ToLower(n.Route), Study: n.Study,
			Type: n.Type, Source: n.Source, Reference: citeID(n.ReferenceCitation)}
		if n.DurationDays > 0 {
			d := n.DurationDays
			e.DurationDays = &d
		}
		match := -1
		for i, old := range prof.NOAEL {
			if strings.EqualFold(old.Type, e.Type) && strings.EqualFold(old.Species, e.Species) && strings.EqualFold(old.Route, e.Route) {
				if match >= 0 {
					match = -2
					break
				}
				match = i
			}
		}
		if match >= 0 {
			noael.Replace[fmt.Sprint(match)] = mustJSON(e)
		} else {
			noael.Add = append(noael.Add, mustJSON(e))
		}
	}
	if len(noael.Add)+len(noael.Replace) > 0 {
		p.Sections["noael"] = noael
	}
	if len(f.DAP) > 0 {
		dap := &SectionEdit{}
		for _, d := range f.DAP {
			e := mustJSON(tox.DAP{Value: d.Value, Source: d.Source, Reference: citeID(d.ReferenceCitation)})
			if len(f.DAP) == 1 && len(prof.DAP) == 1 {
				dap.Replace = map[string]json.RawMessage{"0": e}
			} else {
				dap.Add = append(dap.Add, e)
			}
		}
		p.Sections["dap"] = dap
	}
	for _, s := range f.Statements {
		if strings.TrimSpace(s.Text) == "" {
			continue
		}
		if p.Sections["statements"] == nil {
			p.Sections["statements"] = &SectionEdit{}
		}
		p.Sections["statements"].Add = append(p.Sections["statements"].Add, mustJSON(tox.Statement(s)))
	}
	if len(newRefs) > 0 {
		p.Sections["references"] = &SectionEdit{Add: newRefs}
	}
	return p
}

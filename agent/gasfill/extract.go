package gasfill

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"warren/config"
	"warren/gas"
	"warren/kb/chunk"
	"warren/llm"
)

type extractedValue struct {
	Field      string  `json:"field"`
	Value      string  `json:"value"`
	Unit       string  `json:"unit"`
	Confidence float64 `json:"confidence"`
	Source     int     `json:"source"`
}

type extraction struct {
	Values []extractedValue `json:"values"`
}

// extractionSchema is built per call: the field names are an enum of the still-empty fields
// and sources are bounded by the passages offered.
func extractionSchema(fields []gas.Field, passages int) *llm.Schema {
	names := make([]any, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	zero, one, lo, hi := 0.0, 1.0, 1.0, float64(max(passages, 1))
	str := func(desc string) *llm.Schema { return &llm.Schema{Type: "string", Description: desc} }
	item := &llm.Schema{Type: "object", Properties: []llm.Property{
		{Name: "field", Schema: &llm.Schema{Type: "string", Enum: names}},
		{Name: "value", Schema: str("the value as the passage states it")},
		{Name: "unit", Schema: str("the unit the passage uses, empty if none")},
		{Name: "confidence", Schema: &llm.Schema{Type: "number", Minimum: &zero, Maximum: &one}},
		{Name: "source", Schema: &llm.Schema{Type: "integer", Minimum: &lo, Maximum: &hi, Description: "the passage number"}},
	}, Required: []string{"field", "value", "unit", "confidence", "source"}}
	return &llm.Schema{Type: "object", Properties: []llm.Property{{Name: "values", Schema: &llm.Schema{Type: "array", Items: item}}},
		Required: []string{"values"}}
}

// extract asks for every still-empty field in one call over the passages, then validates and
// merges what comes back.
func (f *Filler) extract(ctx context.Context, call llm.Call, row *gas.Row, id identity, chunks []chunk.Chunk, method string, bar float64, review bool, res *RowResult) error {
	fields := emptyFields(row)
	if len(fields) == 0 {
		return nil
	}
	chunks, err := f.narrow(ctx, call, id, fields, chunks)
	if err != nil || len(chunks) == 0 {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Substance: %s", id.name)
	if id.cas != "" {
		fmt.Fprintf(&b, " (CAS %s)", id.cas)
	}
	b.WriteString("\nFields still empty:\n")
	for _, fd := range fields {
		fmt.Fprintf(&b, "- %s: %s", fd.Name, fd.Label)
		if fd.Unit != "" {
			fmt.Fprintf(&b, " [%s]", fd.Unit)
		}
		b.WriteString("\n")
	}
	b.WriteString("Passages:\n")
	for i, c := range chunks {
		fmt.Fprintf(&b, "[%d] %s %s:\n%s\n", i+1, c.Doc, c.Section, c.Text)
	}
	b.WriteString("For each field that a passage states for this substance, give the value, its unit, your confidence (0 to 1) and the passage number. Leave out what no passage states; never guess.")
	var out extraction
	err = f.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleChat, Schema: extractionSchema(fields, len(chunks)),
		System: "You fill a hazardous-materials table from safety data. Only values a passage states count.",
		Prompt: b.String()}, &out)
	if err != nil {
		return fmt.Errorf("couldn't extract values for %s: %w", id.name, err)
	}
	wanted := map[string]gas.Field{}
	for _, fd := range fields {
		wanted[fd.Name] = fd
	}
	for _, v := range out.Values {
		fd, ok := wanted[v.Field]
		if !ok || v.Source < 1 || v.Source > len(chunks) {
			continue // not asked for, or a passage that was not offered
		}
		value, err := gas.Normalize(fd, v.Value, v.Unit)
		if err != nil {
			continue // fails its field's validation: does not count
		}
		if f.Rejected[gas.CellRef{Row: row.ID, Field: fd.Name}][value] {
			continue // the analyst rejected this value here before
		}
		src := chunks[v.Source-1]
		proposal := gas.Cell{Value: value, Unit: fd.Unit, Confidence: v.Confidence, Method: method,
			SourceDoc: src.Doc, SourceSection: src.Section, SourceChunk: src.ID, Excerpt: excerptAround(src.Text, v.Value),
			UpdatedAt: time.Now().UTC()}
		before := row.Cells[fd.Name]
		after, changed, reason := gas.Merge(before, proposal, bar, f.Options.OverwriteMargin)
		if !changed {
			continue
		}
		if review {
			after.Status = gas.StatusReview // a general pass's lower bar always needs a look
		}
		row.Cells[fd.Name] = after
		delete(wanted, fd.Name)
		if i := slices.IndexFunc(res.Changes, func(c CellChange) bool { return c.Field == fd.Name }); i >= 0 {
			// A later tier replaced what an earlier one filled: one change from the cell as it
			// was, so the cell is counted and logged once and saved against what is stored.
			ch := &res.Changes[i]
			ch.After = after
			if _, ok, why := gas.Merge(ch.Before, proposal, bar, f.Options.OverwriteMargin); ok {
				ch.Reason = why
			} else {
				ch.Reason = reason
			}
			continue
		}
		res.Filled++
		res.Changes = append(res.Changes, CellChange{Field: fd.Name, Before: before, After: after, Reason: reason})
	}
	return nil
}

func excerptAround(text, value string) string {
	text = strings.Join(strings.Fields(text), " ")
	i := strings.Index(text, strings.TrimSpace(value))
	if i < 0 || value == "" {
		return clip(text, 0, 200)
	}
	return clip(text, i-80, i+len(value)+80)
}

// clip cuts text to [lo, hi) moved out to rune boundaries, marking cut ends with "…".
func clip(text string, lo, hi int) string {
	lo, hi = max(lo, 0), min(hi, len(text))
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	out := strings.TrimSpace(text[lo:hi])
	if lo > 0 {
		out = "… " + out
	}
	if hi < len(text) {
		out += " …"
	}
	return out
}

type sectionPick struct {
	Sections []int `json:"sections"`
}

type paragraphPick struct {
	Paragraphs []int `json:"paragraphs"`
}

// narrow cuts long material down before extraction: a cheap call picks the relevant sections,
// then (if still long) the paragraphs within them. Short material goes through as it is.
func (f *Filler) narrow(ctx context.Context, call llm.Call, id identity, fields []gas.Field, chunks []chunk.Chunk) ([]chunk.Chunk, error) {
	if size(chunks) <= f.Options.NarrowAbove || f.Options.NarrowAbove <= 0 {
		return chunks, nil
	}
	wantList := make([]string, 0, len(fields))
	for _, fd := range fields {
		wantList = append(wantList, fd.Label)
	}
	type section struct{ doc, label string }
	var sections []section
	index := map[section]int{}
	for _, c := range chunks {
		s := section{c.Doc, c.SectionPath}
		if _, ok := index[s]; !ok {
			index[s] = len(sections) + 1
			sections = append(sections, s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Substance: %s. Wanted: %s.\nSections:\n", id.name, strings.Join(wantList, ", "))
	for i, s := range sections {
		fmt.Fprintf(&b, "[%d] %s — %s\n", i+1, s.doc, s.label)
	}
	b.WriteString("Which sections can state these values? Give their numbers.")
	var pick sectionPick
	if err := f.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleFast, System: "You pick the sections of safety documents worth reading.", Prompt: b.String()}, &pick); err != nil {
		return nil, fmt.Errorf("couldn't narrow the material for %s: %w", id.name, err)
	}
	chosen := map[int]bool{}
	for _, n := range pick.Sections {
		chosen[n] = true
	}
	var kept []chunk.Chunk
	for _, c := range chunks {
		if chosen[index[section{c.Doc, c.SectionPath}]] {
			kept = append(kept, c)
		}
	}
	if size(kept) <= f.Options.NarrowAbove {
		return kept, nil
	}
	// Paragraph level: each paragraph stays tied to its chunk for provenance.
	type para struct {
		chunk int
		text  string
	}
	var paras []para
	b.Reset()
	fmt.Fprintf(&b, "Substance: %s. Wanted: %s.\nParagraphs:\n", id.name, strings.Join(wantList, ", "))
	for ci, c := range kept {
		for _, p := range strings.Split(c.Text, "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				paras = append(paras, para{ci, p})
				fmt.Fprintf(&b, "[%d] %s\n", len(paras), excerptAround(p, ""))
			}
		}
	}
	b.WriteString("Which paragraphs state these values? Give their numbers.")
	var pp paragraphPick
	if err := f.Gateway.Structured(ctx, llm.Request{Call: call, Role: config.RoleFast, System: "You pick the paragraphs of safety documents worth reading.", Prompt: b.String()}, &pp); err != nil {
		return nil, fmt.Errorf("couldn't narrow the material for %s: %w", id.name, err)
	}
	texts := map[int][]string{}
	for _, n := range pp.Paragraphs {
		if n >= 1 && n <= len(paras) {
			texts[paras[n-1].chunk] = append(texts[paras[n-1].chunk], paras[n-1].text)
		}
	}
	var out []chunk.Chunk
	for ci, c := range kept {
		if t := texts[ci]; len(t) > 0 {
			c.Text = strings.Join(t, "\n\n")
			out = append(out, c)
		}
	}
	return out, nil
}

func size(chunks []chunk.Chunk) int {
	n := 0
	for _, c := range chunks {
		n += len(c.Text)
	}
	return n
}

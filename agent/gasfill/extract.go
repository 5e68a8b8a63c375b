package gasfill

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
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
		proposal, stated := groundedProposal(fd, value, v, chunks, row)
		proposal.Confidence, proposal.Method, proposal.UpdatedAt = v.Confidence, method, time.Now().UTC()
		before := row.Cells[fd.Name]
		if !stated && !before.IsEmpty() {
			continue // an unsupported value replaces nothing, not even another unsupported one
		}
		after, changed, reason := gas.Merge(before, proposal, bar, f.Options.OverwriteMargin)
		if !changed {
			continue
		}
		switch {
		case !stated:
			after.Status = gas.StatusUnsupported
			reason = "kept as unsupported: " + proposal.Note
		case review:
			after.Status = gas.StatusReview // a general pass's lower bar always needs a look
		}
		row.Cells[fd.Name] = after
		if stated {
			delete(wanted, fd.Name) // an unsupported value leaves the field to a later value of the answer
		}
		if i := slices.IndexFunc(res.Changes, func(c CellChange) bool { return c.Field == fd.Name }); i >= 0 {
			// A later tier replaced what an earlier one filled: one change from the cell as it
			// was, so the cell is counted and logged once and saved against what is stored.
			ch := &res.Changes[i]
			ch.After = after
			if _, ok, why := gas.Merge(ch.Before, proposal, bar, f.Options.OverwriteMargin); ok && stated {
				ch.Reason = why
			} else {
				ch.Reason = reason
			}
			res.count()
			continue
		}
		res.Changes = append(res.Changes, CellChange{Field: fd.Name, Before: before, After: after, Reason: reason})
		res.count()
	}
	return nil
}

// groundedProposal makes the cell a value of the model's answer proposes, checked against the
// passages: cited to the passage it names when that one states the value, else to another
// passage of the call that does (the model's numbering slips); when none does, stated is false
// and the cell keeps the model's citation with the reason in its note, for the fill to store
// as unsupported. The excerpt is centred on the words that state the value.
func groundedProposal(fd gas.Field, value string, v extractedValue, chunks []chunk.Chunk, row *gas.Row) (gas.Cell, bool) {
	molar := 0.0
	if mw, err := strconv.ParseFloat(row.Cells["molecular_weight"].Value, 64); err == nil {
		molar = mw
	}
	cited := chunks[v.Source-1]
	order := append([]chunk.Chunk{cited}, slices.Delete(slices.Clone(chunks), v.Source-1, v.Source)...)
	for i, c := range order {
		sp, ok := gas.Stated(fd, value, c.Text, molar)
		if !ok {
			continue
		}
		cell := gas.Cell{Value: value, Unit: fd.Unit, SourceDoc: c.Doc, SourceSection: c.Section, SourceChunk: c.ID,
			SourcePage: c.PageRef(), Excerpt: excerptAt(c.Text, sp.Start, sp.End)}
		if i > 0 {
			cell.Note = fmt.Sprintf("cited to passage %d, which does not state it; %s does", v.Source, where(c))
		}
		return cell, true
	}
	return gas.Cell{Value: value, Unit: fd.Unit, SourceDoc: cited.Doc, SourceSection: cited.Section, SourceChunk: cited.ID,
		SourcePage: cited.PageRef(), Excerpt: excerptAt(cited.Text, 0, 0),
		Note: fmt.Sprintf("the model read %q from %s, which does not state it, nor does any other passage it was given", v.Value, where(cited))}, false
}

func where(c chunk.Chunk) string {
	if place := c.Place(); place != "" {
		return c.Doc + " " + place
	}
	return c.Doc
}

// count sets the counts of the row's changes: values filled, and values kept as unsupported,
// which are never counted as filled.
func (r *RowResult) count() {
	r.Filled, r.Unsupported = 0, 0
	for _, c := range r.Changes {
		if c.After.Status == gas.StatusUnsupported {
			r.Unsupported++
		} else {
			r.Filled++
		}
	}
}

// excerptAt is the passage around the bytes [start, end) (the words that state a value), cut
// at word boundaries so that no word is broken, with whitespace folded.
func excerptAt(text string, start, end int) string {
	lo, hi := max(start-80, 0), min(max(end, start)+80, len(text))
	if end <= start {
		lo, hi = 0, min(200, len(text))
	}
	for lo > 0 && !unicode.IsSpace(rune(text[lo-1])) {
		lo--
	}
	for hi < len(text) && !unicode.IsSpace(rune(text[hi])) {
		hi++
	}
	out := strings.Join(strings.Fields(text[lo:hi]), " ")
	if lo > 0 {
		out = "… " + out
	}
	if hi < len(text) {
		out += " …"
	}
	return out
}

// head is the start of a paragraph, as the narrowing call lists it.
func head(text string) string {
	return clip(strings.Join(strings.Fields(text), " "), 0, 200)
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
				fmt.Fprintf(&b, "[%d] %s\n", len(paras), head(p))
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

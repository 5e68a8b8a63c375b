package service

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"warren/gas"
	"warren/kb/chunk"
	"warren/report"
	"warren/service/audit"
	"warren/tox"
)

// The desks' summaries as documents: the gas table's values found in the knowledge base with
// their sources, and a toxicology profile's current version. Both go where research reports
// go (exports/, whole or not at all) and into the audit trail; the gas table's xlsx export
// stays the one to work on.

// ExportSummary writes a summary of a gas table (the default: the only one) as a document in
// format md, docx, odt, pdf or html: how many cells stand in each state, and each value not
// from the imported sheet (filled, to review, approved, edited, rejected) with its confidence
// and its source, a numbered reference naming document, section and page, the passages quoted
// in an appendix. It goes to out, or to exports/gas-TABLE.EXT, as research reports do.
func (g *Gas) ExportSummary(ctx context.Context, table, format, out string) (shown string, err error) {
	defer func() {
		g.s.record(ctx, audit.ActionExport, shown, map[string]any{"what": "gas summary", "table": table, "format": format}, err)
	}()
	f, err := report.ParseFormat(format)
	if err != nil {
		return "", err
	}
	t, err := g.Table(ctx, table)
	if err != nil {
		return "", err
	}
	table = t.Name
	return g.s.writeExport("gas-"+fileName(t.Name)+f.Ext(), out, func() ([]byte, error) {
		return report.Write(gasDocument(t, g.s.Owner, time.Now()), f)
	})
}

// Export writes the latest version of a toxicology profile as a document in format md, docx,
// odt, pdf or html: its identity and version (who saved it, when, why), its points of
// departure, dermal absorption, annex entries, references and statements. It goes to out, or
// to exports/tox-INCI.EXT, as research reports do.
func (x *Tox) Export(ctx context.Context, inci, format, out string) (shown string, err error) {
	defer func() {
		x.s.record(ctx, audit.ActionExport, shown, map[string]any{"what": "toxicology profile", "inci": inci, "format": format}, err)
	}()
	f, err := report.ParseFormat(format)
	if err != nil {
		return "", err
	}
	v, err := x.Profile(ctx, inci, 0)
	if err != nil {
		return "", err
	}
	p, err := v.Profile()
	if err != nil {
		return "", fmt.Errorf("couldn't read the profile of %s: %w", v.INCI, err)
	}
	return x.s.writeExport("tox-"+fileName(v.INCI)+f.Ext(), out, func() ([]byte, error) {
		return report.Write(toxDocument(p, v.VersionInfo), f)
	})
}

var unsafeName = regexp.MustCompile(`[^\pL\pN._-]+`)

// fileName makes a table's or ingredient's name a file name: no folders, no spaces.
func fileName(name string) string {
	n := strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.")
	if n == "" {
		return "export"
	}
	return n
}

// gasDocument is a gas table's summary; at is when it was made.
func gasDocument(t *gas.Table, analyst string, at time.Time) *report.Document {
	d := &report.Document{Lang: "en", Title: "Gas table " + t.Name, Author: analyst, Created: at,
		Meta: []report.Field{{Label: "Table", Value: t.Name}, {Label: "Rows", Value: fmt.Sprint(len(t.Rows))},
			{Label: "Date", Value: at.UTC().Format("2006-01-02 15:04 UTC")}, {Label: "Exported by", Value: analyst}}}
	counts := t.Counts()
	states := []struct {
		s    gas.Status
		name string
	}{{gas.StatusOriginal, "from the sheet"}, {gas.StatusFilled, "filled"}, {gas.StatusReview, "to review"},
		{gas.StatusApproved, "approved"}, {gas.StatusEdited, "edited"}, {gas.StatusRejected, "rejected"}, {gas.StatusEmpty, "empty"}}
	summary := report.Block{Kind: report.Table, Header: [][]report.Inline{{report.Plain("Cells")}, {report.Plain("Count")}},
		Align: []report.Align{report.AlignLeft, report.AlignRight}}
	for _, st := range states {
		summary.Rows = append(summary.Rows, [][]report.Inline{{report.Plain(st.name)}, {report.Plain(fmt.Sprint(counts[st.s]))}})
	}
	d.Blocks = append(d.Blocks, report.Head(1, "Cells by state"), summary)

	// Each distinct passage is one reference, numbered in the order the table cites it.
	type source struct {
		doc, section, chunk, excerpt string
		page                         chunk.PageRef
	}
	var sources []source
	number := map[string]int{}
	cite := func(c gas.Cell) int {
		if c.SourceDoc == "" {
			return 0
		}
		key := c.SourceDoc + "\x00" + c.SourceChunk + "\x00" + c.SourceSection + "\x00" + c.Excerpt
		if n, ok := number[key]; ok {
			return n
		}
		sources = append(sources, source{c.SourceDoc, c.SourceSection, c.SourceChunk, c.Excerpt, c.SourcePage})
		number[key] = len(sources)
		return len(sources)
	}
	values := report.Block{Kind: report.Table, Align: []report.Align{report.AlignLeft, report.AlignLeft, report.AlignLeft, report.AlignLeft, report.AlignRight, report.AlignLeft}}
	for _, h := range []string{"Gas", "Field", "Value", "State", "Confidence", "Source"} {
		values.Header = append(values.Header, []report.Inline{report.Plain(h)})
	}
	for _, r := range t.Rows {
		for _, f := range gas.Fields() {
			c, ok := r.Cells[f.Name]
			if !ok || c.Status == gas.StatusOriginal || c.Status == gas.StatusEmpty {
				continue
			}
			value := strings.TrimSpace(c.Value + " " + c.Unit)
			if c.Status == gas.StatusRejected && c.Note != "" {
				value = "(" + c.Note + ")"
			}
			conf := ""
			if c.Confidence > 0 {
				conf = fmt.Sprintf("%.2f", c.Confidence)
			}
			var src []report.Inline
			if n := cite(c); n > 0 {
				src = cites([]int{n})
			}
			if c.By != "" {
				src = append(src, report.Plain(" ("+c.By+")"))
			}
			state := []report.Inline{report.Plain(string(c.Status))}
			if c.Status == gas.StatusReview || c.Status == gas.StatusUnsupported {
				state[0].Flag = true
			}
			values.Rows = append(values.Rows, [][]report.Inline{{report.Plain(r.Name())}, {report.Plain(f.Label)}, {report.Plain(value)}, state, {report.Plain(conf)}, src})
		}
	}
	d.Blocks = append(d.Blocks, report.Head(1, "Values from the knowledge base"))
	if len(values.Rows) == 0 {
		d.Blocks = append(d.Blocks, report.Para(report.Plain("No value of this table came from the knowledge base yet: every value is the imported sheet's.")))
	} else {
		d.Blocks = append(d.Blocks, values)
	}
	if len(sources) > 0 {
		d.Blocks = append(d.Blocks, report.Head(1, "References"))
		for i, s := range sources {
			in := []report.Inline{{Text: s.doc, Bold: true}}
			if place := chunk.Place(s.section, s.page); place != "" {
				in = append(in, report.Plain(", "+place))
			}
			d.Blocks = append(d.Blocks, report.Block{Kind: report.Reference, N: i + 1, Inlines: in})
		}
		d.Blocks = append(d.Blocks, report.Head(1, "Appendix: cited passages"))
		for i, s := range sources {
			where := s.doc
			if place := chunk.Place(s.section, s.page); place != "" {
				where += ", " + place
			}
			passage := report.Para(report.Plain(s.excerpt))
			if s.excerpt == "" {
				passage = report.Para(report.Inline{Text: "(no passage was kept with this value)", Italic: true})
			}
			d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: fmt.Sprintf("[%d] %s", i+1, where), Bold: true}),
				report.Block{Kind: report.Quote, Blocks: []report.Block{passage}})
		}
	}
	return d
}

// toxDocument is a toxicology profile's version as a document.
func toxDocument(p *tox.Profile, v tox.VersionInfo) *report.Document {
	d := &report.Document{Lang: "en", Title: "Toxicology profile: " + p.INCI, Author: v.By, Created: v.CreatedAt,
		Meta: []report.Field{{Label: "INCI", Value: p.INCI}}}
	if p.CAS != "" {
		d.Meta = append(d.Meta, report.Field{Label: "CAS", Value: p.CAS})
	}
	saved := v.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
	if v.By != "" {
		saved += " by " + v.By
	}
	d.Meta = append(d.Meta, report.Field{Label: "Version", Value: fmt.Sprintf("%d, saved %s", v.Version, saved)})
	if v.Summary != "" {
		d.Meta = append(d.Meta, report.Field{Label: "Change", Value: v.Summary})
	}
	table := func(header []string, rows [][]string) report.Block {
		b := report.Block{Kind: report.Table}
		for _, h := range header {
			b.Header = append(b.Header, []report.Inline{report.Plain(h)})
		}
		for _, r := range rows {
			var cells [][]report.Inline
			for _, c := range r {
				cells = append(cells, []report.Inline{report.Plain(c)})
			}
			b.Rows = append(b.Rows, cells)
		}
		return b
	}
	num := func(f float64) string { return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".") }
	section := func(title string, rows int, b report.Block, none string) {
		d.Blocks = append(d.Blocks, report.Head(1, title))
		if rows == 0 {
			d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: none, Italic: true}))
			return
		}
		d.Blocks = append(d.Blocks, b)
	}
	var noael [][]string
	for _, n := range p.NOAEL {
		days := ""
		if n.DurationDays != nil {
			days = fmt.Sprint(*n.DurationDays)
		}
		noael = append(noael, []string{n.Type, num(n.Value) + " " + n.Unit, n.Species, n.Route, days, n.Study, n.Reference})
	}
	section("Points of departure", len(noael), table([]string{"Type", "Value", "Species", "Route", "Days", "Study", "Reference"}, noael), "None recorded.")
	var dap [][]string
	for _, x := range p.DAP {
		dap = append(dap, []string{num(x.Value) + " %", x.Source, x.Reference})
	}
	section("Dermal absorption", len(dap), table([]string{"Absorption", "Source", "Reference"}, dap), "None recorded.")
	var annex [][]string
	for _, a := range p.AnnexEntries {
		annex = append(annex, []string{a.Annex, a.Entry, a.ProductType, a.MaxConcentration, a.Conditions})
	}
	section("Annexes of Regulation (EC) 1223/2009", len(annex), table([]string{"Annex", "Entry", "Product type", "Maximum", "Conditions"}, annex), "None recorded.")
	refs := append([]tox.Reference(nil), p.References...)
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].ID < refs[j].ID })
	d.Blocks = append(d.Blocks, report.Head(1, "References"))
	if len(refs) == 0 {
		d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: "None recorded.", Italic: true}))
	}
	for _, r := range refs {
		d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: r.ID + ": ", Bold: true}, report.Plain(r.Citation)))
	}
	if len(p.Statements) > 0 {
		d.Blocks = append(d.Blocks, report.Head(1, "Statements"))
		for _, s := range p.Statements {
			q := report.Block{Kind: report.Quote, Blocks: []report.Block{report.Para(report.Plain(s.Text))}}
			if who := strings.TrimSpace(strings.Join([]string{s.Author, s.Date}, ", ")); strings.Trim(who, ", ") != "" {
				q.Blocks = append(q.Blocks, report.Para(report.Inline{Text: "— " + strings.Trim(who, ", "), Italic: true}))
			}
			d.Blocks = append(d.Blocks, q)
		}
	}
	return d
}

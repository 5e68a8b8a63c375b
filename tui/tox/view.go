package tox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"warren/service"
	"warren/tox/jsonpatch"
	"warren/tui/component"
)

// The Toxicology tab's layout: diffs go side by side from toxSideBySide columns on.
const (
	toxSideBySide = 120
	toxTimeFormat = "2006-01-02 15:04"
)

func (x *Model) View() string {
	title := x.st.Title.Render("Toxicology desk")
	if !x.loaded {
		return title + "\n\n" + x.st.Subtle.Render("Loading the profiles…")
	}
	if len(x.profiles) == 0 {
		return title + "\n\n" + component.Wrap("No toxicology profile: import some with `warren tox import FILE` (make run imports the sample).", min(x.width, 100)) +
			"\n\n" + x.st.Subtle.Render("r reloads after an import")
	}
	switch {
	case x.input == toxInstruction || x.input == toxOps:
		return x.editorView()
	case x.view == toxProposal:
		return x.proposalView()
	case x.view == toxHistory:
		return x.historyView()
	case x.view == toxVersions || x.view == toxConfirm:
		return x.versionsView()
	}
	return x.browseView()
}

// listWidth is the width of the ingredient list.
func (x *Model) listWidth() int {
	if x.width >= toxSideBySide {
		return 34
	}
	return 26
}

func (x *Model) browseView() string {
	lw := x.listWidth()
	pw := max(x.width-lw-3, 10)
	left := x.listLines(lw, x.height)
	right := x.profileLines(pw)
	body := x.height - 1
	x.scroll = min(x.scroll, max(len(right)-body, 0))
	right = right[x.scroll:]
	head := x.profileHead(pw)
	lines := make([]string, x.height)
	for i := range lines {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i == 0 {
			r = head
		} else if i-1 < len(right) {
			r = right[i-1]
		}
		lines[i] = component.Pad(l, lw) + x.st.Subtle.Render(" │ ") + component.Truncate(r, pw)
	}
	return strings.Join(lines, "\n")
}

func (x *Model) listLines(w, h int) []string {
	head := fmt.Sprintf("Profiles (%d)", len(x.profiles))
	if x.filter != "" {
		head = fmt.Sprintf("Profiles %d/%d", len(x.shown), len(x.profiles))
	}
	lines := []string{x.st.Title.Render(head)}
	if wh := x.waitingHead(); wh != "" {
		lines = append(lines, component.Truncate(wh, w))
	}
	switch {
	case x.input == toxFilter:
		lines = append(lines, x.st.Key.Render("/ ")+x.line.View())
	case x.filter != "":
		lines = append(lines, x.st.Subtle.Render("/ "+component.SafeLine(x.filter)+" (esc clears)"))
	}
	rows := max(h-len(lines), 1)
	if x.cur < x.listOff {
		x.listOff = x.cur
	}
	if x.cur >= x.listOff+rows {
		x.listOff = x.cur - rows + 1
	}
	if len(x.shown) == 0 {
		lines = append(lines, x.st.Subtle.Render("no profile matches"))
	}
	for j := x.listOff; j < len(x.shown) && j < x.listOff+rows; j++ {
		p := x.profiles[x.shown[j]]
		ver := fmt.Sprintf("v%d", p.Version)
		tail, styled := ver, x.st.Subtle.Render(ver)
		if wm := x.waitingMark(p.INCI); wm != "" { // a proposal for it waits
			tail, styled = wm+" "+ver, x.st.Unresolved.Render(wm)+" "+styled
		}
		name := component.Pad(component.SafeLine(p.INCI), max(w-2-ansi.StringWidth(tail)-1, 4))
		row := name + " " + styled
		if j == x.cur {
			mark := "▸ "
			if x.onProf {
				mark = "› "
			}
			row = x.st.Selected.Render(mark+name) + " " + styled
		} else {
			row = "  " + row
		}
		lines = append(lines, row)
	}
	return lines
}

func (x *Model) profileHead(w int) string {
	if x.profile == nil {
		return ""
	}
	pv := x.profile
	head := x.st.Title.Render(component.SafeLine(pv.INCI)) + fmt.Sprintf(" · v%d · %s · %s", pv.Version, component.SafeLine(pv.EditType), pv.CreatedAt.In(x.loc).Format(toxTimeFormat))
	return component.Truncate(head, w)
}

// profileLines is the profile under the cursor, below its head line.
func (x *Model) profileLines(w int) []string {
	if x.profileErr != "" {
		return []string{x.st.StatusError.Render(component.SafeLine(x.profileErr))}
	}
	if x.profile == nil {
		return nil
	}
	p, err := x.profile.Profile()
	if err != nil {
		return []string{x.st.StatusError.Render(component.SafeLine("couldn't read the profile: " + err.Error()))}
	}
	var out []string
	sub := x.st.Subtle
	cas := p.CAS
	if cas == "" {
		cas = "none"
	}
	out = append(out, sub.Render(component.SafeLine("CAS "+cas+" · "+x.profile.Summary)))
	section := func(name string, n int) {
		out = append(out, "", x.st.Header.Render(fmt.Sprintf("%s (%d)", name, n)))
	}
	section("NOAEL", len(p.NOAEL))
	if len(p.NOAEL) > 0 {
		rows := [][]string{{"#", "type", "value", "unit", "species", "route", "days", "ref"}}
		for i, n := range p.NOAEL {
			days := ""
			if n.DurationDays != nil {
				days = strconv.Itoa(*n.DurationDays)
			}
			rows = append(rows, []string{strconv.Itoa(i + 1), component.SafeLine(n.Type), fmtFloat(n.Value), component.SafeLine(n.Unit), component.SafeLine(n.Species),
				component.SafeLine(n.Route), days, component.SafeLine(n.Reference)})
		}
		table := columns(rows)
		out = append(out, sub.Render(table[0]))
		for i, n := range p.NOAEL {
			out = append(out, table[i+1])
			if n.Study != "" || n.Source != "" {
				out = append(out, sub.Render("    "+component.SafeLine(strings.Join(nonEmpty(n.Study, n.Source), " · "))))
			}
		}
	}
	section("DAP", len(p.DAP))
	for _, d := range p.DAP {
		out = append(out, "  "+component.SafeLine(strings.Join(nonEmpty(fmtFloat(d.Value)+" %", d.Source, refText(d.Reference)), " · ")))
	}
	section("Annex entries", len(p.AnnexEntries))
	for _, a := range p.AnnexEntries {
		entry := "Annex " + a.Annex
		if a.Entry != "" {
			entry += "/" + a.Entry
		}
		limit := ""
		if a.MaxConcentration != "" {
			limit = "max " + a.MaxConcentration
		}
		out = append(out, "  "+component.SafeLine(strings.Join(nonEmpty(entry, a.ProductType, limit), " · ")))
		if a.Conditions != "" {
			out = append(out, sub.Render("    "+component.SafeLine(a.Conditions)))
		}
	}
	section("References", len(p.References))
	for _, r := range p.References {
		out = append(out, wrapIndent(component.Safe(r.ID+"  "+r.Citation), w, "  ", "      ")...)
	}
	section("Statements", len(p.Statements))
	for _, s := range p.Statements {
		by := strings.Join(nonEmpty(s.Author, s.Date), ", ")
		text := s.Text
		if by != "" {
			text += " — " + by
		}
		out = append(out, wrapIndent(component.Safe(text), w, "  ", "  ")...)
	}
	return out
}

func refText(id string) string {
	if id == "" {
		return ""
	}
	return "ref " + id
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func nonEmpty(parts ...string) []string {
	return slices.DeleteFunc(parts, func(s string) bool { return strings.TrimSpace(s) == "" })
}

// columns aligns rows of cells into lines, two spaces apart, indented by two.
func columns(rows [][]string) []string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == len(r)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(component.Pad(c, widths[i]))
			}
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// wrapIndent wraps plain text to width: the first line after first, the rest after rest.
func wrapIndent(s string, width int, first, rest string) []string {
	lines := strings.Split(component.Wrap(s, max(width-len(rest), 10)), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

func (x *Model) editorView() string {
	// The title and what the field takes are two lines, so that neither is cut at 80 columns.
	var head, hint string
	if x.input == toxOps && x.proposal != nil {
		head = x.st.Title.Render("Edit the operations") + " · " + component.SafeLine(x.proposal.INCI)
		hint = "ctrl+s checks them and proposes again as a structured edit"
	} else {
		v := 0
		if x.profile != nil {
			v = x.profile.Version
		}
		head = x.st.Title.Render("Edit "+component.SafeLine(x.selected())) + fmt.Sprintf(" · from version %d", v)
		hint = "an instruction in words, a JSON payload or a JSON Patch"
	}
	lines := []string{component.Truncate(head, x.width), x.st.Subtle.Render(component.Truncate(hint, x.width)), x.text.View(), ""}
	switch {
	case x.running():
		lines = append(lines, x.st.Unresolved.Render("proposing… (esc cancels)"))
	case x.inputErr != "":
		lines = append(lines, wrapIndent(x.st.StatusError.Render("! ")+component.Safe(x.inputErr), x.width, "", "  ")...)
	default:
		lines = append(lines, x.st.Subtle.Render("ctrl+s proposes (enter too, for a one-line instruction) · esc cancels"))
	}
	return strings.Join(lines, "\n")
}

func (x *Model) proposalView() string {
	p := x.proposal
	sub := x.st.Subtle
	head := []string{
		x.st.Title.Render("Proposal · "+component.SafeLine(p.INCI)) + fmt.Sprintf(" · from version %d", p.BaseVersion),
	}
	if wl := x.waitingLine(); wl != "" {
		head = append(head, component.Truncate(wl, x.width))
	}
	head = append(head,
		component.Truncate(sub.Render("input: ")+component.OneLine(p.Input), x.width),
		// The kind of edit and how it was made in words, not the edit graph's constants.
		component.Truncate(component.SafeLine(service.ToxEditTypeWords(string(p.EditType)))+sub.Render(" · ")+component.SafeLine(service.ToxMethodWords(p.Method))+
			sub.Render(fmt.Sprintf(" · %d model call(s)", p.ModelCalls)), x.width))
	switch {
	case x.input == toxComment:
		head = append(head, x.st.Key.Render("comment: ")+x.line.View())
	case x.comment != "":
		head = append(head, component.Truncate(sub.Render("comment (the summary): ")+component.SafeLine(x.comment), x.width))
	default:
		head = append(head, component.Truncate(sub.Render("summary: ")+component.SafeLine(p.Summary), x.width))
	}
	if p.Note != "" {
		head = append(head, component.Truncate(x.st.Unresolved.Render("note: ")+component.SafeLine(p.Note), x.width))
	}
	body := []string{"", x.st.Header.Render(fmt.Sprintf("Operations (%d)", len(p.Patch)))}
	for _, op := range p.Patch {
		body = append(body, "  "+component.SafeLine(jsonpatch.Describe(p.Before, op)))
	}
	if len(p.Patch) == 0 {
		body = append(body, sub.Render("  none: nothing to save"))
	}
	body = append(body, "", x.st.Header.Render("Diff"))
	body = append(body, x.diffLines(p.Before, p.After, x.width)...)
	return x.scrolled(head, body)
}

// scrolled keeps head on top and scrolls body under it.
func (x *Model) scrolled(head, body []string) string {
	room := max(x.height-len(head), 1)
	x.scroll = min(x.scroll, max(len(body)-room, 0))
	body = body[x.scroll:]
	if len(body) > room {
		body = body[:room]
		body[room-1] = x.st.Subtle.Render("… ↓ for more")
	}
	return strings.Join(append(head, body...), "\n")
}

// diffLines renders the diff of two profiles, coloured: unified below toxSideBySide columns,
// side by side from there on.
func (x *Model) diffLines(before, after []byte, w int) []string {
	if w >= toxSideBySide {
		hunks, err := jsonpatch.Hunks(before, after, jsonpatch.DefaultContext)
		if err != nil {
			return []string{x.st.StatusError.Render("couldn't diff: " + err.Error())}
		}
		if len(hunks) == 0 {
			return []string{x.st.Subtle.Render("  no difference")}
		}
		return x.sideBySide(hunks, w)
	}
	text, err := jsonpatch.Render(before, after, w)
	if err != nil {
		return []string{x.st.StatusError.Render("couldn't diff: " + err.Error())}
	}
	if text == "" {
		return []string{x.st.Subtle.Render("  no difference")}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		l = component.SafeLine(l) // JSON escapes C0 controls, not C1 ones or bidi overrides
		switch {
		case strings.HasPrefix(l, "@@"):
			out = append(out, x.st.DiffHunk.Render(l))
		case strings.HasPrefix(l, "-"):
			out = append(out, x.st.DiffRemoved.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, x.st.DiffAdded.Render(l))
		default:
			out = append(out, l)
		}
	}
	return out
}

// sideBySide puts the removed lines on the left and the added ones on the right, row by row.
func (x *Model) sideBySide(hunks []jsonpatch.Hunk, w int) []string {
	cw := (w - 3) / 2
	cell := func(l *jsonpatch.Line, right bool) string {
		if l == nil {
			if right {
				return ""
			}
			return strings.Repeat(" ", cw)
		}
		s := component.Pad(fmt.Sprintf("%4d %c%s", max(l.Old, l.New), l.Kind, component.SafeLine(l.Text)), cw)
		if right {
			s = strings.TrimRight(s, " ")
		}
		switch l.Kind {
		case jsonpatch.Removed:
			return x.st.DiffRemoved.Render(s)
		case jsonpatch.Added:
			return x.st.DiffAdded.Render(s)
		}
		return s
	}
	var out []string
	row := func(a, b *jsonpatch.Line) {
		out = append(out, cell(a, false)+x.st.Subtle.Render(" │ ")+cell(b, true))
	}
	for _, h := range hunks {
		out = append(out, x.st.DiffHunk.Render(h.Header()))
		ls := h.Lines
		for i := 0; i < len(ls); {
			if ls[i].Kind == jsonpatch.Context {
				l := ls[i]
				left, right := l, l
				left.New, right.Old = 0, 0
				row(&left, &right)
				i++
				continue
			}
			var rem, add []jsonpatch.Line
			for i < len(ls) && ls[i].Kind == jsonpatch.Removed {
				rem = append(rem, ls[i])
				i++
			}
			for i < len(ls) && ls[i].Kind == jsonpatch.Added {
				add = append(add, ls[i])
				i++
			}
			for j := range max(len(rem), len(add)) {
				var a, b *jsonpatch.Line
				if j < len(rem) {
					a = &rem[j]
				}
				if j < len(add) {
					b = &add[j]
				}
				row(a, b)
			}
		}
	}
	return out
}

func (x *Model) historyView() string {
	inci := x.selected()
	head := []string{x.st.Title.Render("History · "+component.SafeLine(inci)) + x.st.Subtle.Render(fmt.Sprintf(" · %d version(s), newest first", len(x.history)))}
	if x.history == nil {
		return strings.Join(append(head, "", x.st.Subtle.Render("Loading the history…")), "\n")
	}
	rows := [][]string{{"", "ver", "when", "by", "kind of edit", "summary"}}
	for _, v := range x.history {
		mark := " "
		if slices.Contains(x.marked, v.Version) {
			mark = "●"
		}
		by := v.By
		if by == "" {
			by = "—" // saved before names were recorded
		}
		rows = append(rows, []string{mark, fmt.Sprintf("v%d", v.Version), v.CreatedAt.In(x.loc).Format(toxTimeFormat), component.SafeLine(by), component.SafeLine(service.ToxEditTypeWords(v.EditType)), component.OneLine(v.Summary)})
	}
	table := columns(rows)
	lines := append(head, "", x.st.Subtle.Render(table[0]))
	for i, l := range table[1:] {
		if i == x.hcur {
			l = x.st.Selected.Render("▸" + l[1:])
		}
		lines = append(lines, component.Truncate(l, x.width))
	}
	var sel []string
	for _, v := range x.marked {
		sel = append(sel, fmt.Sprintf("v%d", v))
	}
	hint := "space selects two versions, d shows their diff · R rolls back to the version under the cursor"
	if len(sel) > 0 {
		hint = "selected: " + strings.Join(sel, ", ") + " · " + hint
	}
	lines = append(lines, "", x.st.Subtle.Render(component.Truncate(hint, x.width)))
	return strings.Join(lines, "\n")
}

func (x *Model) versionsView() string {
	head := []string{x.st.Title.Render(component.SafeLine(x.diffText))}
	if x.view == toxConfirm {
		latest := 0
		if len(x.history) > 0 {
			latest = x.history[0].Version
		}
		head = append(head, wrapIndent(fmt.Sprintf("Roll back to version %d? This saves version %d equal to version %d; no version is removed.",
			x.confirm, latest+1, x.confirm), x.width, "", "")...)
		head = append(head, x.st.Key.Render("y")+" rolls back · "+x.st.Key.Render("n")+" cancels")
	}
	body := append([]string{""}, x.diffLines(x.diffA, x.diffB, x.width)...)
	return x.scrolled(head, body)
}

// patchText is a proposal's operations as indented JSON, for the operations editor.
func patchText(p *service.ToxProposal) string {
	ops := p.Patch
	if ops == nil {
		ops = jsonpatch.Patch{}
	}
	data, err := json.MarshalIndent(ops, "", "  ")
	if err != nil {
		return "[]"
	}
	return string(data)
}

package gas

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/gas"
	"warren/service"
	"warren/tui/component"
)

// The Gas tab's layout: the detail pane goes to the right of the grid from gasSideBySide
// columns on, and below it (gasDetailLines high) on narrower screens.
const (
	gasSideBySide  = 120
	gasDetailWidth = 40
	gasDetailLines = 6
)

// shortLabels are the grid's column headers; the detail pane shows the full label.
var shortLabels = map[string]string{
	"chemical_name": "Chemical", "cas_number": "CAS", "formula": "Formula", "subsystem_formula": "Subsys",
	"un_number": "UN", "synonyms": "Synonyms", "molecular_weight": "MW", "boiling_point_c": "BP°C",
	"melting_point_c": "MP°C", "vapour_pressure_bar": "VP bar", "density_kg_m3": "ρ kg/m³", "specific_gravity": "SG",
	"critical_temperature_c": "Tc°C", "critical_pressure_bar": "Pc bar", "physical_state": "State", "odour": "Odour",
	"water_solubility": "Solub.", "hmis_health": "HMIS-H", "hmis_flammability": "HMIS-F", "hmis_physical_hazard": "HMIS-P",
	"nfpa_health": "NFPA-H", "nfpa_flammability": "NFPA-F", "nfpa_instability": "NFPA-I", "nfpa_special": "NFPA-S",
	"flash_point_c": "FP°C", "autoignition_c": "AIT°C", "lel_vol_pct": "LEL%", "uel_vol_pct": "UEL%",
	"idlh_ppm": "IDLH", "tlv_twa_ppm": "TWA", "stel_ppm": "STEL", "odour_threshold_ppm": "Odour ppm",
	"pyrophoric": "Pyro", "ghs01_explosive": "GHS01", "ghs02_flammable": "GHS02", "ghs03_oxidising": "GHS03",
	"ghs04_gas_under_pressure": "GHS04", "ghs05_corrosive": "GHS05", "ghs06_toxic": "GHS06", "ghs07_harmful": "GHS07",
	"ghs08_health_hazard": "GHS08", "ghs09_environment": "GHS09", "signal_word": "Signal", "h_statements": "H-stmts",
	"hazard_class": "Hazard class", "transport_class": "Transport", "seveso_category": "Seveso",
}

func shortLabel(f gas.Field) string {
	if s, ok := shortLabels[f.Name]; ok {
		return s
	}
	return f.Label
}

// statusMarks prefix each cell, so that a status reads without colour too (NO_COLOR).
var statusMarks = map[gas.Status]string{gas.StatusFilled: "•", gas.StatusReview: "?", gas.StatusApproved: "✓",
	gas.StatusEdited: "✎", gas.StatusRejected: "×", gas.StatusUnsupported: "!"}

func statusWord(s gas.Status) string {
	switch s {
	case gas.StatusOriginal:
		return "original (from the sheet)"
	case gas.StatusFilled:
		return "filled (high confidence)"
	case gas.StatusReview:
		return "review required"
	case gas.StatusApproved:
		return "approved"
	case gas.StatusEdited:
		return "edited"
	case gas.StatusRejected:
		return "rejected"
	case gas.StatusUnsupported:
		return "unsupported: no passage states it"
	}
	return "empty"
}

func (g *Model) cellStyle(s gas.Status) lipgloss.Style {
	switch s {
	case gas.StatusFilled:
		return g.st.CellFilled
	case gas.StatusReview:
		return g.st.CellReview
	case gas.StatusApproved:
		return g.st.CellApproved
	case gas.StatusEdited:
		return g.st.CellEdited
	case gas.StatusRejected, gas.StatusUnsupported:
		return g.st.CellRejected
	}
	return g.st.CellOriginal
}

func (g *Model) View() string {
	if !g.loaded {
		return g.st.Title.Render("Gas desk") + "\n\n" + g.st.Subtle.Render("Loading the gas tables…")
	}
	if g.table == nil {
		return g.st.Title.Render("Gas desk") + "\n\n" +
			component.Wrap("No gas table: import one with `warren gas import FILE` (make run imports the sample).", min(g.width, 100)) + "\n\n" +
			g.st.Subtle.Render("r reloads after an import")
	}
	lines := append(append(g.titleLines(), g.legend()), g.barLines()...)
	side := g.width >= gasSideBySide
	gridW, gridH := g.width, g.height-len(lines)-gasDetailLines
	if side {
		gridW, gridH = g.width-gasDetailWidth-1, g.height-len(lines)
	}
	grid := g.grid(gridW, max(gridH, 2))
	if side {
		detail := g.sideDetail(gasDetailWidth, max(gridH, 2))
		for i := range max(len(grid), len(detail)) {
			var l, r string
			if i < len(grid) {
				l = grid[i]
			}
			if i < len(detail) {
				r = detail[i]
			}
			lines = append(lines, component.Pad(l, gridW)+g.st.Subtle.Render("│")+r)
		}
	} else {
		for len(grid) < gridH {
			grid = append(grid, "")
		}
		lines = append(lines, grid...)
		lines = append(lines, g.belowDetail(g.width)...)
	}
	return strings.Join(lines, "\n")
}

// titleLines name the table and count its cells by status. The counts wrap onto a second line
// rather than being cut: the rejected and empty counts come last and matter as much.
func (g *Model) titleLines() []string {
	t := g.table
	counts := t.Counts()
	rows := fmt.Sprintf("%d rows", len(t.Rows))
	if len(g.shown) != len(t.Rows) {
		rows = fmt.Sprintf("%d of %d rows", len(g.shown), len(t.Rows))
	}
	if g.flagged { // said here, not after the legend, where 80 columns cut it
		rows += " (flagged only, f shows all)"
	}
	parts := []string{rows, fmt.Sprintf("%d to review", counts[gas.StatusReview]), fmt.Sprintf("%d filled", counts[gas.StatusFilled]),
		fmt.Sprintf("%d approved", counts[gas.StatusApproved]), fmt.Sprintf("%d edited", counts[gas.StatusEdited]),
		fmt.Sprintf("%d rejected", counts[gas.StatusRejected]), fmt.Sprintf("%d empty", counts[gas.StatusEmpty])}
	if n := counts[gas.StatusUnsupported]; n > 0 { // said only when there are any
		parts = append(parts[:2], append([]string{fmt.Sprintf("%d unsupported", n)}, parts[2:]...)...)
	}
	if len(g.tables) > 1 {
		parts = append(parts, fmt.Sprintf("table %d of %d (t switches)", indexOf(g.tables, t.Name)+1, len(g.tables)))
	}
	title := "Gas table " + component.SafeLine(t.Name)
	lines := []string{""} // the counts of each line; the first line follows the title
	used := ansi.StringWidth(title)
	for i, p := range parts {
		sep := " · "
		if i > 0 && used+ansi.StringWidth(sep+p) > g.width && len(lines) < 3 {
			lines = append(lines, "")
			used, sep = 0, " " // a continuation line, indented by one
		}
		lines[len(lines)-1] += sep + p
		used += ansi.StringWidth(sep + p)
	}
	for i := range lines {
		head := ""
		if i == 0 {
			head = g.st.Title.Render(title)
		}
		lines[i] = component.Truncate(head+g.st.Subtle.Render(lines[i]), g.width)
	}
	return lines
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func (g *Model) legend() string {
	parts := []string{g.st.CellOriginal.Render(" original")}
	shown := []gas.Status{gas.StatusFilled, gas.StatusReview, gas.StatusApproved, gas.StatusEdited, gas.StatusRejected}
	if g.table != nil && g.table.Counts()[gas.StatusUnsupported] > 0 {
		shown = append(shown, gas.StatusUnsupported)
	}
	for _, s := range shown {
		word := string(s)
		if s == gas.StatusFilled {
			word = "filled ≥" + strconv.FormatFloat(gas.HighConfidence, 'f', -1, 64)
		}
		parts = append(parts, g.cellStyle(s).Render(statusMarks[s]+word))
	}
	return component.Truncate(strings.Join(parts, "  "), g.width)
}

// barLines are the input, query and error lines above the grid, when there are any.
func (g *Model) barLines() []string {
	var out []string
	switch g.mode {
	case gasEdit:
		f, _ := gas.FieldByName(g.editRef.Field)
		name := ""
		if r := g.table.Row(g.editRef.Row); r != nil && g.table.Name == g.editIn {
			name = r.Name()
		}
		state := ""
		if g.saving {
			state = g.st.Subtle.Render("  saving…")
		}
		out = append(out, g.st.Key.Render("Edit "+f.Label+" of "+component.OneLine(name)+": ")+g.input.View()+state)
	case gasAsk:
		out = append(out, g.st.Key.Render("Ask the table: ")+g.input.View())
	case gasExpr:
		out = append(out, g.st.Key.Render("Expression: ")+g.input.View())
	}
	if g.fill != nil {
		out = append(out, g.fillLine())
	}
	if g.running() && g.mode != gasExpr {
		out = append(out, g.st.Unresolved.Render("asking the model… ")+g.st.Subtle.Render("“"+component.SafeLine(g.asking)+"” · esc cancels"))
	} else if g.running() {
		out = append(out, g.st.Subtle.Render("running the expression…"))
	}
	if q := g.query; q != nil && g.mode != gasExpr {
		head, hint := "query: ", "  enter edits · esc clears"
		if q.res.Fallback {
			head = "fallback filter: "
		}
		if g.barFocus {
			head, hint = "▸ "+head, "  e/enter edits · esc clears · ↓ to the table"
		}
		out = append(out, g.st.Selected.Render(head)+component.SafeLine(q.res.Expression)+
			g.st.Subtle.Render(fmt.Sprintf("  → %d of %d rows", len(q.res.Rows), len(g.table.Rows))+hint))
		if q.res.Fallback {
			note := q.res.Note // tablequery's note says it is a fallback, what it searches for, and why
			if note == "" {
				note = "fallback: a word search without the model"
			}
			lines := strings.Split(component.Wrap(component.Safe(note), g.width), "\n") // two lines: what it searches for, and why
			for i := range lines {
				lines[i] = strings.TrimRight(lines[i], " ")
			}
			if len(lines) > 2 {
				lines = append(lines[:1], strings.Join(lines[1:], " "))
			}
			for _, l := range lines {
				out = append(out, g.st.Unresolved.Render(component.Truncate(l, g.width)))
			}
		}
	}
	if g.inputErr != "" {
		// Wrapped, not cut: the end says what to write (the upper bound) or who changed the cell.
		for _, l := range strings.Split(component.Wrap("! "+component.SafeLine(g.inputErr), g.width), "\n") {
			out = append(out, g.st.StatusError.Render(strings.TrimRight(l, " ")))
		}
	}
	return out
}

// gridRows is how many rows of the table fit on screen.
func (g *Model) gridRows() int {
	lines := len(g.titleLines()) + 1 + len(g.barLines()) + 1 // title, legend, bars, column headers
	if g.width < gasSideBySide {
		lines += gasDetailLines
	}
	return g.height - lines
}

// visibleColumns scrolls the columns so that the cursor's shows and returns the last field
// that fits in room cells.
func (g *Model) visibleColumns(room int) int {
	fits := func(from, to int) bool {
		w := 0
		for i := from; i <= to; i++ {
			w += g.widths[i] + 1
		}
		return w <= room
	}
	if g.col >= 1 && g.col < g.colOff {
		g.colOff = g.col
	}
	for g.col >= 1 && g.colOff < g.col && !fits(g.colOff, g.col) {
		g.colOff++
	}
	last := g.colOff - 1
	for last+1 < len(g.fields) && fits(g.colOff, last+1) {
		last++
	}
	return last
}

// grid draws the column headers and the rows that fit in h lines.
func (g *Model) grid(w, h int) []string {
	nameW := min(g.widths[0], max(w/4, 10))
	room := w - 2 - nameW - 2 // gutter, name, and a scroll mark on each side
	last := g.visibleColumns(room)
	rows := h - 1
	if g.cur < g.rowOff {
		g.rowOff = g.cur
	}
	if g.cur >= g.rowOff+rows {
		g.rowOff = g.cur - rows + 1
	}
	g.rowOff = max(min(g.rowOff, len(g.shown)-rows), 0)

	left, right := " ", " "
	if g.colOff > 1 {
		left = "‹"
	}
	if last < len(g.fields)-1 {
		right = "›"
	}
	header := []string{"  " + g.header(0, nameW) + g.st.Subtle.Render(left)}
	for i := g.colOff; i <= last; i++ {
		header = append(header, g.header(i, g.widths[i])+" ")
	}
	header = append(header, g.st.Subtle.Render(right))
	out := []string{strings.Join(header, "")}
	if len(g.shown) == 0 {
		msg := "No rows match."
		if g.flagged {
			msg = "No row has cells to review."
		}
		return append(out, g.st.Subtle.Render("  "+msg))
	}
	for j := g.rowOff; j < len(g.shown) && j < g.rowOff+rows; j++ {
		r := g.table.Rows[g.shown[j]]
		gutter := "  "
		if j == g.cur {
			gutter = g.st.Selected.Render("▸ ")
		}
		line := gutter + g.cell(r, 0, nameW, j == g.cur) + " "
		for i := g.colOff; i <= last; i++ {
			line += g.cell(r, i, g.widths[i], j == g.cur) + " "
		}
		out = append(out, line)
	}
	return out
}

func (g *Model) header(i, w int) string {
	text := component.Pad(shortLabel(g.fields[i]), w)
	if i == g.col {
		return g.st.Selected.Render(text)
	}
	return g.st.Subtle.Render(text)
}

func (g *Model) cell(r *gas.Row, i, w int, curRow bool) string {
	c := r.Cells[g.fields[i].Name]
	mark := statusMarks[c.Status]
	if mark == "" {
		mark = " "
	}
	style := g.cellStyle(c.Status)
	if curRow && i == g.col {
		style = style.Reverse(true)
	}
	return style.Render(component.Pad(mark+component.OneLine(c.Value), w))
}

// detailInfo describes the cell under the cursor: what it holds and where it came from.
type detailInfo struct {
	label, row, doc                string
	value, status, conf, method    string
	source, section, excerpt, note string
	page                           string // "p. 3", "slide 2", with OCR's confidence; "" for none
	sourceSuffix                   string // the section and page after the source: " § 4.1, p. 3"
	by                             string // who decided the cell; "" for a cell nobody decided
}

func (g *Model) detailInfo() (detailInfo, bool) {
	r, f, ok := g.current()
	if !ok {
		return detailInfo{}, false
	}
	c := r.Cells[f.Name]
	// Everything but the label, the field's description and the status comes from the sheet,
	// the documents or the model.
	d := detailInfo{label: f.Label, row: fmt.Sprintf("%s (row %d)", component.OneLine(r.Name()), r.ID), doc: f.Doc, value: component.OneLine(service.GasValueUnit(c)),
		status: statusWord(c.Status), method: component.SafeLine(service.GasMethodWords(c.Method)), source: component.SafeLine(c.SourceDoc), section: component.SafeLine(c.SourceSection),
		excerpt: component.Safe(c.Excerpt), note: component.Safe(c.Note), page: c.SourcePage.Label(),
		sourceSuffix: component.SafeLine(component.PlaceSuffix(c.SourceSection, c.SourcePage))}
	if c.Value == "" {
		d.value = "—"
	}
	if c.Confidence > 0 {
		d.conf = fmt.Sprintf("%.2f", c.Confidence)
	}
	switch c.Status {
	case gas.StatusApproved, gas.StatusEdited, gas.StatusRejected:
		d.by = component.SafeLine(c.By)
		if d.by == "" {
			d.by = "—" // decided before names were recorded
		}
		if !c.UpdatedAt.IsZero() {
			d.by += c.UpdatedAt.Local().Format(" · 2006-01-02 15:04")
		}
	}
	if d.source == "" {
		switch c.Status {
		case gas.StatusOriginal:
			d.source = "the imported sheet"
		case gas.StatusEdited:
			d.source, d.method = "typed by the analyst", "" // the method would say it twice
		}
	}
	return d, true
}

// belowDetail is the compact pane under the grid on narrow screens: gasDetailLines lines.
func (g *Model) belowDetail(w int) []string {
	d, ok := g.detailInfo()
	var out []string
	if ok {
		head := "─ " + d.label + " · " + d.row + " "
		out = append(out, g.st.Title.Render(head)+g.st.Subtle.Render(strings.Repeat("─", max(w-ansi.StringWidth(head), 0))))
		status := d.status
		if d.conf != "" {
			status += " · confidence " + d.conf
		}
		if d.method != "" {
			status += " · " + d.method
		}
		if d.by != "" {
			by := " by " + d.by // "edited by ana · 2026-11-21 10:15"
			if rest, ok := strings.CutPrefix(d.by, "—"); ok {
				by = rest // decided before names were recorded: no name to say
			}
			status = d.status + by + strings.TrimPrefix(status, d.status)
		}
		out = append(out, g.st.Title.Render(d.value)+g.st.Subtle.Render("  "+status))
		if d.source != "" {
			out = append(out, g.st.Subtle.Render("source: ")+d.source+d.sourceSuffix)
		}
		if d.excerpt != "" {
			ex := strings.Split(component.Wrap("“"+strings.Join(strings.Fields(d.excerpt), " ")+"”", w), "\n")
			for i := range ex {
				ex[i] = strings.TrimRight(ex[i], " ")
			}
			if len(ex) > 2 { // the pane is compact: the rest of the passage is cut
				ex = append(ex[:1], component.Truncate(strings.Join(ex[1:], " "), w))
			}
			out = append(out, ex...)
		}
		if d.note != "" {
			out = append(out, g.st.Unresolved.Render(component.Truncate("note: "+d.note, w)))
		}
	}
	for len(out) < gasDetailLines {
		out = append(out, "")
	}
	for i := range out {
		out[i] = component.Truncate(out[i], w)
	}
	return out[:gasDetailLines]
}

// sideDetail is the pane to the right of the grid on wide screens.
func (g *Model) sideDetail(w, h int) []string {
	d, ok := g.detailInfo()
	if !ok {
		return nil
	}
	inner := w - 1
	var out []string
	add := func(s string) { out = append(out, " "+component.Truncate(s, inner)) }
	para := func(s string, st lipgloss.Style) {
		for _, l := range strings.Split(component.Wrap(strings.Join(strings.Fields(s), " "), inner-1), "\n") {
			add(st.Render(strings.TrimRight(l, " ")))
		}
	}
	add(g.st.Title.Render(d.label))
	add(g.st.Subtle.Render(d.row))
	if d.doc != "" {
		para(d.doc, g.st.Subtle)
	}
	add("")
	add(g.st.Title.Render(d.value))
	for _, kv := range [][2]string{{"status", d.status}, {"decided by", d.by}, {"confidence", d.conf}, {"method", d.method}, {"source", d.source}, {"section", d.section}, {"page", d.page}} {
		if kv[1] == "" {
			continue
		}
		for i, l := range strings.Split(component.Wrap(kv[1], inner-12), "\n") {
			key := strings.Repeat(" ", 11)
			if i == 0 {
				key = g.st.Subtle.Render(fmt.Sprintf("%-11s", kv[0]))
			}
			add(key + strings.TrimRight(l, " "))
		}
	}
	if d.excerpt != "" {
		add("")
		add(g.st.Subtle.Render("Source passage"))
		para("“"+d.excerpt+"”", lipgloss.NewStyle())
	}
	if d.note != "" {
		add("")
		add(g.st.Subtle.Render("Note"))
		para(d.note, g.st.Unresolved)
	}
	if len(out) > h {
		out = append(out[:h-1], " "+g.st.Subtle.Render("…"))
	}
	return out
}

// Package gas is the Gas tab: the review desk of the HMIS gas table, where empty cells are
// filled from the knowledge base and each value is approved, edited or rejected cell by cell.
package gas

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/gas"
	"warren/service"
	"warren/service/jobs"
	"warren/tui/component"
	"warren/tui/styles"
)

// gasMode says what has the keyboard in the Gas tab.
type gasMode int

const (
	gasGrid gasMode = iota // moving over the table
	gasEdit                // typing a cell's value
	gasAsk                 // typing a plain-language question
	gasExpr                // editing the query's expression
)

// Messages of the Gas tab.
type (
	gasLoadedMsg struct {
		tables []string
		table  *gas.Table
		want   string       // the table asked for, when it wasn't found
		focus  *gas.CellRef // put the cursor here
		undone bool         // the load follows an undo of the focused cell
		// unfinished reports that the table's latest fill has not finished.
		unfinished bool
		err        error
	}
	gasSavedMsg struct {
		table     string
		changes   []service.GasCellChange // the cells stored, in order
		status    string
		edit      bool // the save of the cell editor
		unchanged bool // the editor's value is the cell's: nothing was stored
		err       error
	}
	gasQueryMsg struct {
		seq      int
		table    string
		question string
		res      service.GasQueryResult
		edited   bool // the analyst's expression, run as it is
		err      error
	}
)

// gasQuery is the query that filters the grid.
type gasQuery struct {
	question string
	res      service.GasQueryResult
	match    map[int]bool // row IDs
}

// Service is what the tab needs of warren: the gas desk, and stopping a fill's job.
type Service interface {
	Desk
	Jobs
}

// Jobs is the part of the jobs desk (service.Jobs) the tab uses.
type Jobs interface {
	// Cancel cancels a job of the analyst's own (any, for an admin); others' are refused with
	// an error that wraps service.ErrNotOwner.
	Cancel(ctx context.Context, id string) error
}

// Desk is the gas desk (service.Gas) as the tab uses it.
type Desk interface {
	// Tables lists the workspace's gas tables by name.
	Tables(ctx context.Context) ([]string, error)
	// Table loads a gas table; an unknown name is a *service.GasTableError.
	Table(ctx context.Context, name string, rows ...int) (*gas.Table, error)
	// The analyst's decisions on the cells of a gas table: the gas desk's methods (see
	// service.Gas), which own the rules. Each is made on seen, the cell (or the row's cells)
	// as the grid showed it: when the stored cell is another nothing is written and the error
	// wraps gas.ErrStale (an *gas.StaleError says who changed it to what). A decision the
	// desk's rules refuse is a *service.GasRefusal. The result holds the cells as stored.
	Approve(ctx context.Context, table string, row int, field string, seen gas.Cell) (service.GasDecided, error)
	ApproveRow(ctx context.Context, table string, row int, seen map[string]gas.Cell) (service.GasDecided, error)
	Reject(ctx context.Context, table string, row int, field string, seen gas.Cell) (service.GasDecided, error)
	Edit(ctx context.Context, table string, row int, field, value string, seen gas.Cell) (service.GasDecided, error)
	// Undo reverts the analyst's own latest decision on the table and says which cell it
	// restored; the error wraps gas.ErrNothingToUndo when there is none, and gas.ErrStale
	// when that cell changed since.
	Undo(ctx context.Context, table string) (row int, field string, err error)
	// Query filters the table: a question is turned into an expression by the model (with
	// its recovery tiers and labelled fallback); a non-empty expression runs as it is.
	Query(ctx context.Context, table, question, expression string) (service.GasQueryResult, error)
	// StartFill fills the table's rows as a job, one checkpointed step per row; without
	// rows it takes those the desk picks (service.GasDefaultFillRows), and a table with none
	// is refused (service.ErrGasNothingToFill). sink receives its events, and cancelling ctx
	// cancels it, which keeps the finished rows and leaves it resumable.
	StartFill(ctx context.Context, table string, rows []int, tiers []string, sink service.RunSink) (service.GasFillResult, error)
	// ResumeFill goes on with the table's latest unfinished fill; the error wraps
	// service.ErrNoUnfinishedFill when there is none.
	ResumeFill(ctx context.Context, table string, sink service.RunSink) (service.GasFillResult, error)
	// WatchFill follows the table's fill that runs as a job (started elsewhere, or before a
	// dropped connection) until it ends; cancelling ctx only stops watching. With none
	// running, the error wraps jobs.ErrNoJob at once.
	WatchFill(ctx context.Context, table string, attached func(jobs.Job), sink service.RunSink) (jobs.Job, error)
	// UnfinishedFill returns the table's latest fill when it has not finished.
	UnfinishedFill(ctx context.Context, table string) (gas.Fill, bool, error)
}

// Model is the review desk of the HMIS gas table: the table with its cells coloured by
// status, a detail pane with each value's source passage, and the analyst's decisions, each
// stored at once.
type Model struct {
	served        bool // one connection of warren serve: a fill goes on when it closes
	be            Service
	st            *styles.Styles
	width, height int

	tables  []string
	want    string // the table to open (warren gas review --table)
	table   *gas.Table
	fields  []gas.Field
	widths  []int // column width per field
	loaded  bool
	loading bool
	early   []tea.KeyPressMsg // keys pressed while the first table loads, replayed once it is shown

	shown  []int // indices into table.Rows on screen, after the filters
	cur    int   // index into shown
	col    int   // field index; 0 is the frozen name column
	rowOff int   // first row on screen, an index into shown
	colOff int   // first scrolled field on screen (≥ 1)

	flagged  bool // only rows with cells to review
	query    *gasQuery
	barFocus bool // the query bar has the keys (right after a result)

	mode     gasMode
	input    textinput.Model
	inputErr string
	editRef  gas.CellRef
	editIn   string   // the table of editRef: a switch of tables must not redirect the edit
	editSeen gas.Cell // the cell as it was when the editor opened: the edit is decided on it
	saving   bool     // the editor's value is being stored

	askSeq    int
	askCancel context.CancelFunc // a question or expression is running
	asking    string             // the question that runs

	order *decisionOrder // decisions and undos are stored in the order of their keys

	fill       *gasFill                                    // the fill in flight
	queues     map[*component.Queue[service.RunEvent]]bool // the fills' event queues not yet drained
	unfinished bool                                        // the table has an unfinished fill: F resumes it
	needFill   int                                         // rows with cells a fill would ask for
}

// New is the desk over be, drawn with st.
func New(be Service, st *styles.Styles) *Model {
	in := textinput.New()
	in.Prompt = ""
	ist := in.Styles()
	ist.Cursor.Blink = false // a steady cursor: no redraw every half second over SSH
	in.SetStyles(ist)
	return &Model{be: be, st: st, input: in, fields: gas.Fields(), colOff: 1, order: newDecisionOrder()}
}

func (g *Model) SetSize(w, h int) {
	g.width, g.height = w, h
	g.input.SetWidth(max(w-40, 20))
}

// running reports a question or expression in flight.
func (g *Model) running() bool { return g.askCancel != nil }

// Open asks for a table by name ("" for the first); the next load shows it.
func (g *Model) Open(name string) { g.want = name }

// load reads the table list and one table: want when it exists, else the first.
func (g *Model) load(want string, focus *gas.CellRef) tea.Cmd {
	g.loading = true
	be := g.be
	return func() tea.Msg {
		ctx := context.Background()
		names, err := be.Tables(ctx)
		if err != nil || len(names) == 0 {
			return gasLoadedMsg{err: err}
		}
		name, missing := names[0], ""
		if want != "" {
			if slices.Contains(names, want) {
				name = want
			} else {
				missing = want
			}
		}
		t, err := be.Table(ctx, name)
		if err != nil {
			return gasLoadedMsg{tables: names, want: missing, err: err}
		}
		// Not knowing of an unfinished fill only means F starts a new one.
		_, unfinished, _ := be.UnfinishedFill(ctx, name)
		return gasLoadedMsg{tables: names, table: t, want: missing, focus: focus, unfinished: unfinished}
	}
}

func (g *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case gasLoadedMsg:
		return g.loadedMsg(msg)
	case gasSavedMsg:
		return g.savedMsg(msg)
	case gasQueryMsg:
		return g.queryMsg(msg)
	case component.Drained[service.RunEvent]:
		return g.fillEvents(msg)
	case gasFillDoneMsg:
		return g.fillDone(msg)
	case tea.KeyPressMsg:
		return g.key(msg)
	}
	if !g.loaded && !g.loading {
		return g.load(g.want, nil)
	}
	return nil
}

// maxEarlyKeys bounds the keys kept while the first table loads.
const maxEarlyKeys = 64

func (g *Model) loadedMsg(msg gasLoadedMsg) tea.Cmd {
	cmd := g.showLoaded(msg)
	early := g.early
	g.early = nil
	if g.table == nil || len(early) == 0 {
		return cmd
	}
	cmds := []tea.Cmd{cmd}
	for _, k := range early {
		// Moving and looking are replayed; a decision is not made on a cell the analyst has
		// not seen: the replay stops there.
		if g.mode == gasGrid && gasDecidingKeys[k.String()] {
			cmds = append(cmds, component.SetStatus(fmt.Sprintf("the table was still loading: %q and the keys after it were not used; the cursor is where they would have acted", k.String()), true))
			break
		}
		cmds = append(cmds, g.key(k))
	}
	return tea.Batch(cmds...)
}

// gasDecidingKeys are the grid keys that change the table (approve, edit, reject, undo, fill).
var gasDecidingKeys = map[string]bool{"a": true, "A": true, "e": true, "x": true, "u": true, "F": true}

func (g *Model) showLoaded(msg gasLoadedMsg) tea.Cmd {
	g.loading, g.loaded = false, true
	if msg.err != nil {
		return component.SetStatus(msg.err.Error(), true)
	}
	g.tables = msg.tables
	if msg.table == nil {
		g.table, g.shown, g.query = nil, nil, nil
		return nil
	}
	same := g.table != nil && g.table.Name == msg.table.Name
	keep := g.currentIndex()
	if !same {
		g.cancelQuery()
		g.cur, g.col, g.rowOff, g.colOff, keep = 0, 0, 0, 1, 0
		g.flagged, g.query, g.barFocus = false, nil, false
		g.want = ""
	}
	g.table, g.unfinished = msg.table, msg.unfinished
	g.needFill = len(service.GasDefaultFillRows(g.table))
	g.measure()
	g.refilter(keep)
	var cmds []tea.Cmd
	if g.unfinished && g.fill == nil {
		// A fill that runs elsewhere (another connection, or this analyst's before a drop) is
		// followed as if it had been started here.
		cmds = append(cmds, g.watchFill(g.table.Name))
	}
	if msg.want != "" {
		cmds = append(cmds, component.SetStatus(fmt.Sprintf("no gas table %q: showing %q (t switches)", msg.want, msg.table.Name), true))
	}
	if f := msg.focus; f != nil {
		shown := g.focus(f.Row, f.Field)
		if msg.undone {
			text := "undone: " + g.describe(f.Row, f.Field)
			if !shown {
				text += " (its row is hidden by the filter)"
			}
			cmds = append(cmds, component.SetStatus(text, false))
		}
	}
	return tea.Batch(cmds...)
}

// measure sizes the columns to their labels and values.
func (g *Model) measure() {
	g.widths = make([]int, len(g.fields))
	for i, f := range g.fields {
		w := ansi.StringWidth(shortLabel(f))
		for _, r := range g.table.Rows {
			w = max(w, ansi.StringWidth(component.OneLine(r.Cells[f.Name].Value))+1) // +1: the status mark
		}
		if i == 0 {
			g.widths[i] = min(max(w, 10), 22)
		} else {
			g.widths[i] = min(max(w, 4), 16)
		}
	}
}

// currentIndex is the cursor's row as an index into table.Rows, -1 without one.
func (g *Model) currentIndex() int {
	if g.table == nil || g.cur < 0 || g.cur >= len(g.shown) {
		return -1
	}
	return g.shown[g.cur]
}

// refilter recomputes the rows on screen and keeps the cursor on the row it was on, or on
// the next one still shown.
func (g *Model) refilter(keep int) {
	g.shown = g.shown[:0]
	for i, r := range g.table.Rows {
		if g.flagged && !hasReview(r) {
			continue
		}
		if g.query != nil && !g.query.match[r.ID] {
			continue
		}
		g.shown = append(g.shown, i)
	}
	g.cur = 0
	if keep >= 0 {
		g.cur = max(len(g.shown)-1, 0)
		for j, i := range g.shown {
			if i >= keep {
				g.cur = j
				break
			}
		}
	}
}

func hasReview(r *gas.Row) bool {
	for _, c := range r.Cells {
		if c.Status == gas.StatusReview || c.Status == gas.StatusUnsupported {
			return true
		}
	}
	return false
}

// focus puts the cursor on a cell, when its row is shown, and reports whether it is. A hidden
// row leaves the cursor where it was: on the field of another row, the detail pane and the next
// key would be about a cell the analyst did not mean.
func (g *Model) focus(rowID int, field string) bool {
	found := false
	for j, i := range g.shown {
		if g.table.Rows[i].ID == rowID {
			g.cur, found = j, true
		}
	}
	if !found {
		return false
	}
	for i, f := range g.fields {
		if f.Name == field {
			g.col = i
		}
	}
	return true
}

// current returns the row and field under the cursor.
func (g *Model) current() (*gas.Row, gas.Field, bool) {
	i := g.currentIndex()
	if i < 0 {
		return nil, gas.Field{}, false
	}
	return g.table.Rows[i], g.fields[g.col], true
}

func (g *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if g.mode != gasGrid {
		return g.inputKey(msg)
	}
	k := msg.String()
	if g.table == nil {
		if g.loading && len(g.early) < maxEarlyKeys {
			g.early = append(g.early, msg) // the analyst moves ahead of the table: keep the keys
			return nil
		}
		if k == "r" {
			return g.load(g.want, nil)
		}
		return nil
	}
	if g.barFocus {
		g.barFocus = false
		switch k {
		case "e", "enter":
			return g.editExpression()
		case "esc":
			return g.clearQuery()
		}
	}
	switch k {
	case "up", "k":
		g.moveRow(-1)
	case "down", "j":
		g.moveRow(1)
	case "left", "h":
		g.col = max(g.col-1, 0)
	case "right", "l":
		g.col = min(g.col+1, len(g.fields)-1)
	case "home":
		g.col = 0
	case "end":
		g.col = len(g.fields) - 1
	case "pgup":
		g.moveRow(-max(g.gridRows(), 1))
	case "pgdown":
		g.moveRow(max(g.gridRows(), 1))
	case "g":
		g.cur = 0
	case "G":
		g.cur = max(len(g.shown)-1, 0)
	case "f":
		g.flagged = !g.flagged
		g.refilter(g.currentIndex())
		if g.flagged {
			return component.SetStatus(fmt.Sprintf("showing the %d row(s) with cells to review (f shows all)", len(g.shown)), false)
		}
		return component.SetStatus("showing every row", false)
	case "n":
		return g.nextFlagged(1)
	case "N":
		return g.nextFlagged(-1)
	case "a":
		return g.approve()
	case "A":
		return g.approveRow()
	case "e":
		return g.edit()
	case "x":
		return g.reject()
	case "u":
		return g.undo()
	case "F":
		return g.startFill()
	case "/":
		if g.running() {
			return component.SetStatus("a question is being asked: esc cancels it", false)
		}
		g.mode, g.inputErr = gasAsk, ""
		g.input.Placeholder = "e.g. flammable gases without a CAS number"
		if g.query != nil {
			g.input.SetValue(g.query.question)
		} else {
			g.input.SetValue("")
		}
		g.input.CursorEnd()
		return g.input.Focus()
	case "enter":
		if g.query != nil {
			return g.editExpression()
		}
	case "esc":
		if g.running() {
			g.cancelQuery()
			return component.SetStatus("query cancelled", false)
		}
		if g.filling() {
			return g.cancelFill()
		}
		if g.query != nil {
			return g.clearQuery()
		}
	case "t":
		if len(g.tables) < 2 {
			return component.SetStatus("the workspace has one gas table", false)
		}
		at := slices.Index(g.tables, g.table.Name)
		return g.load(g.tables[(at+1)%len(g.tables)], nil)
	case "r":
		return g.load(g.table.Name, nil)
	}
	return nil
}

func (g *Model) moveRow(d int) {
	g.cur = min(max(g.cur+d, 0), max(len(g.shown)-1, 0))
}

// nextFlagged moves to the next cell to review in reading order (row by row, field by field),
// wrapping around.
func (g *Model) nextFlagged(dir int) tea.Cmd {
	nf := len(g.fields)
	n := len(g.shown) * nf
	pos := g.cur*nf + g.col
	for step := 1; step <= n; step++ {
		p := ((pos+dir*step)%n + n) % n
		r, c := p/nf, p%nf
		if s := g.table.Rows[g.shown[r]].Cells[g.fields[c].Name].Status; s != gas.StatusReview && s != gas.StatusUnsupported {
			continue
		}
		g.cur, g.col = r, c
		if (dir > 0 && p <= pos) || (dir < 0 && p >= pos) {
			return component.SetStatus("wrapped around: this is the first cell to review again", false)
		}
		return nil
	}
	if g.query != nil && len(g.shown) < len(g.table.Rows) {
		return component.SetStatus("no cells need review among the rows the query shows", false)
	}
	return component.SetStatus("no cells need review", false)
}

func (g *Model) closeInput() {
	g.mode, g.inputErr = gasGrid, ""
	g.input.Blur()
}

// inputKey handles the cell editor, the question prompt and the expression editor.
func (g *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		if g.mode == gasExpr {
			g.cancelQuery()
		}
		g.closeInput()
		return nil
	case "enter":
		text := strings.TrimSpace(g.input.Value())
		switch g.mode {
		case gasEdit:
			return g.saveEdit()
		case gasAsk:
			if text == "" {
				g.inputErr = "type a question (esc cancels)"
				return nil
			}
			g.closeInput()
			return g.ask(text, "")
		case gasExpr:
			if g.query == nil { // the table changed under the editor, and its query with it
				g.inputErr = "the query was cleared when the table changed: esc closes the editor"
				return nil
			}
			if text == "" {
				g.inputErr = "type an expression (esc keeps the current query)"
				return nil
			}
			g.inputErr = ""
			return g.ask(g.query.question, text)
		}
	}
	if g.saving {
		return nil // the value being stored stays as it is
	}
	var cmd tea.Cmd
	g.input, cmd = g.input.Update(msg)
	return cmd
}

// Arrived reloads the table list and the table shown when the tab is opened: a table imported
// or changed by another process (`warren gas import` in a shell) reaches no change feed, which
// carries this process's views only. The cursor, a filter and an open editor stay.
func (g *Model) Arrived() tea.Cmd {
	if g.loading || !g.loaded {
		return nil // the first load is on its way
	}
	name := g.want
	if g.table != nil {
		name = g.table.Name
	}
	return g.load(name, nil)
}

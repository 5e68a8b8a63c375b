package gas

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"warren/gas"
	"warren/service"
	"warren/tui/component"
	"warren/tui/styles"
)

// What the root model asks of the desk, besides the component.Panel contract.

// SetStyles draws the desk with st from now on.
func (g *Model) SetStyles(st *styles.Styles) { g.st = st }

// SetServed marks the desk as one connection's of warren serve: a fill goes on when the
// connection closes, so quitting does not name it as lost.
func (g *Model) SetServed(served bool) { g.served = served }

// Load reads the table list and the table asked for with Open (else the first).
func (g *Model) Load() tea.Cmd { return g.load(g.want, nil) }

// StopQuery cancels a question or expression in flight.
func (g *Model) StopQuery() {
	if g.running() {
		g.cancelQuery()
	}
}

// StopFill cancels the fill in flight before quitting: it stops after the current row and
// stays resumable.
func (g *Model) StopFill() {
	if g.filling() {
		g.cancelFill()
	}
}

// Focus puts the cursor on a cell of the table shown, by row ID and field name; it reports
// whether the cell is on screen.
func (g *Model) Focus(rowID int, field string) bool { return g.focus(rowID, field) }

// Snapshot is what the desk holds, as values, for the root's tests: they check what a key did
// without reaching into the desk's fields.
type Snapshot struct {
	Mode     string // grid, edit, ask or expr
	Input    string // the text in the field
	InputErr string // why the field's text was refused
	At       string // the cell under the cursor, "row/field", or "none"
	Table    *gas.Table
	Shown    []*gas.Row // the rows on screen, after the filters
	Query    *service.GasQueryResult
	Want     string // the table asked for
	Running  bool   // a question or expression is being answered
	AskSeq   int    // the number of the latest question asked
}

var modeNames = map[gasMode]string{gasGrid: "grid", gasEdit: "edit", gasAsk: "ask", gasExpr: "expr"}

// Snapshot returns what the desk holds now.
func (g *Model) Snapshot() Snapshot {
	s := Snapshot{Mode: modeNames[g.mode], Input: g.input.Value(), InputErr: g.inputErr, At: "none", Table: g.table,
		Want: g.want, Running: g.running(), AskSeq: g.askSeq}
	if r, f, ok := g.current(); ok {
		s.At = r.Name() + "/" + f.Name
	}
	if g.table != nil {
		for _, i := range g.shown {
			s.Shown = append(s.Shown, g.table.Rows[i])
		}
	}
	if g.query != nil {
		res := g.query.res
		s.Query = &res
	}
	return s
}

// Loaded is the message a load delivers with table shown and tables listed (benchmarks feed
// it a large table).
func Loaded(tables []string, table *gas.Table) tea.Msg {
	return gasLoadedMsg{tables: tables, table: table}
}

// QueryAnswered is the message a query delivers: the result of question number seq (see
// Snapshot.AskSeq) on table.
func QueryAnswered(seq int, table, question string, res service.GasQueryResult) tea.Msg {
	return gasQueryMsg{seq: seq, table: table, question: question, res: res}
}

// The focus, quit and status contract (see component.Panel).

// Field reports a field with the keyboard while a value, a question or an expression is typed.
func (g *Model) Field() component.FieldState {
	if g.mode != gasGrid {
		return component.FieldActive
	}
	return component.NoField
}

// FocusField does nothing: a field has the keyboard whenever it is open.
func (g *Model) FocusField() tea.Cmd { return nil }

// Screen names the mode.
func (g *Model) Screen() string { return fmt.Sprintf("gas/%d", g.mode) }

// Pending names a question being answered, a fill, a cell being stored and unsaved text.
func (g *Model) Pending() []string {
	var out []string
	if g.running() {
		out = append(out, fmt.Sprintf("the question “%s” is being answered", g.asking))
	}
	if g.filling() && !g.served {
		out = append(out, "a gas fill is running (cancelled after the current row, it stays resumable with F)")
	}
	if g.saving {
		out = append(out, "a cell is being stored")
	}
	if g.mode != gasGrid && g.input.Value() != "" {
		out = append(out, fmt.Sprintf("the field holds “%s”, not yet stored", g.input.Value()))
	}
	return out
}

// StateLabel names a fill in flight for the workbench's header ("gas fill: 2/5 rows"), ""
// when none runs: the header must not say "no run" while a fill works.
func (g *Model) StateLabel() string {
	f := g.fill
	if f == nil {
		return ""
	}
	name := "gas fill"
	if f.watching && f.owner != "" {
		name = "gas fill by " + component.SafeLine(f.owner)
	}
	if f.total == 0 {
		return name + ": resuming"
	}
	return fmt.Sprintf("%s: %d/%d rows", name, f.done, f.total)
}

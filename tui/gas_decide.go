package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/gas"
)

// The analyst's decisions in the Gas tab. Each is stored at once, in a command, one cell one
// decision; the grid takes the stored cell when the save succeeds.

// describe names a cell and what it holds, for the status line.
func (g *gasTab) describe(rowID int, field string) string {
	r := g.table.Row(rowID)
	f, _ := gas.FieldByName(field)
	if r == nil {
		return fmt.Sprintf("%s of row %d", f.Label, rowID)
	}
	c := r.Cells[field]
	what := "empty"
	if c.Value != "" {
		what = valueUnit(c)
	}
	return fmt.Sprintf("%s of %s is %s (%s)", f.Label, r.Name(), what, statusWord(c.Status))
}

// savedMsg applies the cells that were stored; an editor whose save failed stays open with
// its text and the error. A decision refused because the cell changed since the grid showed it
// (another analyst decided it) reloads the table, keeping the cursor and the editor's text, so
// that the analyst decides again on what the cell holds now.
func (g *gasTab) savedMsg(msg gasSavedMsg) tea.Cmd {
	if msg.edit {
		g.saving = false
	}
	if g.table != nil && g.table.Name == msg.table && len(msg.changes) > 0 {
		keep := g.currentIndex()
		for _, ch := range msg.changes {
			if r := g.table.Row(ch.row); r != nil {
				r.Set(ch.field, ch.cell)
			}
		}
		g.measure()
		g.refilter(keep)
	}
	if stale := (*gas.StaleError)(nil); errors.As(msg.err, &stale) {
		return g.refused(msg, stale)
	}
	if msg.err != nil {
		if msg.edit && g.mode == gasEdit {
			g.inputErr = "couldn't save: " + msg.err.Error()
			return nil
		}
		text := msg.err.Error()
		if len(msg.changes) > 0 {
			text = fmt.Sprintf("%d cell(s) saved, then: %s", len(msg.changes), text)
		}
		return setStatus(text, true)
	}
	if msg.edit && g.mode == gasEdit {
		g.closeInput()
	}
	return setStatus(msg.status, false)
}

// refused tells the analyst who changed the cell they decided on, and reloads the table.
func (g *gasTab) refused(msg gasSavedMsg, stale *gas.StaleError) tea.Cmd {
	reload := g.load(msg.table, nil) // the cursor stays where it is
	text := g.staleText(stale, "your view is refreshed — decide again")
	if msg.edit && g.mode == gasEdit && g.editIn == msg.table && g.editRef == (gas.CellRef{Row: stale.Row, Field: stale.Field}) {
		g.editSeen = stale.Now // enter sends the value again, decided on the cell as it is now
		g.inputErr = text + " (enter sends your value again)"
		return reload
	}
	if len(msg.changes) > 0 {
		text = fmt.Sprintf("%d cell(s) saved, then: %s", len(msg.changes), text)
	}
	return tea.Batch(setStatus(text, true), reload)
}

// staleText says who changed a cell to what and when, naming the cell when it is not the one
// under the cursor, then what to do.
func (g *gasTab) staleText(stale *gas.StaleError, then string) string {
	text := stale.Change()
	if r, f, ok := g.current(); !ok || r.ID != stale.Row || f.Name != stale.Field || g.table.Name != stale.Table {
		f, _ := gas.FieldByName(stale.Field)
		name := fmt.Sprintf("row %d", stale.Row)
		if g.table != nil && g.table.Name == stale.Table {
			if r := g.table.Row(stale.Row); r != nil {
				name = r.Name()
			}
		}
		text += fmt.Sprintf(" (%s of %s)", f.Label, name)
	}
	return text + "; " + then
}

// decisionOrder makes the commands that store decisions and undo them run one at a time in
// the order of the keys that asked for them. Bubble Tea runs commands concurrently: without it
// an undo pressed right after an approval could run first and undo an older decision, and
// approve then reject of one cell could end approved.
type decisionOrder struct {
	mu         sync.Mutex
	cond       *sync.Cond
	next, turn int
}

func newDecisionOrder() *decisionOrder {
	o := &decisionOrder{}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// ticket takes a place in the order; call it in Update, when the key is handled.
func (o *decisionOrder) ticket() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next++
	return o.next - 1
}

// wait blocks until the ticket's turn and returns the function that ends it.
func (o *decisionOrder) wait(ticket int) (done func()) {
	o.mu.Lock()
	for o.turn != ticket {
		o.cond.Wait()
	}
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		o.turn++
		o.cond.Broadcast()
		o.mu.Unlock()
	}
}

// save stores cells one by one (each is its own decision) in a command.
func (g *gasTab) save(changes []gasChange, reason, done string, edit bool) tea.Cmd {
	be, table, order := g.be, g.table.Name, g.order
	me, _ := be.Analyst()
	for i := range changes {
		changes[i].cell.By = me // as the store records it: the grid shows it before any reload
	}
	ticket := order.ticket()
	return func() tea.Msg {
		defer order.wait(ticket)()
		var saved []gasChange
		for _, ch := range changes {
			if err := be.SetGasCell(context.Background(), table, ch.row, ch.field, ch.seen, ch.cell, reason); err != nil {
				return gasSavedMsg{table: table, changes: saved, edit: edit, err: err}
			}
			saved = append(saved, ch)
		}
		return gasSavedMsg{table: table, changes: saved, status: done, edit: edit}
	}
}

// approvable says why a cell can't be approved, "" when it can.
func approvable(c gas.Cell) string {
	switch c.Status {
	case gas.StatusFilled, gas.StatusReview:
		return ""
	case gas.StatusOriginal:
		return "the value comes from the imported sheet: there is nothing to approve"
	case gas.StatusApproved:
		return "the value is approved already"
	case gas.StatusEdited:
		return "you typed this value: it needs no approval"
	case gas.StatusRejected:
		return "the value was rejected: e types one, u undoes the rejection"
	}
	return "the cell is empty: nothing to approve (e types a value)"
}

func (g *gasTab) approve() tea.Cmd {
	r, f, ok := g.current()
	if !ok {
		return nil
	}
	seen := r.Cells[f.Name]
	if why := approvable(seen); why != "" {
		return setStatus(why, false)
	}
	c := seen
	c.Status, c.UpdatedAt = gas.StatusApproved, time.Now().UTC()
	return g.save([]gasChange{{r.ID, f.Name, c, seen}}, reasonApprove, fmt.Sprintf("approved %s of %s", f.Label, r.Name()), false)
}

// approveRow approves the row's filled cells of high confidence; review cells need a look each.
func (g *gasTab) approveRow() tea.Cmd {
	r, _, ok := g.current()
	if !ok {
		return nil
	}
	var changes []gasChange
	now := time.Now().UTC()
	for _, f := range g.fields {
		seen := r.Cells[f.Name]
		if seen.Status == gas.StatusFilled && seen.Confidence >= gas.HighConfidence {
			c := seen
			c.Status, c.UpdatedAt = gas.StatusApproved, now
			changes = append(changes, gasChange{r.ID, f.Name, c, seen})
		}
	}
	if len(changes) == 0 {
		return setStatus(fmt.Sprintf("%s has no filled cells of high confidence to approve (a approves one cell)", r.Name()), false)
	}
	return g.save(changes, reasonApproveRow, fmt.Sprintf("approved %d high-confidence cell(s) of %s (u undoes one at a time)", len(changes), r.Name()), false)
}

func (g *gasTab) reject() tea.Cmd {
	r, f, ok := g.current()
	if !ok {
		return nil
	}
	c := r.Cells[f.Name]
	if f.Name == "chemical_name" {
		// Emptied, the row would lose what a fill searches by and what the desk shows it as.
		return setStatus("the chemical name is the row's key: e corrects it", false)
	}
	if c.Value == "" {
		return setStatus("the cell is empty: nothing to reject", false)
	}
	note := "rejected by the analyst: was " + valueUnit(c)
	if c.SourceDoc != "" {
		note += " (source " + c.SourceDoc + ")"
	}
	cell := gas.Cell{Status: gas.StatusRejected, Note: note, UpdatedAt: time.Now().UTC()}
	return g.save([]gasChange{{r.ID, f.Name, cell, c}}, reasonReject, fmt.Sprintf("rejected %s of %s (u undoes)", f.Label, r.Name()), false)
}

func (g *gasTab) edit() tea.Cmd {
	r, f, ok := g.current()
	if !ok {
		return nil
	}
	g.mode, g.inputErr, g.editRef, g.editIn = gasEdit, "", gas.CellRef{Row: r.ID, Field: f.Name}, g.table.Name
	g.editSeen = r.Cells[f.Name]
	g.input.Placeholder = "the value"
	if f.Unit != "" {
		g.input.Placeholder = "the value in " + f.Unit + " (or with its unit, e.g. 161 K)"
	}
	g.input.SetValue(r.Cells[f.Name].Value)
	g.input.CursorEnd()
	return g.input.Focus()
}

// saveEdit validates the editor's value and stores it; on an error the text stays.
func (g *gasTab) saveEdit() tea.Cmd {
	if g.saving {
		return nil
	}
	f, _ := gas.FieldByName(g.editRef.Field)
	if g.table == nil || g.table.Name != g.editIn {
		g.inputErr = fmt.Sprintf("the desk switched tables: this edit was for %q, esc closes the editor", g.editIn)
		return nil
	}
	r := g.table.Row(g.editRef.Row)
	if r == nil {
		g.inputErr = "the row is gone (the table was reloaded): esc closes the editor"
		return nil
	}
	v, err := gas.Normalize(f, g.input.Value(), "")
	if err != nil {
		g.inputErr = err.Error()
		return nil
	}
	if v == "" {
		g.inputErr = "the value is empty: type one (x rejects the cell, esc cancels)"
		return nil
	}
	old := g.editSeen // the cell as it was when the editor opened: the decision is made on it
	if v == old.Value && (old.Status == gas.StatusEdited || old.Status == gas.StatusOriginal || old.Status == gas.StatusApproved) {
		g.closeInput()
		return setStatus("the value is unchanged", false)
	}
	cell := gas.Cell{Value: v, Unit: f.Unit, Status: gas.StatusEdited, Method: "analyst", UpdatedAt: time.Now().UTC()}
	if old.Value != "" && old.Value != v {
		cell.Note = "edited by the analyst: was " + valueUnit(old)
		if old.SourceDoc != "" {
			cell.Note += " (source " + old.SourceDoc + ")"
		}
	}
	g.saving, g.inputErr = true, ""
	return g.save([]gasChange{{r.ID, f.Name, cell, old}}, reasonEdit, fmt.Sprintf("saved %s of %s: %s", f.Label, r.Name(), valueUnit(cell)), true)
}

func (g *gasTab) undo() tea.Cmd {
	be, table, order := g.be, g.table.Name, g.order
	ticket := order.ticket()
	return func() tea.Msg {
		defer order.wait(ticket)()
		ctx := context.Background()
		row, field, err := be.UndoGas(ctx, table)
		if errors.Is(err, gas.ErrNothingToUndo) {
			return newStatus("nothing to undo in "+table+" (u undoes your own decisions)", false)
		}
		if stale := (*gas.StaleError)(nil); errors.As(err, &stale) {
			// The cell of the analyst's latest decision was changed since: it stays as it is.
			names, lerr := be.GasTables(ctx)
			t, terr := be.GasTable(ctx, table)
			loaded := gasLoadedMsg{tables: names, table: t, focus: &gas.CellRef{Row: stale.Row, Field: stale.Field}, err: errors.Join(lerr, terr)}
			f, _ := gas.FieldByName(stale.Field)
			text := fmt.Sprintf("can't undo your decision on %s of row %d: since then %s; your view is refreshed", f.Label, stale.Row, stale.Change())
			return tea.BatchMsg{func() tea.Msg { return newStatus(text, true) }, func() tea.Msg { return loaded }}
		}
		if err != nil {
			return newStatus(err.Error(), true)
		}
		names, err := be.GasTables(ctx)
		if err != nil {
			return gasLoadedMsg{err: err}
		}
		t, err := be.GasTable(ctx, table)
		return gasLoadedMsg{tables: names, table: t, focus: &gas.CellRef{Row: row, Field: field}, undone: true, err: err}
	}
}

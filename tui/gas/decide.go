package gas

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	tea "charm.land/bubbletea/v2"

	"warren/gas"
	"warren/service"
	"warren/tui/component"
)

// The analyst's decisions in the Gas tab. Each goes at once, in a command, to the gas desk
// (service.Gas, the methods the CLI calls too), which owns the rules: it stores the cells or
// refuses, and the grid takes the cells as stored. The tab only words the outcome.

// describe names a cell and what it holds, for the status line.
func (g *Model) describe(rowID int, field string) string {
	r := g.table.Row(rowID)
	f, _ := gas.FieldByName(field)
	if r == nil {
		return fmt.Sprintf("%s of row %d", f.Label, rowID)
	}
	c := r.Cells[field]
	what := "empty"
	if c.Value != "" {
		what = service.GasValueUnit(c)
	}
	if c.Status == gas.StatusEmpty { // not "is empty (empty)"
		return fmt.Sprintf("%s of %s is %s", f.Label, r.Name(), what)
	}
	return fmt.Sprintf("%s of %s is %s (%s)", f.Label, r.Name(), what, statusWord(c.Status))
}

// savedMsg applies the cells that were stored; an editor whose save failed stays open with
// its text and the error. A decision refused because the cell changed since the grid showed it
// (another analyst decided it) reloads the table, keeping the cursor and the editor's text, so
// that the analyst decides again on what the cell holds now.
func (g *Model) savedMsg(msg gasSavedMsg) tea.Cmd {
	if msg.edit {
		g.saving = false
	}
	if g.table != nil && g.table.Name == msg.table && len(msg.changes) > 0 {
		keep := g.currentIndex()
		for _, ch := range msg.changes {
			if r := g.table.Row(ch.Row); r != nil {
				r.Set(ch.Field, ch.Cell)
			}
		}
		g.measure()
		g.refilter(keep)
	}
	if stale := (*gas.StaleError)(nil); errors.As(msg.err, &stale) {
		return g.refused(msg, stale)
	}
	if refusal := (*service.GasRefusal)(nil); errors.As(msg.err, &refusal) {
		if msg.edit && g.mode == gasEdit {
			g.inputErr = refusalText(refusal) // the text stays for the analyst to correct
			return nil
		}
		return component.SetStatus(refusalText(refusal), false)
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
		return component.SetStatus(text, true)
	}
	if msg.edit && g.mode == gasEdit {
		g.closeInput()
	}
	if msg.unchanged {
		return component.SetStatus("the value is unchanged", false)
	}
	return component.SetStatus(msg.status, false)
}

// refused tells the analyst who changed the cell they decided on, and reloads the table.
func (g *Model) refused(msg gasSavedMsg, stale *gas.StaleError) tea.Cmd {
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
	return tea.Batch(component.SetStatus(text, true), reload)
}

// staleText says who changed a cell to what and when, naming the cell when it is not the one
// under the cursor, then what to do.
func (g *Model) staleText(stale *gas.StaleError, then string) string {
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

// decide sends one decision to the gas desk in a command, in the order of the keys; the desk
// applies its rules and stores the cells, and the grid takes them as stored. done words the
// decision for the status line.
func (g *Model) decide(edit bool, done func(service.GasDecided) string, call func(ctx context.Context, be Service, table string) (service.GasDecided, error)) tea.Cmd {
	be, table, order := g.be, g.table.Name, g.order
	ticket := order.ticket()
	return func() tea.Msg {
		defer order.wait(ticket)()
		res, err := call(context.Background(), be, table)
		msg := gasSavedMsg{table: table, changes: res.Cells, edit: edit, unchanged: res.Unchanged, err: err}
		if err == nil && !res.Unchanged {
			msg.status = done(res)
		}
		return msg
	}
}

// gasFixKeys word the way out of a refused decision in the tab's keys.
var gasFixKeys = map[service.GasFix]string{
	service.GasFixType:           " (e types a value)",
	service.GasFixTypeOrUndo:     ": e types one, u undoes the rejection",
	service.GasFixCorrect:        ": e corrects it",
	service.GasFixApproveOne:     " (a approves one cell)",
	service.GasFixRejectOrCancel: ": type one (x rejects the cell, esc cancels)",
	service.GasFixEditOrReject:   ": e corrects it, x rejects it",
}

// refusalText is a refusal of the desk as the tab shows it: the desk's reason, then the keys
// that lead on.
func refusalText(r *service.GasRefusal) string { return r.Why + gasFixKeys[r.Fix] }

func (g *Model) approve() tea.Cmd {
	r, f, ok := g.current()
	if !ok {
		return nil
	}
	row, field, seen := r.ID, f.Name, r.Cells[f.Name]
	done := fmt.Sprintf("approved %s of %s", f.Label, r.Name())
	return g.decide(false, func(service.GasDecided) string { return done },
		func(ctx context.Context, be Service, table string) (service.GasDecided, error) {
			return be.Approve(ctx, table, row, field, seen)
		})
}

// approveRow approves the row's filled cells of high confidence; review cells need a look each.
func (g *Model) approveRow() tea.Cmd {
	r, _, ok := g.current()
	if !ok {
		return nil
	}
	row, name, seen := r.ID, r.Name(), maps.Clone(r.Cells) // the grid's row changes while the command runs
	return g.decide(false, func(res service.GasDecided) string {
		return fmt.Sprintf("approved %d high-confidence cell(s) of %s (u undoes one at a time)", len(res.Cells), name)
	}, func(ctx context.Context, be Service, table string) (service.GasDecided, error) {
		return be.ApproveRow(ctx, table, row, seen)
	})
}

func (g *Model) reject() tea.Cmd {
	r, f, ok := g.current()
	if !ok {
		return nil
	}
	row, field, seen := r.ID, f.Name, r.Cells[f.Name]
	done := fmt.Sprintf("rejected %s of %s (u undoes)", f.Label, r.Name())
	return g.decide(false, func(service.GasDecided) string { return done },
		func(ctx context.Context, be Service, table string) (service.GasDecided, error) {
			return be.Reject(ctx, table, row, field, seen)
		})
}

func (g *Model) edit() tea.Cmd {
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

// saveEdit sends the editor's value to the desk, which checks and stores it; on an error the
// text stays.
func (g *Model) saveEdit() tea.Cmd {
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
	// The cell as it was when the editor opened: the decision is made on it.
	row, field, value, seen, name := r.ID, f.Name, g.input.Value(), g.editSeen, r.Name()
	g.saving, g.inputErr = true, ""
	return g.decide(true, func(res service.GasDecided) string {
		return fmt.Sprintf("saved %s of %s: %s", f.Label, name, service.GasValueUnit(res.Cells[0].Cell))
	}, func(ctx context.Context, be Service, table string) (service.GasDecided, error) {
		return be.Edit(ctx, table, row, field, value, seen)
	})
}

func (g *Model) undo() tea.Cmd {
	be, table, order := g.be, g.table.Name, g.order
	ticket := order.ticket()
	return func() tea.Msg {
		defer order.wait(ticket)()
		ctx := context.Background()
		row, field, err := be.Undo(ctx, table)
		if errors.Is(err, gas.ErrNothingToUndo) {
			return component.NewStatus("nothing to undo in "+table+" (u undoes your own decisions)", false)
		}
		if stale := (*gas.StaleError)(nil); errors.As(err, &stale) {
			// The cell of the analyst's latest decision was changed since: it stays as it is.
			names, lerr := be.Tables(ctx)
			t, terr := be.Table(ctx, table)
			loaded := gasLoadedMsg{tables: names, table: t, focus: &gas.CellRef{Row: stale.Row, Field: stale.Field}, err: errors.Join(lerr, terr)}
			f, _ := gas.FieldByName(stale.Field)
			text := fmt.Sprintf("can't undo your decision on %s of row %d: since then %s; your view is refreshed", f.Label, stale.Row, stale.Change())
			return tea.BatchMsg{func() tea.Msg { return component.NewStatus(text, true) }, func() tea.Msg { return loaded }}
		}
		if err != nil {
			return component.NewStatus(err.Error(), true)
		}
		names, err := be.Tables(ctx)
		if err != nil {
			return gasLoadedMsg{err: err}
		}
		t, err := be.Table(ctx, table)
		return gasLoadedMsg{tables: names, table: t, focus: &gas.CellRef{Row: row, Field: field}, undone: true, err: err}
	}
}

// Changed reloads the table when other analysts changed it, keeping the cursor and an open
// editor (whose value, if its cell was among the changes, is refused on enter and can be sent
// again), and says who changed what.
func (g *Model) Changed(cs []service.Change) tea.Cmd {
	if g.table == nil {
		return nil
	}
	var ours []service.Change
	for _, c := range cs {
		if c.Kind == service.ChangeGasCell && c.Table == g.table.Name {
			ours = append(ours, c)
		}
	}
	if len(ours) == 0 {
		return nil
	}
	return tea.Batch(g.load(g.table.Name, nil), component.SetStatus(component.NewsLine(ours), false))
}

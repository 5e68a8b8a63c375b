package gas

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"warren/tui/component"
)

// The plain-language query of the Gas tab: a question goes to the model in a cancellable
// command; its expression filters the grid and can be edited and run again.

// queryMsg takes a query's result; a cancelled or replaced question's result is dropped.
func (g *Model) queryMsg(msg gasQueryMsg) tea.Cmd {
	if msg.seq != g.askSeq || g.table == nil || g.table.Name != msg.table {
		return nil // a cancelled or replaced question, or one about another table
	}
	g.askCancel, g.asking = nil, ""
	if msg.err != nil {
		if msg.edited && g.mode == gasExpr {
			g.inputErr = msg.err.Error()
			return nil
		}
		if errors.Is(msg.err, context.Canceled) {
			return component.SetStatus("query cancelled", false)
		}
		return component.SetStatus("couldn't run the query: "+msg.err.Error(), true)
	}
	if msg.edited && g.mode == gasExpr {
		g.closeInput()
	}
	match := map[int]bool{}
	for _, id := range msg.res.Rows {
		match[id] = true
	}
	g.query = &gasQuery{question: msg.question, res: msg.res, match: match}
	g.barFocus = true
	g.refilter(-1)
	text := fmt.Sprintf("%d of %d rows match", len(msg.res.Rows), len(g.table.Rows))
	if msg.res.Fallback {
		text += " (fallback word match: the model gave no valid expression)"
	} else if msg.res.Explanation != "" {
		text += ": " + msg.res.Explanation
	}
	return component.SetStatus(text, false)
}

// ask runs a question, or the analyst's expression when edited, in a cancellable command.
func (g *Model) ask(question, expression string) tea.Cmd {
	g.cancelQuery()
	ctx, cancel := context.WithCancel(context.Background())
	g.askCancel, g.asking = cancel, question
	g.askSeq++
	seq, be, table := g.askSeq, g.be, g.table.Name
	edited := expression != ""
	return func() tea.Msg {
		defer cancel()
		res, err := be.Query(ctx, table, question, expression)
		return gasQueryMsg{seq: seq, table: table, question: question, res: res, edited: edited, err: err}
	}
}

func (g *Model) cancelQuery() {
	if g.askCancel != nil {
		g.askCancel()
		g.askCancel, g.asking = nil, ""
		g.askSeq++ // its result, if any, is dropped
	}
}

func (g *Model) clearQuery() tea.Cmd {
	g.query, g.barFocus = nil, false
	g.refilter(g.currentIndex())
	return component.SetStatus("query cleared: showing every row", false)
}

func (g *Model) editExpression() tea.Cmd {
	if g.query == nil {
		return nil
	}
	g.mode, g.inputErr = gasExpr, ""
	g.input.Placeholder = "a filter expression over the fields"
	g.input.SetValue(g.query.res.Expression)
	g.input.CursorEnd()
	return g.input.Focus()
}

package service

import (
	"context"
	"encoding/json"
	"strings"

	"warren/agent"
	"warren/agent/gasfill"
	"warren/gas"
	"warren/kb/chunk"
	"warren/service/grants"
)

// withheldSource begins the excerpt of a gas cell whose source lies in a collection the
// analyst may not read: the table is the team's, its values are shown to all, but the passage
// a value was read from, and where it lies, only to those who may read it.
const withheldSource = "(withheld: the source is in "

// withholdSources blanks the source of each cell of t that lies in a collection this view's
// analyst may not read: its document, section, passage and page, and the excerpt, which says
// why instead. An admin, and the account outside serve, see every source.
func (s *Service) withholdSources(ctx context.Context, t *gas.Table) error {
	withhold, err := s.sourceWithholder(ctx)
	if err != nil || withhold == nil {
		return err
	}
	for _, r := range t.Rows {
		for field, c := range r.Cells {
			r.Cells[field] = withhold(c)
		}
	}
	return nil
}

// sourceWithholder is the rule withholdSources applies, cell by cell (each document's
// collection looked up once); nil for a view that sees every source.
func (s *Service) sourceWithholder(ctx context.Context) (func(gas.Cell) gas.Cell, error) {
	if s.isAdmin() {
		return nil, nil
	}
	level, err := s.levels(ctx)
	if err != nil {
		return nil, err
	}
	collections := map[string]string{}
	return func(c gas.Cell) gas.Cell {
		if c.SourceDoc == "" {
			return c
		}
		col, ok := collections[c.SourceDoc]
		if !ok {
			d, _, _ := s.store.Document(ctx, c.SourceDoc)
			col, collections[c.SourceDoc] = d.Collection, d.Collection
		}
		if col != "" && !level(col).Allows(grants.Read) {
			return withheldCell(c, col)
		}
		return c
	}, nil
}

func withheldCell(c gas.Cell, collection string) gas.Cell {
	c.SourceDoc, c.SourceSection, c.SourceChunk, c.SourcePage = "", "", "", chunk.PageRef{}
	c.Excerpt = withheldSource + collection + ", which you may not read)"
	return c
}

// withheldFrom is the collection a cell's source was withheld from, or "".
func withheldFrom(c gas.Cell) string {
	rest, ok := strings.CutPrefix(c.Excerpt, withheldSource)
	if !ok || c.SourceDoc != "" {
		return ""
	}
	col, _, _ := strings.Cut(rest, ",")
	return col
}

// stored is the cell as stored when seen is the withheld view of it, so a decision compares
// and keeps the real cell; seen itself otherwise (a cell changed since is then refused as
// changed). approving refuses a withheld cell: a value whose source the analyst may not read
// is not theirs to approve.
func (g *Gas) stored(ctx context.Context, table string, row int, field string, seen gas.Cell, approving bool) (gas.Cell, error) {
	col := withheldFrom(seen)
	if col == "" {
		return seen, nil
	}
	if approving {
		return seen, &AccessError{Analyst: g.s.Owner, Collection: col, Want: grants.Read}
	}
	t, err := g.s.GasStore().LoadTable(ctx, table)
	if err != nil {
		return seen, err
	}
	r := t.Row(row)
	if r == nil {
		return seen, nil
	}
	real := r.Cells[field]
	if withheldCell(real, col) == seen {
		return real, nil
	}
	return seen, nil
}

// fillSink passes a watched fill's events to sink with the sources of its cell changes
// withheld as the table withholds them (see withholdSources): a watcher may see the fill's
// progress and values, not passages of collections they may not read.
func (s *Service) fillSink(ctx context.Context, sink agent.Sink) agent.Sink {
	if s.isAdmin() || sink == nil {
		return sink
	}
	return func(e agent.Event) {
		if len(e.State) > 0 {
			e.State = s.withholdFillState(ctx, e.State)
		}
		sink(e)
	}
}

// withholdFillState is a fill's state with the cells of its changes withheld as
// withholdSources withholds a table's; a state that can't be read is dropped rather than
// passed on whole.
func (s *Service) withholdFillState(ctx context.Context, raw json.RawMessage) json.RawMessage {
	var st gasfill.State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil
	}
	withhold, err := s.sourceWithholder(ctx)
	if err != nil {
		return nil
	}
	for ri := range st.Results {
		for ci := range st.Results[ri].Changes {
			ch := &st.Results[ri].Changes[ci]
			ch.Before, ch.After = withhold(ch.Before), withhold(ch.After)
		}
	}
	out, err := json.Marshal(st)
	if err != nil {
		return nil
	}
	return out
}

package service

import (
	"context"
	"strconv"

	"warren/agent/tablequery"
	"warren/gas"
	"warren/llm"
)

// GasQueryResult is the outcome of a plain-language question (or a filter expression) over a
// gas table.
type GasQueryResult struct {
	Expression  string   `json:"expression"`            // the filter that ran
	Explanation string   `json:"explanation,omitempty"` // the model's reading of the question, or the fallback's rule
	Fallback    bool     `json:"fallback"`              // Expression is the word-match fallback, not the model's
	Note        string   `json:"note"`                  // why the fallback was used
	Rows        []int    `json:"-"`                     // IDs of the matching rows, in table order
	Names       []string `json:"rows"`                  // their chemical names
	Calls       int      `json:"calls"`                 // model calls spent
	LedgerRun   string   `json:"ledger_run"`            // where those calls are in the ledger
	Total       int      `json:"-"`                     // rows in the table
}

// GasStore is the workspace's gas tables, written in this view's analyst's name; what it
// decides is published on the change feed.
func (s *Service) GasStore() *gas.Store {
	return &gas.Store{DB: s.ws.DB, Analyst: s.Owner, Decided: s.gasDecided}
}

// Query answers a question over a table: the model writes a filter expression (or the
// analyst gave one), it is compiled against the table's typed schema, then run over its rows.
// The model's calls are kept in the ledger under their own run. The table is the one
// Resolve names.
func (g *Gas) Query(ctx context.Context, table, question, expression string) (GasQueryResult, error) {
	t, err := g.Table(ctx, table)
	if err != nil {
		return GasQueryResult{}, err
	}
	schema := QuerySchema(t)
	res := GasQueryResult{Expression: expression, Total: len(t.Rows)}
	rows := QueryRows(t, schema)
	if expression == "" {
		ans, err := tablequery.AskOver(ctx, g.s.gateway, llm.Call{}, schema, rows, question)
		if ans != nil {
			res.LedgerRun = QueryLedgerRun()
			g.s.KeepLedger(ctx, res.LedgerRun, ans.Ledger...)
			res.Expression, res.Explanation, res.Fallback, res.Note, res.Calls = ans.Expression, ans.Explanation, ans.Fallback, ans.Note, ans.Calls
		}
		if err != nil {
			return res, err
		}
	}
	program, err := tablequery.Compile(schema, res.Expression)
	if err != nil {
		return res, err
	}
	hits, err := tablequery.Run(program, rows)
	if err != nil {
		return res, err
	}
	for _, i := range hits {
		res.Rows = append(res.Rows, t.Rows[i].ID)
		res.Names = append(res.Names, t.Rows[i].Name())
	}
	return res, nil
}

// QuerySchema describes a table to the query engine.
func QuerySchema(t *gas.Table) tablequery.Schema {
	var s tablequery.Schema
	for _, f := range gas.Fields() {
		typ := "string"
		switch f.Kind {
		case gas.KindNumber, gas.KindTemperature, gas.KindPressure, gas.KindPercent, gas.KindPPM:
			typ = "number"
		case gas.KindRating:
			typ = "int"
		case gas.KindBool:
			typ = "bool"
		}
		var examples []string
		for _, r := range t.Rows {
			if v := queryValue(r.Cells[f.Name]); v != "" && len(examples) < 3 {
				examples = append(examples, v)
			}
		}
		s = append(s, tablequery.Field{Name: f.Name, Type: typ, Unit: f.Unit, Doc: f.Label, Examples: examples})
	}
	return s
}

// queryValue is the value a query sees: none for an unsupported one, which no passage states.
func queryValue(c gas.Cell) string {
	if c.Status == gas.StatusUnsupported {
		return ""
	}
	return c.Value
}

// QueryRows turns a table into typed rows; an empty, unreadable or unsupported value is nil.
func QueryRows(t *gas.Table, schema tablequery.Schema) []map[string]any {
	rows := make([]map[string]any, len(t.Rows))
	for i, r := range t.Rows {
		m := map[string]any{}
		for _, f := range schema {
			v := queryValue(r.Cells[f.Name])
			if v == "" {
				m[f.Name] = nil
				continue
			}
			switch f.Type {
			case "number":
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					m[f.Name] = x
				} else {
					m[f.Name] = nil
				}
			case "int":
				if x, err := strconv.Atoi(v); err == nil {
					m[f.Name] = x
				} else {
					m[f.Name] = nil
				}
			case "bool":
				switch v {
				case "yes", "true":
					m[f.Name] = true
				case "no", "false":
					m[f.Name] = false
				default: // "n/a", or sheet text that didn't validate: unknown, not "no"
					m[f.Name] = nil
				}
			default:
				m[f.Name] = v
			}
		}
		rows[i] = m
	}
	return rows
}

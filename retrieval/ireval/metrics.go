package ireval

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultK is the run depth used by [Run] when k ≤ 0; Recall@100 needs at least 100.
const DefaultK = 100

// Metrics are mean scores over the evaluated queries.
type Metrics struct {
	MAP       float64 `json:"map"`       // mean average precision (binary: grade > 0 is relevant)
	NDCG10    float64 `json:"ndcg10"`    // nDCG@10, gain = grade, discount log2(rank+1)
	P10       float64 `json:"p10"`       // precision at 10 (always divided by 10)
	Recall100 float64 `json:"recall100"` // relevant docs in the top 100 / all relevant docs
	Queries   int     `json:"queries"`   // number of queries averaged over
}

func countRelevant(judged map[string]int) int {
	n := 0
	for _, g := range judged {
		if g > 0 {
			n++
		}
	}
	return n
}

// EvaluateQuery scores one ranking against one query's judgments (doc ID → grade). A document
// repeated in the ranking counts only at its first rank. With no relevant judgment it returns the
// zero Metrics (Queries 0); otherwise Queries is 1.
func EvaluateQuery(judged map[string]int, ranked []string) Metrics {
	total := countRelevant(judged)
	if total == 0 {
		return Metrics{}
	}
	var (
		m       = Metrics{Queries: 1}
		seen    = make(map[string]bool, len(ranked))
		rank    int
		found   int
		sumPrec float64
		dcg     float64
	)
	for _, id := range ranked {
		if seen[id] {
			continue
		}
		seen[id] = true
		rank++
		g := judged[id]
		if g <= 0 {
			continue
		}
		found++
		sumPrec += float64(found) / float64(rank)
		if rank <= 10 {
			dcg += float64(g) / math.Log2(float64(rank+1))
			m.P10++
		}
		if rank <= 100 {
			m.Recall100++
		}
	}
	m.MAP = sumPrec / float64(total)
	m.P10 /= 10
	m.Recall100 /= float64(total)

	grades := make([]int, 0, total)
	for _, g := range judged {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	slices.Sort(grades)
	slices.Reverse(grades)
	var idcg float64
	for i, g := range grades[:min(10, len(grades))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	m.NDCG10 = dcg / idcg
	return m
}

// Evaluate scores run (query ID → ranked doc IDs, best first) against c. It averages over
// c.Judged(): queries of the query file with at least one relevant judgment. A judged query
// missing from run, or with no results, scores 0 on every measure; run entries for other queries
// are ignored.
func Evaluate(c *Collection, run map[string][]string) Metrics {
	var sum Metrics
	for _, q := range c.Judged() {
		m := EvaluateQuery(c.Qrels[q.ID], run[q.ID])
		sum.MAP += m.MAP
		sum.NDCG10 += m.NDCG10
		sum.P10 += m.P10
		sum.Recall100 += m.Recall100
		sum.Queries++
	}
	if sum.Queries == 0 {
		return Metrics{}
	}
	n := float64(sum.Queries)
	return Metrics{
		MAP:       sum.MAP / n,
		NDCG10:    sum.NDCG10 / n,
		P10:       sum.P10 / n,
		Recall100: sum.Recall100 / n,
		Queries:   sum.Queries,
	}
}

// Searcher returns up to k doc IDs for query, best first.
type Searcher func(query string, k int) ([]string, error)

// Run asks search for the top k documents of every evaluated query (c.Judged()) and returns the
// run keyed by query ID. k ≤ 0 means [DefaultK]; results beyond k are cut off so that MAP is
// always measured at depth k.
func Run(c *Collection, search Searcher, k int) (map[string][]string, error) {
	if search == nil {
		return nil, errors.New("ireval: Run needs a searcher")
	}
	if k <= 0 {
		k = DefaultK
	}
	run := map[string][]string{}
	for _, q := range c.Judged() {
		ids, err := search(q.Text, k)
		if err != nil {
			return nil, fmt.Errorf("ireval: query %s: %w", q.ID, err)
		}
		if len(ids) > k {
			ids = ids[:k]
		}
		run[q.ID] = ids
	}
	return run, nil
}

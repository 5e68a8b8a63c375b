package ireval

import (
	"cmp"
	"slices"
)

// Passage is a ranked passage (a chunk) of a document, with the searcher's score.
type Passage struct {
	Doc   string
	Score float64
}

// RankDocuments turns a ranking of passages into a ranking of documents, each scored by its
// best passage plus share × the sum of its other passages' scores in the ranking; ties go by
// the best passage's rank. With share 0 each document takes its best passage's rank, whatever
// the scores (a hybrid ranking may append hits whose scores are of another scale).
func RankDocuments(passages []Passage, share float64) []string {
	if share == 0 {
		seen := map[string]bool{}
		var out []string
		for _, p := range passages {
			if !seen[p.Doc] {
				seen[p.Doc] = true
				out = append(out, p.Doc)
			}
		}
		return out
	}
	type docScore struct {
		doc         string
		first       int
		best, other float64
	}
	at := map[string]int{}
	var docs []docScore
	for i, p := range passages {
		j, ok := at[p.Doc]
		if !ok {
			at[p.Doc] = len(docs)
			docs = append(docs, docScore{doc: p.Doc, first: i, best: p.Score})
			continue
		}
		d := &docs[j]
		if p.Score > d.best {
			d.best, d.other = p.Score, d.other+d.best
		} else {
			d.other += p.Score
		}
	}
	score := func(d docScore) float64 { return d.best + share*d.other }
	slices.SortStableFunc(docs, func(a, b docScore) int { return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(a.first, b.first)) })
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.doc
	}
	return out
}

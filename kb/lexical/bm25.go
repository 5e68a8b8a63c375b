package lexical

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"warren/kb/analysis"
)

// BM25 as warren computes it: a term's frequency in a chunk counts its heading occurrences
// HeadingWeight times, the chunk's length is its heading and body terms, and the inverse
// document frequency is ln(1 + (N − df + 0.5) / (df + 0.5)), which stays positive for a term
// found in most chunks, so such a term still tells two chunks apart.

// Defaults of the lexical ranking (kb.bm25_k1, kb.bm25_b, kb.heading_weight, kb.feedback_docs,
// kb.feedback_terms), chosen by leaving one of Cranfield, CISI and CACM out in turn and
// choosing on the other two (docs/retrieval.md): b from the chunks' lengths (lengthnorm.go),
// which no fixed b matched on all three.
const (
	DefaultBM25K1        = 2.0
	DefaultBM25B         = AutoB
	DefaultFeedbackDocs  = 5
	DefaultFeedbackTerms = 30
)

// feedbackShare is the expansion's share of the expanded query's weight, the rest being the
// query's own terms (RM3's usual even mix).
const feedbackShare = 0.5

// queryTerm is one distinct term of a query: its weight (how often the query says it, or its
// share after feedback), its document frequency and inverse document frequency.
type queryTerm struct {
	term   string
	weight float64
	df     int64
	idf    float64
	next   []string // the terms of the query's words that follow this term's (proximity)
}

type Query []queryTerm

// newLexicalQuery merges repeated terms into one weighted term, keeping first-seen order.
func newLexicalQuery(terms []string) Query {
	var q Query
	at := map[string]int{}
	for _, t := range terms {
		if i, ok := at[t]; ok {
			q[i].weight++
			continue
		}
		at[t] = len(q)
		q = append(q, queryTerm{term: t, weight: 1})
	}
	return q
}

// newQueryOfWords merges a query's words (analysis.QueryWords) into weighted terms, keeping
// first-seen order, each term also noting the terms of the word after it, so proximity knows
// which terms were neighbours.
func newQueryOfWords(words []analysis.QueryWord) Query {
	var q Query
	at := map[string]int{}
	for _, w := range words {
		for k, t := range w.Terms {
			if i, ok := at[t]; ok {
				q[i].weight += w.Weights[k]
				continue
			}
			at[t] = len(q)
			q = append(q, queryTerm{term: t, weight: w.Weights[k]})
		}
	}
	for n := 1; n < len(words); n++ {
		for _, a := range words[n-1].Terms {
			i := at[a]
			for _, b := range words[n].Terms {
				if b != a && !slices.Contains(q[i].next, b) {
					q[i].next = append(q[i].next, b)
				}
			}
		}
	}
	return q
}

// weigh sets each term's document frequency from df and its idf.
func (q Query) weigh(df map[string]int64, totals Totals) {
	n := float64(totals.Chunks)
	for i := range q {
		q[i].df = df[q[i].term]
		d := float64(q[i].df)
		q[i].idf = math.Log(1 + (n-d+0.5)/(d+0.5))
	}
}

// found keeps the terms that some chunk holds.
func (q Query) found() Query {
	return slices.DeleteFunc(slices.Clone(q), func(t queryTerm) bool { return t.df <= 0 })
}

// splitByBudget returns the rarest terms whose document frequencies sum to at most budget
// (none when even the rarest exceeds it), and the rest. A budget of 0 or less takes all.
func (q Query) splitByBudget(budget int) (rare, common Query) {
	sorted := slices.Clone(q)
	slices.SortStableFunc(sorted, func(a, b queryTerm) int { return cmp.Compare(a.df, b.df) })
	if budget <= 0 {
		return sorted, nil
	}
	var sum int64
	for i, t := range sorted {
		if sum+t.df > int64(budget) {
			return sorted[:i], sorted[i:]
		}
		sum += t.df
	}
	return sorted, nil
}

// lexicalDoc is a candidate chunk: its index row, its analysed heading and body (terms
// separated by single spaces, as the index holds them), its length in terms and its score.
type lexicalDoc struct {
	rowid         int64
	heading, body string
	length        int
	score         float64
	identity      []string // its document's identity terms (identity.go)
}

func newLexicalDoc(rowid int64, heading, body string) lexicalDoc {
	return lexicalDoc{rowid: rowid, heading: heading, body: body, length: CountTerms(heading) + CountTerms(body)}
}

// CountTerms is the number of terms of an analysed text (terms are separated by one space).
func CountTerms(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, " ") + 1
}

// eachTerm calls fn with every term of an analysed text, without allocating.
func eachTerm(s string, fn func(string)) {
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			fn(s)
			return
		}
		if i > 0 {
			fn(s[:i])
		}
		s = s[i+1:]
	}
}

type ranker struct {
	k1, b, headingWeight, avgLength float64
}

// BM25's term share, in three small steps that every scorer (ranker.score, scoreChunk,
// contribution) calls, so that all of them give the same score to the bit.

// tf is a term's frequency in a chunk, its heading occurrences counted headingWeight times.
func (r ranker) tf(head, body float64) float64 { return r.headingWeight*head + body }

// norm is the length normalisation of a chunk of length terms: k1 (1 − b + b·length/avg).
func (r ranker) norm(length float64) float64 {
	return r.k1 * (1 - r.b + r.b*length/r.avgLength)
}

// termScore is a term's share of a chunk's score: weight is the query term's weight × idf,
// tf its frequency in the chunk and norm the chunk's length normalisation.
func (r ranker) termScore(weight, tf, norm float64) float64 {
	return weight * tf * (r.k1 + 1) / (tf + norm)
}

// score sets every candidate's BM25 score for the query.
func (r ranker) score(docs []lexicalDoc, q Query) {
	at := make(map[string]int, len(q))
	for i, t := range q {
		at[t.term] = i
	}
	head := make([]float64, len(q))
	body := make([]float64, len(q))
	for d := range docs {
		clear(head)
		clear(body)
		eachTerm(docs[d].heading, func(t string) {
			if i, ok := at[t]; ok {
				head[i]++
			}
		})
		eachTerm(docs[d].body, func(t string) {
			if i, ok := at[t]; ok {
				body[i]++
			}
		})
		norm := r.norm(float64(docs[d].length))
		var score float64
		for i, t := range q {
			if tf := r.tf(head[i], body[i]); tf > 0 {
				score += r.termScore(t.weight*t.idf, tf, norm)
			}
		}
		docs[d].score = score
	}
}

// expandQuery expands the query with the terms of its best-scoring candidates (RM3): each
// of the feedbackDocs best chunks lends its terms in proportion to their frequency in it and
// to its share of those chunks' scores; the feedbackTerms strongest terms join the query's own
// with half of the weight (mergeExpansion), so scores keep their scale. It returns the query's
// terms with their new weights and the terms it gains, whose document frequencies the caller
// looks up. A query that names something (identity.go) takes its feedback from the best
// chunks holding every term it names, if any does, and no chunk lends its own document's
// identity terms from its heading. Index.expand does the same over the index in memory.
func expandQuery(docs []lexicalDoc, q Query, named []string, feedbackDocs, feedbackTerms int) (out, fresh Query) {
	best := topDocs(slices.Clone(docs), feedbackDocs)
	if len(named) > 0 {
		holding := slices.DeleteFunc(slices.Clone(docs), func(d lexicalDoc) bool { return !d.holdsAll(named) })
		if on := topDocs(holding, feedbackDocs); len(on) > 0 {
			best = on
		}
	}
	var sum float64
	for _, d := range best {
		sum += d.score
	}
	if sum <= 0 || feedbackTerms <= 0 {
		return q, nil
	}
	rel := map[string]float64{}
	for _, d := range best {
		if d.length == 0 {
			continue
		}
		share := d.score / sum / float64(d.length)
		add := func(t string) { rel[t] += share }
		eachTerm(d.heading, func(t string) {
			if !slices.Contains(d.identity, t) {
				add(t)
			}
		})
		eachTerm(d.body, add)
	}
	expansion := make(Query, 0, len(rel))
	for t, w := range rel {
		expansion = append(expansion, queryTerm{term: t, weight: w})
	}
	return mergeStrongest(q, expansion, feedbackTerms)
}

// mergeStrongest merges the n strongest terms of an expansion (ties by term) into the query
// (mergeExpansion); expandQuery and Index.expand end with it. It reorders expansion.
func mergeStrongest(q, expansion Query, n int) (out, fresh Query) {
	stronger := func(a, b queryTerm) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.term, b.term))
	}
	if n > 0 && n < len(expansion) {
		// Only the terms that can be among the n strongest are sorted: those at or above the
		// n-th weight (a feedback of 5 chunks offers some hundreds of terms for 30 places).
		weights := make([]float64, len(expansion))
		for i, e := range expansion {
			weights[i] = e.weight
		}
		nth := quickselect(weights, n-1)
		expansion = slices.DeleteFunc(expansion, func(e queryTerm) bool { return e.weight < nth })
	}
	slices.SortFunc(expansion, stronger)
	return mergeExpansion(q, expansion[:min(len(expansion), max(n, 0))])
}

// mergeExpansion gives the query's own terms half of its weight and the expansion's terms,
// in proportion to their weights, the other half: the query's terms with their new weights,
// and the terms it gains, whose document frequencies the caller looks up.
func mergeExpansion(q, expansion Query) (out, fresh Query) {
	var relSum, qSum float64
	for _, e := range expansion {
		relSum += e.weight
	}
	for _, t := range q {
		qSum += t.weight
	}
	out = make(Query, 0, len(q)+len(expansion))
	at := map[string]int{}
	for _, t := range q {
		t.weight = (1 - feedbackShare) * t.weight
		at[t.term] = len(out)
		out = append(out, t)
	}
	for _, e := range expansion {
		w := feedbackShare * qSum * e.weight / relSum
		if i, ok := at[e.term]; ok {
			out[i].weight += w
			continue
		}
		fresh = append(fresh, queryTerm{term: e.term, weight: w})
	}
	return out, fresh
}

// topDocs sorts the candidates best first (ties by index order) and keeps the best k.
func topDocs(docs []lexicalDoc, k int) []lexicalDoc {
	docs = slices.DeleteFunc(docs, func(d lexicalDoc) bool { return d.score <= 0 })
	slices.SortStableFunc(docs, func(a, b lexicalDoc) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.rowid, b.rowid))
	})
	return docs[:min(len(docs), k)]
}

// holdsAll tells whether the chunk holds every one of the terms (heading or body).
func (d lexicalDoc) holdsAll(terms []string) bool {
	for _, want := range terms {
		found := false
		for _, text := range [2]string{d.heading, d.body} {
			eachTerm(text, func(t string) { found = found || t == want })
		}
		if !found {
			return false
		}
	}
	return true
}

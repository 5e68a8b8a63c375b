package lexical

import "slices"

// Proximity: two neighbouring query words close together in a chunk say more than the same
// words far apart ("boundary layer" against a "boundary" in one sentence and a "layer" in
// another), as sequential dependence models reward neighbouring query terms found in a window.
// After Rasolofo and Savoy ("Term proximity scoring for keyword-based retrieval systems",
// ECIR 2003), every occurrence of two terms of neighbouring query words within
// proximityWindow terms of each other (in either order, heading and body apart, stop words
// already gone) adds 1/d² for a distance of d; the pair's sum is saturated as BM25 saturates a
// term's frequency and weighted by the rarer term's weight. Only the candidates of the final
// ranking are scored so (the exact top pool of BM25), which keeps it cheap: a pass over each
// candidate's terms in order, for chunks holding two of the query's terms.

// DefaultProximity weighs proximity against BM25 (kb.proximity), chosen across Cranfield,
// CISI and CACM (docs/retrieval.md).
const DefaultProximity = 0.2

// proximityWindow: two terms count as near up to four terms apart.
const proximityWindow = 5

// proxSeparator marks the end of a chunk's heading in its sequence of terms.
const proxSeparator = 0xFFFF

// proximity accumulates the closeness of neighbouring query terms over one chunk's terms in
// order.
type proximity struct {
	n      int       // query places
	near   []bool    // n × n: the places' words were neighbours in the query
	acc    []float64 // n × n, pairs (a, b) with a < b at a*n + b
	recent [proximityWindow - 1]struct{ pos, place int }
	nrec   int
	pos    int
}

// newProximity prepares the pairs of a query: terms of neighbouring words (queryTerm.next).
// It returns nil when no two terms are neighbours.
func newProximity(q Query) *proximity {
	n := len(q)
	x := &proximity{n: n, near: make([]bool, n*n), acc: make([]float64, n*n)}
	pairs := 0
	for a, t := range q {
		for _, next := range t.next {
			b := slices.IndexFunc(q, func(u queryTerm) bool { return u.term == next })
			if b >= 0 && b != a && !x.near[a*n+b] {
				x.near[a*n+b], x.near[b*n+a] = true, true
				pairs++
			}
		}
	}
	if pairs == 0 {
		return nil
	}
	return x
}

// anyPair reports whether two neighbouring query terms are both present.
func (x *proximity) anyPair(present []bool) bool {
	for a := range x.n {
		if !present[a] {
			continue
		}
		for b := a + 1; b < x.n; b++ {
			if present[b] && x.near[a*x.n+b] {
				return true
			}
		}
	}
	return false
}

func (x *proximity) reset() {
	clear(x.acc)
	x.nrec, x.pos = 0, 0
}

// next takes the chunk's next term: its query place, or -1 when it is no query term.
func (x *proximity) next(place int) {
	p := x.pos
	x.pos++
	keep := 0 // the terms still in the window
	for i := range x.nrec {
		if p-x.recent[i].pos < proximityWindow {
			x.recent[keep] = x.recent[i]
			keep++
		}
	}
	x.nrec = keep
	if place < 0 {
		return
	}
	for i := range x.nrec {
		other := x.recent[i].place
		if !x.near[place*x.n+other] {
			continue
		}
		d := float64(p - x.recent[i].pos)
		a, b := min(place, other), max(place, other)
		x.acc[a*x.n+b] += 1 / (d * d)
	}
	if x.nrec == len(x.recent) { // the oldest cannot reach the next term
		copy(x.recent[:], x.recent[1:])
		x.nrec--
	}
	x.recent[x.nrec] = struct{ pos, place int }{p, place}
	x.nrec++
}

// separate ends a field: no pair spans the heading and the body.
func (x *proximity) separate() {
	x.nrec = 0
	x.pos += proximityWindow
}

// score is the chunk's proximity score: each pair's closeness saturated as a term frequency
// is (norm is the chunk's length normalisation) and weighted by the smaller of the two
// terms' weights (query weight × idf), summed in the order of the pairs.
func (x *proximity) score(r ranker, weights []float64, norm float64) float64 {
	var s float64
	for a := range x.n {
		for b := a + 1; b < x.n; b++ {
			if v := x.acc[a*x.n+b]; v > 0 {
				s += r.termScore(min(weights[a], weights[b]), v, norm)
			}
		}
	}
	return s
}

// addProximity adds to each candidate's score weight × its proximity score for the query, as
// Index.search does.
func (r ranker) addProximity(docs []lexicalDoc, q Query, weight float64) {
	if weight <= 0 {
		return
	}
	x := newProximity(q)
	if x == nil {
		return
	}
	at := make(map[string]int, len(q))
	weights := make([]float64, len(q))
	for i, t := range q {
		at[t.term] = i
		weights[i] = t.weight * t.idf
	}
	feed := func(t string) {
		if i, ok := at[t]; ok {
			x.next(i)
		} else {
			x.next(-1)
		}
	}
	for d := range docs {
		x.reset()
		eachTerm(docs[d].heading, feed)
		x.separate()
		eachTerm(docs[d].body, feed)
		docs[d].score += weight * x.score(r, weights, r.norm(float64(docs[d].length)))
	}
}

// proximityScores are the candidates' proximity scores for a query over the index, weighted
// (0 for a chunk holding no two neighbouring terms of it). iq is q over the index.
func (ix *Index) proximityScores(r ranker, cands []scoredSlot, q Query, iq indexedQuery, weight float64, stats *Cache) []float64 {
	out := make([]float64, len(cands))
	x := newProximity(q)
	if x == nil || weight <= 0 {
		return out
	}
	weights := make([]float64, len(q))
	for i, place := range iq.places {
		weights[place] = iq.weights[i]
	}
	var placeOf []int16 // the query place of each of the chunk's entries, or -1
	present := make([]bool, len(q))
	for ci, cand := range cands {
		c := &ix.chunks[cand.slot]
		entries := ix.entries[c.lo:c.hi]
		placeOf = slices.Grow(placeOf[:0], len(entries))[:len(entries)]
		clear(present)
		i := 0
		for j, e := range entries {
			for i < len(iq.terms) && iq.terms[i] < e.term {
				i++
			}
			placeOf[j] = -1
			if i < len(iq.terms) && iq.terms[i] == e.term {
				placeOf[j] = int16(iq.places[i])
				present[iq.places[i]] = true
			}
		}
		if !x.anyPair(present) { // the terms in order are read only where a pair can be found
			continue
		}
		stats.proximityRead.Add(1)
		x.reset()
		for _, local := range ix.seq[c.seq : c.seq+c.length+1] {
			if local == proxSeparator {
				x.separate()
			} else {
				x.next(int(placeOf[local]))
			}
		}
		out[ci] = weight * x.score(r, weights, r.norm(float64(c.length)))
	}
	return out
}

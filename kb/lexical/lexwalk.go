package lexical

import (
	"cmp"
	"slices"
)

// The candidate walk over the lexical index: the m best chunks of a query by BM25, found
// without reading the postings that cannot change them (MaxScore), with common terms walked in
// impact order so that the walk can stop inside them.
type scoredSlot struct {
	slot  int32
	score float64
}

// better orders scored chunks best first, ties by index order, as topDocs does.
func better(a, b scoredSlot) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.slot, b.slot))
}

// candidates returns the m chunks in scope that score best for the query, best first, with
// their scores. Terms are walked from the fewest postings up; once the best m seen so far
// all score above what the remaining terms could give an unseen chunk, no unseen chunk can
// join them, so the remaining terms' postings are left unread and their share is added to
// the chunks that can still make the m, from those postings or the chunks' own entries.
//
// A term of many postings is walked in impact order (its largest shares first), so that the
// walk can stop inside it: once a share plus what the later terms could add falls below the
// m-th score, the rest of that term's postings cannot bring in an unseen chunk either, and
// are added to the chunks still in the running like an unread term's.
func (ix *Index) candidates(r ranker, q indexedQuery, in func(int32) bool, m int, stats *Cache) []scoredSlot {
	acc := ix.accumulator()
	defer ix.release(acc)
	order := acc.order[:0]
	for i := range q.terms {
		order = append(order, i)
	}
	acc.order = order
	df := func(i int) int32 { t := q.terms[i]; return ix.postingsAt[t+1] - ix.postingsAt[t] }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(df(a), df(b)) })
	// left[i]: the most the terms order[i:] can add to a chunk.
	left := make([]float64, len(order)+1)
	for i := len(order) - 1; i >= 0; i-- {
		left[i] = left[i+1] + r.bound(q.weights[order[i]], ix.info[q.terms[order[i]]])
	}
	// theta is the m-th best score so far (0 before m chunks are seen). Scores only grow, so
	// it only rises, and each new one is looked for among the chunks at or above the last.
	var best, theta float64
	add := func(slot int32, share float64) {
		s := acc.scores[slot]
		if s == 0 {
			acc.touched = append(acc.touched, slot)
		}
		s += share
		acc.scores[slot] = s
		best = max(best, s)
	}
	// The term walked in part, if any: its postings rest (in impact order) are unread, and
	// none of them adds more than restBound.
	partial := -1
	var rest []lexPosting
	var restBound float64
	walked := 0
	for ; walked < len(order); walked++ {
		if len(acc.touched) >= m && left[walked] < best {
			// With the margin: a chunk at exactly the m-th score must not lose its tie to
			// rounding.
			if theta = kthScore(acc.scores, acc.touched, m, theta, &acc.buf); left[walked] < theta*(1-1e-9) {
				break
			}
		}
		i := order[walked]
		t := q.terms[i]
		w := q.weights[i]
		ps := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
		if len(ps) < impactWalkMin {
			stats.postingsRead.Add(int64(len(ps)))
			for _, p := range ps {
				if in == nil || in(p.slot) {
					add(p.slot, r.contribution(w, p.head, p.body, ix.lengths[p.slot]))
				}
			}
			continue
		}
		byImpact := ix.impactOrder(r, t)
		next := 2 * m // where the m-th score is looked at next
		stopped := -1
		for at, p := range byImpact {
			share := r.contribution(w, p.head, p.body, ix.lengths[p.slot])
			if at == next {
				next *= 2
				if len(acc.touched) >= m {
					theta = kthScore(acc.scores, acc.touched, m, theta, &acc.buf)
					if bound := share*(1+1e-9) + left[walked+1]; bound < theta {
						stopped = at
						break
					}
				}
			}
			if in == nil || in(p.slot) {
				add(p.slot, share)
			}
		}
		if stopped < 0 {
			stats.postingsRead.Add(int64(len(byImpact)))
			continue
		}
		stats.postingsRead.Add(int64(stopped))
		stats.stoppedInside.Add(1)
		partial, rest = walked, byImpact[stopped:]
		p := rest[0]
		restBound = r.contribution(w, p.head, p.body, ix.lengths[p.slot]) * (1 + 1e-9)
		walked++
		break
	}
	// What is left to add: the term walked in part, then the unread ones; more[k] is the most
	// the steps from k on can add to a chunk.
	steps := order[walked:]
	more := left[walked:]
	if partial >= 0 {
		steps = order[partial:]
		more = slices.Clone(left[partial:])
		more[0] = more[1] + restBound
	}
	// The chunks that can still reach the m-th score: with every term added, those at or
	// above it (scores summed in another order may differ in the last bits, hence the margin,
	// which the bounds of the terms left get too).
	// Otherwise those that the terms left could lift to it; each term's share is then added
	// to them, and the m-th score rises as it goes, until the last.
	alive := append(acc.alive[:0], acc.touched...)
	for k := 0; ; k++ {
		theta = kthScore(acc.scores, alive, m, theta, &acc.buf)
		cut := theta * (1 - 1e-9)
		alive = slices.DeleteFunc(alive, func(slot int32) bool {
			if acc.scores[slot]+more[k] < cut {
				acc.scores[slot] = -1 // out: no posting adds to it
				return true
			}
			return false
		})
		if k == len(steps) {
			break
		}
		stats.prunedTN.Add(1)
		i := steps[k]
		t := q.terms[i]
		w := q.weights[i]
		ps := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
		inPart := k == 0 && partial >= 0
		if inPart {
			ps = rest
		}
		// A term's share is added from its postings unless they are many times more than the
		// chunks left (postingsWalkRatio).
		if len(ps) < postingsWalkRatio*len(alive) {
			for _, p := range ps {
				if acc.scores[p.slot] > 0 {
					acc.scores[p.slot] += r.contribution(w, p.head, p.body, ix.lengths[p.slot])
				}
			}
			continue
		}
		stats.lookedUp.Add(1)
		for _, slot := range alive {
			c := &ix.chunks[slot]
			e, ok := ix.entry(c, t)
			if !ok {
				continue
			}
			// Of the term walked in part, only the postings not walked are added.
			if inPart && !impactAfter(r, lexPosting{slot, e.head, e.body}, c.length, rest[0], ix.lengths[rest[0].slot]) {
				continue
			}
			acc.scores[slot] += r.contribution(w, e.head, e.body, c.length)
		}
	}
	acc.alive = alive
	// Every chunk left is scored whole, in the query's order, so that its score does not
	// depend on the order the terms were walked in.
	out := make([]scoredSlot, len(alive))
	for i, slot := range alive {
		out[i] = scoredSlot{slot: slot, score: r.scoreChunk(ix, &ix.chunks[slot], q)}
	}
	slices.SortFunc(out, better)
	return out[:min(len(out), m)]
}

// postingsWalkRatio: an unread term's share is added from its postings when they are fewer
// than this many times the chunks left, else looked up in each chunk's entries. A walk through
// postings is sequential, a lookup is a search in memory far from the last one; 32 was the
// fastest of 8–128 on BenchmarkHybridQuery100kCommonTerms. A variable for the tests.
var postingsWalkRatio = 32

// impactWalkMin is the number of postings from which a term is walked in impact order (a
// variable for the tests).
var impactWalkMin = 2048

// impact is a posting's share of a chunk's score per unit of query weight: the order of a
// term's postings by impact is the same for every query.
func (r ranker) impact(p lexPosting, length int32) float64 {
	return r.contribution(1, p.head, p.body, length)
}

// impactAfter reports whether posting p comes at or after posting at in impact order (share
// down, then slot up).
func impactAfter(r ranker, p lexPosting, pLength int32, at lexPosting, atLength int32) bool {
	a, b := r.impact(p, pLength), r.impact(at, atLength)
	return a < b || a == b && p.slot >= at.slot
}

// impactOrder returns a term's postings by impact, largest first (then by slot), kept with
// the index for the ranker that sorted them: sorted by prepareImpacts after the index is read,
// or here on first use.
func (ix *Index) impactOrder(r ranker, t int32) []lexPosting {
	ix.impactMu.Lock()
	if ix.impacts == nil || ix.impactRanker != r {
		ix.impacts, ix.impactRanker = map[int32][]lexPosting{}, r
	}
	ps, ok := ix.impacts[t]
	ix.impactMu.Unlock()
	if ok {
		return ps
	}
	ps = ix.sortByImpact(r, t)
	ix.impactMu.Lock()
	if ix.impactRanker == r {
		ix.impacts[t] = ps
	}
	ix.impactMu.Unlock()
	return ps
}

func (ix *Index) sortByImpact(r ranker, t int32) []lexPosting {
	type keyed struct {
		impact float64
		lexPosting
	}
	postings := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
	ks := make([]keyed, len(postings))
	for i, p := range postings {
		ks[i] = keyed{r.impact(p, ix.lengths[p.slot]), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(b.impact, a.impact), cmp.Compare(a.slot, b.slot))
	})
	out := make([]lexPosting, len(ks))
	for i, k := range ks {
		out[i] = k.lexPosting
	}
	return out
}

// prepareImpacts sorts, most common first, every term that a walk would take in impact
// order, so that searches do not sort them on first use; it runs beside the searches after
// the index is read (0.1–0.2 s at 100,000 chunks) and closes ix.impactsReady when done.
func (ix *Index) prepareImpacts(r ranker, walkMin int) {
	defer close(ix.impactsReady)
	var terms []int32
	for t := range ix.terms {
		if ix.postingsAt[t+1]-ix.postingsAt[t] >= int32(walkMin) {
			terms = append(terms, int32(t))
		}
	}
	df := func(t int32) int32 { return ix.postingsAt[t+1] - ix.postingsAt[t] }
	slices.SortFunc(terms, func(a, b int32) int { return cmp.Compare(df(b), df(a)) })
	for _, t := range terms {
		if ix.replaced.Load() { // a write came: the new index sorts its own
			return
		}
		ix.impactOrder(r, t)
	}
}

// entry finds a term among the chunk's entries.
func (ix *Index) entry(c *lexChunk, term int32) (lexEntry, bool) {
	lo, hi := c.lo, c.hi
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if ix.entries[mid].term < term {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < c.hi && ix.entries[lo].term == term {
		return ix.entries[lo], true
	}
	return lexEntry{}, false
}

// lexAccumulator is a search's scratch space: a partial score per chunk, all zero between
// searches, the chunks touched, and buffers.
type lexAccumulator struct {
	scores, buf    []float64
	touched, alive []int32
	order          []int
	rel            []float64 // a weight per term, for the feedback (expand)
	met            []int32   // the terms whose rel is set
}

func (ix *Index) accumulator() *lexAccumulator {
	if a, ok := ix.accumulators.Get().(*lexAccumulator); ok {
		return a
	}
	return &lexAccumulator{scores: make([]float64, len(ix.chunks))}
}

// release zeroes the scores the search touched and hands the accumulator back.
func (ix *Index) release(acc *lexAccumulator) {
	for _, slot := range acc.touched {
		acc.scores[slot] = 0
	}
	acc.touched = acc.touched[:0]
	ix.accumulators.Put(acc)
}

// kthScore is the m-th largest score of the given chunks (0 with fewer than m). floor is a
// score known to be at or below it (an earlier m-th score, as scores only grow): only the
// scores at or above it are selected from. buf is scratch space.
func kthScore(scores []float64, slots []int32, m int, floor float64, buf *[]float64) float64 {
	if len(slots) < m || m <= 0 {
		return 0
	}
	s := (*buf)[:0]
	for _, slot := range slots {
		if v := scores[slot]; v >= floor {
			s = append(s, v)
		}
	}
	*buf = s
	if len(s) < m { // not a floor after all: select from every score
		if floor <= 0 {
			return 0
		}
		return kthScore(scores, slots, m, 0, buf)
	}
	return quickselect(s, m-1)
}

// quickselect returns the element that would be at position k if s were sorted descending.
func quickselect(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		p := s[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for s[i] > p {
				i++
			}
			for s[j] < p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

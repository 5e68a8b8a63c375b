package lexical

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// BM25's b from the collection's lengths. A fixed b suits one length distribution: on
// Cranfield and CISI (abstracts of similar length) b 0.75–0.9 ranks best, on CACM (a quarter
// of its records hold only a title and authors) 0.3–0.4, because dividing by a short length
// lifts every term of those stubs. After He and Ounis ("Term frequency normalisation tuning
// for BM25 and DFR models", ECIR 2005), b is instead chosen so that the normalised term
// frequencies tf / (1 − b + b·length/avg), over every (term, chunk) pair of the index (words,
// not numbers), correlate with the chunks' lengths by a fixed amount: a collection-independent
// target chosen across the test collections (docs/retrieval.md), from which each collection
// derives its own b.

// AutoB as Params.B derives b from the chunks' lengths for Params.LengthCorrelation.
const AutoB = -1.0

// DefaultLengthCorrelation is the target b is derived from, chosen across Cranfield, CISI and
// CACM (docs/retrieval.md): it gives b 0.74 on Cranfield, 0.67 on CISI and 0.35 on CACM
// (heading weight 2).
const DefaultLengthCorrelation = -0.3

// lengthProfile sums, per distinct chunk length, what the correlation needs: the number of
// (term, chunk) pairs and the sums of their frequencies and squared frequencies (heading
// occurrences weighted). The correlation at any b is then a pass over the distinct lengths.
type lengthProfile struct {
	avg   float64
	stats []lengthStat
}

type lengthStat struct {
	length, pairs, sum, sumSq float64
}

// correlation is the Pearson correlation, over every (term, chunk) pair, of the chunk's length
// and the term's normalised frequency at b.
func (lp lengthProfile) correlation(b float64) float64 {
	var n, sx, sxx, sy, syy, sxy float64
	for _, s := range lp.stats {
		norm := 1 - b + b*s.length/lp.avg
		n += s.pairs
		sx += s.pairs * s.length
		sxx += s.pairs * s.length * s.length
		sy += s.sum / norm
		syy += s.sumSq / (norm * norm)
		sxy += s.length * s.sum / norm
	}
	if n == 0 {
		return 0
	}
	vx, vy := sxx/n-sx/n*sx/n, syy/n-sy/n*sy/n
	if vx <= 0 || vy <= 0 {
		return 0
	}
	return (sxy/n - sx/n*sy/n) / math.Sqrt(vx*vy)
}

// b returns the b at which the correlation is target: it falls as b rises (dividing by
// length turns a long chunk's extra occurrences into less than a short one's), so a bisection
// finds it; the ends of [0, 1] when the target lies beyond them.
func (lp lengthProfile) b(target float64) float64 {
	if len(lp.stats) == 0 {
		return FallbackB
	}
	if lp.correlation(0) <= target {
		return 0
	}
	if lp.correlation(1) >= target {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 30 {
		mid := (lo + hi) / 2
		if lp.correlation(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Rounded, so that the same collection gives the same b to the bit however it was summed.
	return math.Round((lo+hi)/2*1e6) / 1e6
}

// LengthSums are what b is derived from, for chunks of one length, at any heading weight:
// over their (term, chunk) pairs, numbers left out, how many there are and the sums of the
// heading and body occurrences, of their squares and of their products. A backend that cannot
// hold the index keeps them with its records (weaviatekb) and derives the same b (DeriveB).
type LengthSums struct {
	Length                                      int32
	Pairs, Head, Body, HeadSq, HeadBody, BodySq float64
}

// add counts a term found head times in the heading and body times in the body.
func (s *LengthSums) add(head, body float64) {
	s.Pairs++
	s.Head += head
	s.Body += body
	s.HeadSq += head * head
	s.HeadBody += head * body
	s.BodySq += body * body
}

// merge adds the sums of other chunks of the same length.
func (s *LengthSums) merge(o LengthSums) {
	s.Pairs += o.Pairs
	s.Head += o.Head
	s.Body += o.Body
	s.HeadSq += o.HeadSq
	s.HeadBody += o.HeadBody
	s.BodySq += o.BodySq
}

// isNumber tells the terms left out of the profile: their repeats (a table of values, a list
// of citations, page numbers) say nothing of how wordy a text is, and a few long tables of
// them would set b for every chunk (CACM read with its citation tables gets b 1 with them,
// 0.51 without).
func isNumber(term string) bool { return term != "" && term[0] >= '0' && term[0] <= '9' }

// ChunkLengthSums are a chunk's sums from its analysed heading and body terms, as the index
// counts them (occurrences capped as an entry caps them).
func ChunkLengthSums(heading, body string) LengthSums {
	type hb struct{ head, body int }
	counts := map[string]*hb{}
	var order []string
	count := func(text string, inHeading bool) {
		eachTerm(text, func(t string) {
			c, ok := counts[t]
			if !ok {
				c = &hb{}
				counts[t] = c
				order = append(order, t)
			}
			if inHeading {
				c.head = min(c.head+1, math.MaxUint16)
			} else {
				c.body = min(c.body+1, math.MaxUint16)
			}
		})
	}
	count(heading, true)
	count(body, false)
	s := LengthSums{Length: int32(CountTerms(heading) + CountTerms(body))}
	for _, t := range order {
		if !isNumber(t) {
			s.add(float64(counts[t].head), float64(counts[t].body))
		}
	}
	return s
}

// DeriveB is b derived from the sums of every chunk (in any order, several of one length
// allowed) and their average length, as the index in memory derives it.
func DeriveB(sums []LengthSums, avg, headingWeight, target float64) float64 {
	return profileOf(sums, avg, headingWeight).b(target)
}

// MergeLengthSums adds up the sums of chunks of the same length, in the order of the lengths,
// so that the same chunks give the same figures however they came.
func MergeLengthSums(sums []LengthSums) []LengthSums {
	byLength := map[int32]int{}
	var out []LengthSums
	for _, s := range sums {
		if s.Pairs == 0 {
			continue
		}
		i, ok := byLength[s.Length]
		if !ok {
			i = len(out)
			byLength[s.Length] = i
			out = append(out, LengthSums{Length: s.Length})
		}
		out[i].merge(s)
	}
	slices.SortFunc(out, func(a, b LengthSums) int { return cmp.Compare(a.Length, b.Length) })
	return out
}

// profileOf is the length profile of the chunks' sums at a heading weight.
func profileOf(sums []LengthSums, avg, headingWeight float64) lengthProfile {
	lp := lengthProfile{avg: avg}
	hw := headingWeight
	for _, g := range MergeLengthSums(sums) {
		lp.stats = append(lp.stats, lengthStat{length: float64(g.Length), pairs: g.Pairs,
			sum: hw*g.Head + g.Body, sumSq: hw*hw*g.HeadSq + 2*hw*g.HeadBody + g.BodySq})
	}
	return lp
}

// BFromSums is the b p ranks with over chunks of these sums and totals: p.B, or b derived
// from the sums when p.B is below 0, as Index.EffectiveB gives it over the same chunks.
func (p Params) BFromSums(sums []LengthSums, totals Totals) float64 {
	if p.B >= 0 {
		return p.B
	}
	return DeriveB(sums, totals.avgLength(), p.headingWeight(), p.LengthCorrelation)
}

// derivedB caches an index's b per heading weight and target.
type derivedB struct {
	mu sync.Mutex
	bs map[[2]float64]float64
}

// lengthB is b derived from the index's chunk lengths for a heading weight and target.
func (ix *Index) lengthB(headingWeight, target float64) float64 {
	ix.derived.mu.Lock()
	defer ix.derived.mu.Unlock()
	key := [2]float64{headingWeight, target}
	if b, ok := ix.derived.bs[key]; ok {
		return b
	}
	sums := make([]LengthSums, 0, len(ix.chunks))
	for _, c := range ix.chunks {
		cs := LengthSums{Length: c.length}
		for _, e := range ix.entries[c.lo:c.hi] {
			if !isNumber(ix.terms[e.term]) {
				cs.add(float64(e.head), float64(e.body))
			}
		}
		sums = append(sums, cs)
	}
	b := DeriveB(sums, ix.totals.avgLength(), headingWeight, target)
	if ix.derived.bs == nil {
		ix.derived.bs = map[[2]float64]float64{}
	}
	ix.derived.bs[key] = b
	return b
}

// EffectiveB is the b that p ranks with over the index: p.B, or the b derived from the
// chunks' lengths when p.B is below 0.
func (ix *Index) EffectiveB(p Params) float64 { return p.rankerFor(ix).b }

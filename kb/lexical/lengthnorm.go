package lexical

import (
	"math"
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
		return DefaultBM25B
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

// lengthProfiler builds a length profile from chunks one at a time.
type lengthProfiler struct {
	headingWeight float64
	at            map[int32]int
	lp            lengthProfile
}

func newLengthProfiler(headingWeight float64) *lengthProfiler {
	return &lengthProfiler{headingWeight: headingWeight, at: map[int32]int{}}
}

// add counts a chunk of length terms holding a term head times in its heading and body times
// in its body.
func (p *lengthProfiler) add(length int32, head, body float64) {
	i, ok := p.at[length]
	if !ok {
		i = len(p.lp.stats)
		p.at[length] = i
		p.lp.stats = append(p.lp.stats, lengthStat{length: float64(length)})
	}
	tf := p.headingWeight*head + body
	s := &p.lp.stats[i]
	s.pairs++
	s.sum += tf
	s.sumSq += tf * tf
}

func (p *lengthProfiler) profile(avg float64) lengthProfile {
	p.lp.avg = avg
	return p.lp
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
	// Numbers are left out: their repeats (a table of values, a list of citations, page
	// numbers) say nothing of how wordy a text is, and a few long tables of them would set b
	// for every chunk (CACM read with its citation tables gets b 1 with them, 0.51 without).
	number := make([]bool, len(ix.terms))
	for t, term := range ix.terms {
		number[t] = term != "" && term[0] >= '0' && term[0] <= '9'
	}
	p := newLengthProfiler(headingWeight)
	for _, c := range ix.chunks {
		for _, e := range ix.entries[c.lo:c.hi] {
			if !number[e.term] {
				p.add(c.length, float64(e.head), float64(e.body))
			}
		}
	}
	b := p.profile(ix.totals.avgLength()).b(target)
	if ix.derived.bs == nil {
		ix.derived.bs = map[[2]float64]float64{}
	}
	ix.derived.bs[key] = b
	return b
}

// EffectiveB is the b that p ranks with over the index: p.B, or the b derived from the
// chunks' lengths when p.B is below 0.
func (ix *Index) EffectiveB(p Params) float64 { return p.rankerFor(ix).b }

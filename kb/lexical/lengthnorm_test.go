package lexical

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"warren/kb/chunk"
)

// The length profile's correlation is the Pearson correlation over every (term, chunk) pair,
// computed the long way.
func TestLengthProfileCorrelatesAsThePairsDo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, 200)
	ix, _ := buildIndex("t", zipfChunks(r, z, 20, 10, 30, "c"))
	const hw = 2.0
	avg := ix.totals.avgLength()
	for _, b := range []float64{0, 0.3, 0.75, 1} {
		var xs, ys []float64
		for _, c := range ix.chunks {
			for _, e := range ix.entries[c.lo:c.hi] {
				xs = append(xs, float64(c.length))
				ys = append(ys, (hw*float64(e.head)+float64(e.body))/(1-b+b*float64(c.length)/avg))
			}
		}
		want := pearson(xs, ys)
		var sums []LengthSums
		for _, c := range ix.chunks {
			s := LengthSums{Length: c.length}
			for _, e := range ix.entries[c.lo:c.hi] {
				s.add(float64(e.head), float64(e.body))
			}
			sums = append(sums, s)
		}
		if got := profileOf(sums, avg, hw).correlation(b); math.Abs(got-want) > 1e-9 {
			t.Errorf("b %g: correlation %v, want %v", b, got, want)
		}
	}
}

func pearson(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, syy, sxy float64
	for i := range xs {
		sx, sy = sx+xs[i], sy+ys[i]
		sxx, syy, sxy = sxx+xs[i]*xs[i], syy+ys[i]*ys[i], sxy+xs[i]*ys[i]
	}
	return (sxy/n - sx/n*sy/n) / math.Sqrt((sxx/n-sx/n*sx/n)*(syy/n-sy/n*sy/n))
}

// b follows the lengths: a collection in which a quarter of the chunks are stubs of a few
// words (as CACM's records without an abstract) gets a smaller b than one of chunks of like
// length, because dividing by a stub's length would lift all of its words; and the b found
// gives the target correlation.
func TestBFollowsTheLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.1, 2, 50_000) // a vocabulary where most words of a chunk are once in it
	// Abstracts of 30 to 150 words, as Cranfield's; then a quarter of them cut to four.
	var even, stubby []chunk.Chunk
	for i, c := range zipfChunks(r, z, 20, 10, 150, "c") {
		c.Text = strings.Join(strings.Fields(c.Text)[:30+r.IntN(121)], " ")
		even = append(even, c)
		if i%4 == 0 {
			c.Text = strings.Join(strings.Fields(c.Text)[:4], " ")
		}
		stubby = append(stubby, c)
	}
	p := DefaultParams()
	p.B = AutoB
	bOf := func(chunks []chunk.Chunk) float64 {
		ix, _ := buildIndex(fmt.Sprint(len(chunks)), chunks)
		b := ix.EffectiveB(p)
		if b <= 0 || b >= 1 {
			t.Fatalf("b %v at the end of its range", b)
		}
		var sums []LengthSums
		for _, c := range ix.chunks {
			s := LengthSums{Length: c.length}
			for _, e := range ix.entries[c.lo:c.hi] {
				if term := ix.terms[e.term]; term[0] < '0' || term[0] > '9' { // the section numbers
					s.add(float64(e.head), float64(e.body))
				}
			}
			sums = append(sums, s)
		}
		if got := profileOf(sums, ix.totals.avgLength(), p.headingWeight()).correlation(b); math.Abs(got-p.LengthCorrelation) > 1e-4 {
			t.Errorf("at b %v the correlation is %v, want %v", b, got, p.LengthCorrelation)
		}
		return b
	}
	e, s := bOf(even), bOf(stubby)
	t.Logf("b %.3f for abstracts, %.3f with stubs", e, s)
	if s >= e {
		t.Errorf("b %v with stubs, %v without: stubs must lower it", s, e)
	}
	// A fixed b is taken as it is.
	ix, _ := buildIndex("fixed", even)
	p.B = 0.4
	if b := ix.EffectiveB(p); b != 0.4 {
		t.Errorf("fixed b 0.4 ranks with %v", b)
	}
}

// Numbers do not set b: long chunks that end in tables of repeated numbers (as CACM's
// citation tables, or a data sheet's values) would otherwise make term frequencies grow with
// length and drive b to 1.
func TestNumbersDoNotSetB(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(r, 1.1, 2, 50_000)
	var plain, tables []chunk.Chunk
	for i, c := range zipfChunks(r, z, 20, 10, 150, "c") {
		c.Text = strings.Join(strings.Fields(c.Text)[:30+r.IntN(121)], " ")
		plain = append(plain, c)
		if i%3 == 0 {
			rows := make([]string, 20+r.IntN(40))
			for j := range rows {
				rows[j] = fmt.Sprintf("%d 5 %d", 1000+i, 1000+r.IntN(3000))
			}
			c.Text += " " + strings.Join(rows, " ")
		}
		tables = append(tables, c)
	}
	p := DefaultParams()
	bOf := func(chunks []chunk.Chunk) float64 {
		ix, _ := buildIndex(fmt.Sprint("n", len(chunks), chunks[0].Text), chunks)
		return ix.EffectiveB(p)
	}
	bp, bt := bOf(plain), bOf(tables)
	t.Logf("b %.3f without tables, %.3f with", bp, bt)
	if bt >= 0.95 || math.Abs(bt-bp) > 0.2 {
		t.Errorf("tables of numbers moved b from %.3f to %.3f", bp, bt)
	}
}

// A backend that keeps each chunk's sums (ChunkLengthSums, from the terms it stores) derives
// the b the index derives, in whatever order the chunks come.
func TestChunkSumsDeriveTheIndexsB(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	z := rand.NewZipf(r, 1.1, 2, 5_000)
	chunks := zipfChunks(r, z, 20, 10, 150, "c")
	for i := range chunks {
		if i%4 == 0 {
			chunks[i].Text = strings.Join(strings.Fields(chunks[i].Text)[:3], " ") + " 42 42 42"
		}
	}
	ix, _ := buildIndex("sums", chunks)
	p := DefaultParams()
	want := ix.EffectiveB(p)
	var sums []LengthSums
	for _, c := range chunks {
		heading, body := IndexedTerms(c, "en")
		sums = append(sums, ChunkLengthSums(heading, body))
	}
	r.Shuffle(len(sums), func(i, j int) { sums[i], sums[j] = sums[j], sums[i] })
	if got := DeriveB(sums, ix.totals.avgLength(), p.headingWeight(), p.LengthCorrelation); got != want {
		t.Errorf("b from the chunks' sums %v, the index's %v", got, want)
	}
	if want <= 0 || want >= 1 {
		t.Errorf("b %v at the end of its range: the test says nothing", want)
	}
}

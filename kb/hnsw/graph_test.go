package hnsw

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// clustered returns n unit vectors of dim dimensions around n/20 centres.
func clustered(r *rand.Rand, n, dim int) []float32 {
	centres := make([][]float32, max(1, n/20))
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
		normalise(centres[i])
	}
	data := make([]float32, 0, n*dim)
	for range n {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(r.NormFloat64()*0.5/math.Sqrt(float64(dim)))
		}
		normalise(v)
		data = append(data, v...)
	}
	return data
}

func normalise(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) / s)
	}
}

func exact(data, q []float32, dim, k int, skip func(uint32) bool) []uint32 {
	type hit struct {
		id uint32
		d  float32
	}
	var hits []hit
	for i := 0; i*dim < len(data); i++ {
		if skip != nil && skip(uint32(i)) {
			continue
		}
		hits = append(hits, hit{uint32(i), distance(q, data[i*dim:(i+1)*dim])})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d < b.d {
			return -1
		}
		if a.d > b.d {
			return 1
		}
		return 0
	})
	out := make([]uint32, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.id)
	}
	return out
}

// storeEf is the search width kb's vector store uses (kb.indexEf): recall is asserted at it.
const storeEf = 160

func recall(t *testing.T, g *Graph, data []float32, dim int, r *rand.Rand, skip func(uint32) bool) float64 {
	t.Helper()
	queries := clustered(r, 50, dim)
	var found, total int
	for i := range 50 {
		q := queries[i*dim : (i+1)*dim]
		want := exact(data, q, dim, 10, skip)
		got := g.Search(data, q, 10, storeEf, skip)
		for _, h := range got {
			if skip != nil && skip(h.ID) {
				t.Fatalf("search returned skipped node %d", h.ID)
			}
			if slices.Contains(want, h.ID) {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name    string
		n, dim  int
		workers int
	}{
		{"sequential", 3000, 32, 1},
		{"parallel", 6000, 48, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			data := clustered(r, tt.n, tt.dim)
			g := New(tt.dim, Parameters{Seed: 1})
			g.Build(data, tt.n, tt.workers)
			if g.Len() != tt.n {
				t.Fatalf("Len = %d, want %d", g.Len(), tt.n)
			}
			if rc := recall(t, g, data, tt.dim, r, nil); rc < 0.95 {
				t.Errorf("recall@10 = %.3f, want ≥ 0.95", rc)
			}
		})
	}
}

func TestAddSkipAndRoundTrip(t *testing.T) {
	const dim = 24
	r := rand.New(rand.NewPCG(3, 4))
	data := clustered(r, 4000, dim)
	g := New(dim, Parameters{Seed: 2})
	g.Add(data, 3000)
	g.Add(data, 4000) // the rows appended later are found too
	skip := func(id uint32) bool { return id%3 == 0 }
	if rc := recall(t, g, data, dim, r, skip); rc < 0.95 {
		t.Errorf("recall@10 with skipped nodes = %.3f", rc)
	}

	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	words, err := ReadWords(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Decode(words)
	if err != nil {
		t.Fatal(err)
	}
	q := data[:dim]
	if a, b := g.Search(data, q, 10, 64, nil), h.Search(data, q, 10, 64, nil); !slices.Equal(a, b) {
		t.Errorf("decoded graph answers %v, the original %v", b, a)
	}
	h.Add(append(data, clustered(r, 10, dim)...), 4010) // a decoded graph grows
	if h.Len() != 4010 {
		t.Errorf("Len after Add = %d", h.Len())
	}

	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { b[40] ^= 1; return b },
		func(b []byte) []byte { return b[:len(b)-8] },
	} {
		b := damage(append([]byte(nil), buf.Bytes()...))
		words, err := ReadWords(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			_, err = Decode(words)
		}
		if err == nil {
			t.Error("a damaged graph was decoded")
		}
	}
}

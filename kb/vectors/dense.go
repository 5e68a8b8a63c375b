package vectors

import (
	"fmt"
	"sort"

	"warren/kb/chunk"
)

// DimError is a query vector of another length than a collection's vectors: the collection
// was built by another embedder (the store reports it as such).
type DimError struct {
	Collection string
	Dim        int // the collection's
	Asked      int // the query's
}

func (e *DimError) Error() string {
	return fmt.Sprintf("collection %s holds vectors of length %d, not %d", e.Collection, e.Dim, e.Asked)
}

// Nearest ranks the chunks of the named collections by cosine similarity to vector and keeps
// the best k, through each collection's graph when it has one, else by an exact scan. A
// collection whose vectors have another length is a *DimError; one not loaded or empty is
// skipped.
func (vs *Store) Nearest(vector []float32, names []string, k int) ([]chunk.Hit, error) {
	q := appendNormalised(make([]float32, 0, len(vector)), vector)
	var hits []chunk.Hit
	for _, name := range names {
		c := vs.get(name)
		if c == nil {
			continue
		}
		h, dim := c.search(q, k, false)
		if dim == 0 {
			continue // no vectors
		}
		if dim != len(vector) {
			return nil, &DimError{Collection: name, Dim: dim, Asked: len(vector)}
		}
		hits = append(hits, h...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// Similarities gives the cosine similarity of vector to each of the chunks ids that one of the
// named collections holds live, as Nearest scores them. Chunks not found, and collections whose
// vectors have another length, are left out.
func (vs *Store) Similarities(vector []float32, names, ids []string) map[string]float64 {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out
	}
	q := appendNormalised(make([]float32, 0, len(vector)), vector)
	for _, name := range names {
		if c := vs.get(name); c != nil {
			c.similarities(q, ids, out)
		}
	}
	return out
}

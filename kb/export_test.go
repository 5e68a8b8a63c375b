package kb

import (
	"context"
	"fmt"

	"warren/kb/chunk"
	"warren/kb/vectors"
)

// VectorStats returns the store's vector counters (zero before its vectors are loaded).
func (s *Store) VectorStats() vectors.Stats {
	if vs := s.loadedVectors(); vs != nil {
		return vs.Stats()
	}
	return vectors.Stats{}
}

// ExactDense searches one collection by exact scan, whatever its size: the ground truth an
// index search is measured against.
func (s *Store) ExactDense(ctx context.Context, vector []float32, collection string, k int) ([]chunk.Hit, error) {
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	c := vs.Collection(collection)
	if c == nil {
		return nil, fmt.Errorf("no collection %s", collection)
	}
	return c.Exact(vector, k), nil
}

// WaitLexicalIndexReady waits until the lexical index in memory has sorted its common terms'
// postings by impact (prepareImpacts), so that a benchmark times searches, not that sorting.
func (s *Store) WaitLexicalIndexReady() { s.lexical.WaitReady() }

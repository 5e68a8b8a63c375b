package kb

import (
	"context"
	"fmt"

	"warren/kb/vectors"
)

// vectorStore returns the vectors in memory (package kb/vectors), loading every collection on
// first use.
func (s *Store) vectorStore(ctx context.Context) (*vectors.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vectors != nil {
		return s.vectors, nil
	}
	vs, err := vectors.Open(ctx, s.vdir, vectorSource{s})
	if err != nil {
		return nil, err
	}
	s.vectors = vs
	return vs, nil
}

// BeginBulk tells the vectors in memory that many documents are about to be written (see
// vectors.Store.Bulk); end it before saving them.
func (s *Store) BeginBulk() (end func()) {
	if vs := s.loadedVectors(); vs != nil {
		return vs.Bulk()
	}
	return func() {}
}

// loadedVectors returns the vectors in memory, nil when no one has loaded them.
func (s *Store) loadedVectors() *vectors.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vectors
}

// vectorSource is warren.db as the vectors read it.
type vectorSource struct{ s *Store }

func (v vectorSource) Heads(ctx context.Context) ([]vectors.Head, error) {
	cols, err := v.s.collectionHeads(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]vectors.Head, len(cols))
	for i, c := range cols {
		out[i] = vectors.Head{Name: c.Name, Embedder: c.Embedder, Dim: c.Dim, Generation: c.Generation}
	}
	return out, nil
}

func (v vectorSource) Rows(ctx context.Context, collection string, add func(id string, v []float32) error) error {
	rows, err := v.s.db.QueryContext(ctx, `SELECT id, vector FROM chunks WHERE collection = ? ORDER BY rowid`, collection)
	if err != nil {
		return fmt.Errorf("couldn't read the vectors of %s: %w", collection, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		if err := add(id, decodeVector(blob)); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SaveVectors brings the vector files up to date with memory (vectors.Store.Save). A store
// that wrote without loading its vectors loads them now (from warren.db where the files are
// behind), so that the files it leaves are current.
func (s *Store) SaveVectors(ctx context.Context) error {
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return err
	}
	return vs.Save(ctx)
}

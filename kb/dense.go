package kb

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"warren/kb/chunk"
	"warren/kb/vectors"
)

// Dense ranks chunks by cosine similarity to a query vector. Searches within a document are
// exact over that document's vectors; wider ones go to each collection in scope, through its
// HNSW graph when it has one (package kb/vectors), else by an exact scan. A collection whose
// vectors have another length than the query's is an *EmbedderMismatchError (errors.Is
// ErrEmbedderChanged).
func (s *Store) Dense(ctx context.Context, vector []float32, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if scope.Doc != "" {
		return s.denseInDocument(ctx, vector, scope, k)
	}
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	// Another process may have written since the vectors were loaded.
	cols, err := vs.Fresh(ctx, scope.Collections)
	if err != nil {
		return nil, err
	}
	names := scope.Collections
	if len(names) == 0 {
		for _, c := range cols { // sorted by name: a mismatch names the same collection every time
			names = append(names, c.Name)
		}
	}
	hits, err := vs.Nearest(vector, names, k)
	var dim *vectors.DimError
	if errors.As(err, &dim) {
		mismatch := &EmbedderMismatchError{Collection: dim.Collection, BuiltDim: dim.Dim, AskedDim: dim.Asked}
		for _, c := range cols {
			if c.Name == dim.Collection {
				mismatch.Built = c.Embedder
			}
		}
		return nil, mismatch
	}
	return hits, err
}

func (s *Store) denseInDocument(ctx context.Context, vector []float32, scope chunk.Scope, k int) ([]chunk.Hit, error) {
	where, args := scopeSQL(scope)
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.collection, c.vector FROM chunks c WHERE 1 = 1`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the vectors of %s: %w", scope.Doc, err)
	}
	defer rows.Close()
	var hits []chunk.Hit
	for rows.Next() {
		var id, collection string
		var blob []byte
		if err := rows.Scan(&id, &collection, &blob); err != nil {
			return nil, err
		}
		v := decodeVector(blob)
		if len(v) != len(vector) {
			rows.Close()
			mismatch := &EmbedderMismatchError{Collection: collection, BuiltDim: len(v), AskedDim: len(vector)}
			if c, ok, err := s.Collection(ctx, collection); err == nil && ok {
				mismatch.Built = c.Embedder
			}
			return nil, mismatch
		}
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(vector[i])
		}
		hits = append(hits, chunk.Hit{ChunkID: id, Score: dot})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, rows.Err()
}

// Similarities gives the cosine similarity of a query vector to each of the chunks ids that a
// collection in scope holds (all collections when scope names none), as Dense scores them,
// without ranking the collections: hybrid search scores every lexical candidate on the dense
// side too, not only those among the dense ranking's best. Chunks not found, and collections
// whose vectors have another length than the query's, are left out.
func (s *Store) Similarities(ctx context.Context, vector []float32, scope chunk.Scope, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	cols, err := vs.Fresh(ctx, scope.Collections)
	if err != nil {
		return nil, err
	}
	names := scope.Collections
	if len(names) == 0 {
		for _, c := range cols {
			names = append(names, c.Name)
		}
	}
	return vs.Similarities(vector, names, ids), nil
}

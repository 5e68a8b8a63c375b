package kb

import (
	"context"
	"fmt"
	"sort"
)

// Dense ranks chunks by cosine similarity to a query vector. Searches within a document are
// exact over that document's vectors; wider ones go to each collection's vector index. A
// collection whose vectors have another length than the query's is an
// *EmbedderMismatchError (errors.Is ErrEmbedderChanged).
func (s *Store) Dense(ctx context.Context, vector []float32, scope Scope, k int) ([]Hit, error) {
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
	cols, err := vs.fresh(ctx, s, scope.Collections)
	if err != nil {
		return nil, err
	}
	infos := make(map[string]CollectionInfo, len(cols))
	for _, c := range cols {
		infos[c.Name] = c
	}
	names := scope.Collections
	if len(names) == 0 {
		for name := range vs.db.ListCollections() {
			names = append(names, name)
		}
		sort.Strings(names) // a mismatch names the same collection every time
	}
	var hits []Hit
	for _, name := range names {
		col := vs.db.GetCollection(name, refuseEmbedding)
		if col == nil || col.Count() == 0 {
			continue
		}
		// chromem-go would only say "vectors must have the same length".
		if c := infos[name]; c.Dim > 0 && c.Dim != len(vector) {
			return nil, &EmbedderMismatchError{Collection: name, Built: c.Embedder, BuiltDim: c.Dim, AskedDim: len(vector)}
		}
		// chromem-go refuses nResults above the collection size.
		res, err := col.QueryEmbedding(ctx, vector, min(k, col.Count()), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("couldn't search the vectors of %s: %w", name, err)
		}
		for _, r := range res {
			hits = append(hits, Hit{ChunkID: r.ID, Score: float64(r.Similarity)})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

func (s *Store) denseInDocument(ctx context.Context, vector []float32, scope Scope, k int) ([]Hit, error) {
	where, args := scopeSQL(scope)
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.collection, c.vector FROM chunks c WHERE 1 = 1`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the vectors of %s: %w", scope.Doc, err)
	}
	defer rows.Close()
	var hits []Hit
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
		hits = append(hits, Hit{ChunkID: id, Score: dot})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, rows.Err()
}

package kb

import (
	"context"

	chromem "github.com/philippgille/chromem-go"
)

// VectorCollection exposes a collection's chromem-go index to the external benchmarks, which
// compare warren's search with a bare chromem-go query on the same data.
func (s *Store) VectorCollection(ctx context.Context, name string) (*chromem.Collection, error) {
	vs, err := s.vectorStore(ctx)
	if err != nil {
		return nil, err
	}
	return vs.db.GetCollection(name, refuseEmbedding), nil
}

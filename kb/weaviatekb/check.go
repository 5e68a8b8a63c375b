package weaviatekb

import (
	"context"
	"fmt"
	"slices"

	"github.com/weaviate/weaviate/entities/models"
)

// CheckSchema compares the server's classes under the backend's prefix with the schema warren
// creates, and each collection's stored vectors with the length it recorded. It returns one
// line per problem (none: all is as warren needs it), or an error when the server cannot be
// read.
func (b *Backend) CheckSchema(ctx context.Context) ([]string, error) {
	s, err := b.client.Schema().Getter().Do(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't read Weaviate's schema: %w", err)
	}
	have := map[string]*models.Class{}
	for _, c := range s.Classes {
		have[c.Class] = c
	}
	cols, err := b.collections(ctx)
	if err != nil {
		return nil, err
	}
	want := []*models.Class{b.collectionSchema(), b.documentSchema()}
	for _, c := range cols {
		want = append(want, b.chunkSchema(c.Name))
	}
	var problems []string
	for _, w := range want {
		got, ok := have[w.Class]
		if !ok {
			problems = append(problems, fmt.Sprintf("class %s is missing", w.Class))
			continue
		}
		problems = append(problems, classProblems(w, got)...)
	}
	for _, c := range cols {
		class := b.chunkClass(c.Name)
		if c.Dim == 0 || have[class] == nil {
			continue
		}
		var data struct {
			Get map[string][]chunkObject
		}
		if err := b.graphQL(ctx, fmt.Sprintf(`{ Get { %s(limit: 1) { chunk_id _additional { vector } } } }`, class), &data); err != nil {
			return nil, err
		}
		if got := data.Get[class]; len(got) > 0 && len(got[0].Additional.Vector) != c.Dim {
			problems = append(problems, fmt.Sprintf("collection %s records %d dims but stores vectors of %d", c.Name, c.Dim, len(got[0].Additional.Vector)))
		}
	}
	return problems, nil
}

// classProblems lists how a class differs from the one warren would create.
func classProblems(want, got *models.Class) []string {
	var out []string
	if got.Vectorizer != "none" {
		out = append(out, fmt.Sprintf("class %s has vectorizer %q: warren sends its own vectors and needs \"none\"", got.Class, got.Vectorizer))
	}
	if cfg, ok := want.VectorIndexConfig.(map[string]any); ok {
		if gcfg, ok := got.VectorIndexConfig.(map[string]any); !ok || gcfg["distance"] != cfg["distance"] {
			out = append(out, fmt.Sprintf("class %s does not measure cosine distance", got.Class))
		}
	}
	props := map[string]*models.Property{}
	for _, p := range got.Properties {
		props[p.Name] = p
	}
	for _, w := range want.Properties {
		g, ok := props[w.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("class %s lacks property %s", got.Class, w.Name))
		case !slices.Equal(g.DataType, w.DataType):
			out = append(out, fmt.Sprintf("class %s: property %s is %v, warren writes %v", got.Class, w.Name, g.DataType, w.DataType))
		case w.Tokenization != "" && g.Tokenization != w.Tokenization:
			out = append(out, fmt.Sprintf("class %s: property %s is tokenized %q, warren needs %q", got.Class, w.Name, g.Tokenization, w.Tokenization))
		}
	}
	return out
}

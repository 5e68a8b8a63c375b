package kb

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"warren/kb/analysis"
)

// Embedder turns texts into vectors. A collection records the ID of the embedder that built
// it, and searching or adding to it with another embedder is refused.
type Embedder interface {
	ID() string
	Embed(ctx context.Context, texts []string, progress func(done int)) ([][]float32, error)
}

// BuiltinDim is the dimension of the built-in embedder.
const BuiltinDim = 512

// Builtin is a deterministic embedder that needs no model: hashed word features and hashed
// character n-grams of each word, with sublinear term frequency, L2-normalised. The n-grams
// let "Gefährdungsbeurteilung" and "Gefährdungsbeurteilungen" or "purge" and "purging" land
// close together in any language.
type Builtin struct{}

// ID names the feature scheme and dimension; change it whenever the features change.
func (Builtin) ID() string { return fmt.Sprintf("builtin:hash-v1:%d", BuiltinDim) }

// Embed embeds every text.
func (b Builtin) Embed(ctx context.Context, texts []string, progress func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = BuiltinVector(t)
		if progress != nil && (i%64 == 63 || i == len(texts)-1) {
			progress(i + 1)
		}
	}
	return out, nil
}

// BuiltinVector embeds one text with the built-in scheme.
func BuiltinVector(text string) []float32 {
	counts := map[string]float64{}
	for _, tok := range analysis.Tokens(text) {
		w := analysis.Fold(tok)
		counts["w:"+w]++
		if len(w) > 3 {
			padded := "^" + w + "$"
			for n := 3; n <= 4; n++ {
				for i := 0; i+n <= len(padded); i++ {
					counts[fmt.Sprintf("%d:%s", n, padded[i:i+n])] += 0.5 / float64(n-2)
				}
			}
		}
	}
	v := make([]float64, BuiltinDim)
	h := fnv.New64a()
	for feature, tf := range counts {
		h.Reset()
		h.Write([]byte(feature))
		sum := h.Sum64()
		weight := 1 + math.Log(tf)
		if tf < 1 {
			weight = tf
		}
		if sum&1 == 1 {
			weight = -weight
		}
		v[(sum>>1)%BuiltinDim] += weight
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, BuiltinDim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// EmbedFunc embeds texts with a model, calling progress (when not nil) with how many are
// done; the model gateway's EmbedFor gives one. kb takes the function, as chromem-go's store
// takes an embedding function, and so does not depend on the gateway.
type EmbedFunc func(ctx context.Context, texts []string, progress func(done int)) ([][]float32, error)

// Ollama embeds with an Ollama embedding model through an embedding function.
type Ollama struct {
	Model string    // the model, as models.embed.model names it, such as "nomic-embed-text"
	Func  EmbedFunc // embeds with that model: the model gateway's EmbedFor
}

// ID names the embedding model.
func (o Ollama) ID() string { return "ollama:" + o.Model }

// Embed embeds the texts with the model.
func (o Ollama) Embed(ctx context.Context, texts []string, progress func(int)) ([][]float32, error) {
	return o.Func(ctx, texts, progress)
}

// EmbedderFor returns the embedder a collection was built with, so queries are embedded the
// same way. model is the embedder of the configured embedding model (an [Ollama]), nil when no
// Ollama embedder is configured. When warren can no longer embed that way (models.embed.model
// names another model, or the built-in scheme changed) the error is an
// *EmbedderMismatchError; [CollectionInfo.QueryEmbedder] fills in the collection.
func EmbedderFor(id string, model Embedder) (Embedder, error) {
	switch {
	case id == Builtin{}.ID():
		return Builtin{}, nil
	case strings.HasPrefix(id, "builtin:"):
		return nil, &EmbedderMismatchError{Built: id, Asked: Builtin{}.ID(), AskedDim: BuiltinDim}
	case strings.HasPrefix(id, "ollama:"):
		if model == nil {
			return nil, fmt.Errorf("the collection was embedded with %s but no Ollama embed role is configured", EmbedderName(id))
		}
		if !SameEmbedder(id, model.ID()) {
			return nil, &EmbedderMismatchError{Built: id, Asked: model.ID()}
		}
		return model, nil
	}
	return nil, fmt.Errorf("unknown embedder %q recorded for a collection: run `warren ingest --rebuild` on its documents", id)
}

package kb

import (
	"context"
	"errors"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load"
)

func TestEmbedderMismatchMessages(t *testing.T) {
	for _, tc := range []struct {
		err  EmbedderMismatchError
		want string
	}{
		{EmbedderMismatchError{Collection: "sop", Built: "ollama:nomic-embed-text", BuiltDim: 768, Asked: "ollama:all-minilm", AskedDim: 384},
			"collection \"sop\" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm (384 dims): " +
				"run `warren ingest --rebuild` on its documents (or set models.embed.model back to nomic-embed-text)"},
		{EmbedderMismatchError{Collection: "sop", Built: "ollama:nomic-embed-text", BuiltDim: 768, Asked: "ollama:all-minilm"},
			"collection \"sop\" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm: " +
				"run `warren ingest --rebuild` on its documents (or set models.embed.model back to nomic-embed-text)"},
		{EmbedderMismatchError{Collection: "sop", Built: "ollama:nomic-embed-text", BuiltDim: 768, Asked: "ollama:nomic-embed-text:latest", AskedDim: 384},
			"collection \"sop\" was embedded with nomic-embed-text (768 dims) but nomic-embed-text:latest now gives 384 dims: " +
				"run `warren ingest --rebuild` on its documents"},
		{EmbedderMismatchError{Collection: "sop", Built: "ollama:nomic-embed-text", BuiltDim: 768, AskedDim: 384},
			"collection \"sop\" was embedded with nomic-embed-text (768 dims) but the query vector has 384 dims: " +
				"run `warren ingest --rebuild` on its documents"},
		{EmbedderMismatchError{Collection: "notes", Built: "builtin:hash-v0:256", BuiltDim: 256, Asked: Builtin{}.ID(), AskedDim: BuiltinDim},
			"collection \"notes\" was embedded with the built-in embedder hash-v0:256 (256 dims) but warren is set to the built-in embedder (512 dims): " +
				"run `warren ingest --rebuild` on its documents"},
		{EmbedderMismatchError{Built: "ollama:nomic-embed-text", Asked: Builtin{}.ID()},
			"the collection was embedded with nomic-embed-text but warren is set to the built-in embedder: " +
				"run `warren ingest --rebuild` on its documents (or ingest with --embedder ollama and models.embed.model = nomic-embed-text)"},
	} {
		err := error(&tc.err)
		if got := err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
		if !errors.Is(fmtWrap(err), ErrEmbedderChanged) {
			t.Errorf("%v does not match ErrEmbedderChanged when wrapped", err)
		}
	}
}

func fmtWrap(err error) error { return errors.Join(errors.New("couldn't search"), err) }

// fixedEmbedder gives every text the same unit vector of its dimension.
type fixedEmbedder struct {
	id  string
	dim int
}

func (f fixedEmbedder) ID() string { return f.id }

func (f fixedEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, f.dim)
		out[i][0] = 1
	}
	return out, nil
}

// A collection whose record lacks the dimension (dim 0 with vectors stored) is judged by the
// length of its stored vectors, and the record is completed by the next matching write.
func TestRecordWithoutADimensionFallsBackToTheStoredVectors(t *testing.T) {
	ws, store := openTestStore(t)
	ctx := context.Background()
	doc := func(id string) *load.Document {
		return &load.Document{ID: id, Collection: "sop", Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Heading: "Arsine", Text: "Arsine is a highly toxic hydride gas."}}}
	}
	if _, err := store.AddDocument(ctx, doc("a.md"), Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.DB.Exec(`UPDATE collections SET dim = 0`); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := store.Collection(ctx, "sop"); info.Dim != BuiltinDim {
		t.Errorf("dimension from the stored vectors: %d, want %d", info.Dim, BuiltinDim)
	}
	var mismatch *EmbedderMismatchError
	_, err := NewStore(ws).Dense(ctx, make([]float32, 10), chunk.Scope{}, 3)
	if !errors.As(err, &mismatch) || mismatch.BuiltDim != BuiltinDim || mismatch.AskedDim != 10 {
		t.Errorf("search with 10 dims: %v", err)
	}
	_, err = store.AddDocument(ctx, doc("b.md"), fixedEmbedder{id: Builtin{}.ID(), dim: 10}, load.DefaultChunkOptions, nil)
	if !errors.As(err, &mismatch) || mismatch.BuiltDim != BuiltinDim || mismatch.AskedDim != 10 {
		t.Errorf("storing 10-dimension vectors: %v", err)
	}
	if _, err := store.AddDocument(ctx, doc("b.md"), Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	var recorded int
	ws.DB.QueryRow(`SELECT dim FROM collections WHERE name = 'sop'`).Scan(&recorded)
	if recorded != BuiltinDim {
		t.Errorf("recorded dimension after a matching write: %d, want %d", recorded, BuiltinDim)
	}
}

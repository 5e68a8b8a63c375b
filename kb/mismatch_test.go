package kb

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
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

// ollamaEmbedder embeds through the scripted server with the given embed model.
func ollamaEmbedder(t *testing.T, srv *llmtest.Server, model string) Ollama {
	t.Helper()
	c := config.Default()
	c.Ollama.Host = srv.URL
	c.Ollama.BackoffBase = 1e6
	c.Embed.Model = model
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return Ollama{Gateway: g}
}

func TestChangedEmbedModelIsCaughtBeforeVectorsAreCompared(t *testing.T) {
	_, store := openTestStore(t)
	srv := llmtest.New(t)
	dir := t.TempDir()
	write(t, dir, "sop/silane.md", silaneSheet)
	items, _ := CollectItems([]string{filepath.Join(dir, "sop")}, "sop")
	ctx := context.Background()
	if rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: ollamaEmbedder(t, srv, llmtest.EmbedModel)}); err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	info, ok, err := store.Collection(ctx, "sop")
	if err != nil || !ok || info.Embedder != "ollama:nomic-embed-text" || info.Dim != 768 {
		t.Fatalf("the collection records its model and dimension: %+v %v", info, err)
	}

	// The same model spelled with its tag is no change.
	if _, err := info.QueryEmbedder(ollamaEmbedder(t, srv, "nomic-embed-text:latest").Gateway); err != nil {
		t.Errorf("nomic-embed-text:latest is the model the collection was built with: %v", err)
	}

	srv.AddModel(llmtest.Model{Name: "all-minilm", Embedding: true})
	srv.SetDimension(384)
	minilm := ollamaEmbedder(t, srv, "all-minilm")
	_, err = info.QueryEmbedder(minilm.Gateway)
	var mismatch *EmbedderMismatchError
	if !errors.As(err, &mismatch) || mismatch.Collection != "sop" || mismatch.BuiltDim != 768 || mismatch.Asked != "ollama:all-minilm" {
		t.Errorf("want a mismatch naming sop, 768 dims and all-minilm, got %#v", err)
	}

	query := llmtest.Embed("pyrophoric silane", 384)
	for _, scope := range []Scope{{}, {Collections: []string{"sop"}}, {Doc: "sop/silane.md"}} {
		_, err := NewStore(&Workspace{DB: store.db, Dir: filepath.Dir(store.vdir)}).Dense(ctx, query, scope, 3)
		if !errors.As(err, &mismatch) || mismatch.Collection != "sop" || mismatch.BuiltDim != 768 || mismatch.AskedDim != 384 {
			t.Errorf("scope %+v: want a typed mismatch, got %v", scope, err)
		}
		if err != nil && strings.Contains(err.Error(), "same length") {
			t.Errorf("scope %+v: chromem-go's message leaked: %v", scope, err)
		}
	}

	// Adding a document with the new model is refused, naming the fix.
	write(t, dir, "sop/silane.md", silaneSheet+"\nRevised.\n")
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: minilm})
	if err != nil || rep.Failed != 1 || !strings.Contains(rep.Files[0].Reason, "warren is set to all-minilm: run `warren ingest --rebuild`") {
		t.Errorf("want the ingest refused with the rebuild: %+v %v", rep, err)
	}
}

func TestRebuildAfterTheModelChangedItsDimension(t *testing.T) {
	_, store := openTestStore(t)
	srv := llmtest.New(t)
	dir := t.TempDir()
	write(t, dir, "sop/silane.md", silaneSheet)
	write(t, dir, "sop/purge.md", "# Purging\n\nPurge every gas line with nitrogen three times.\n")
	items, _ := CollectItems([]string{filepath.Join(dir, "sop")}, "sop")
	ctx := context.Background()
	emb := ollamaEmbedder(t, srv, llmtest.EmbedModel)
	if rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: emb}); err != nil || rep.Ingested != 2 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	srv.SetDimension(384) // the same name now gives shorter vectors (a re-pulled tag)

	write(t, dir, "sop/silane.md", silaneSheet+"\nRevised.\n")
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: emb})
	if err != nil || rep.Failed != 1 || rep.Unchanged != 1 ||
		!strings.Contains(failedReasons(rep), "nomic-embed-text (768 dims) but nomic-embed-text now gives 384 dims") {
		t.Errorf("want the changed file refused: %+v %v", rep, err)
	}
	if _, err := store.Dense(ctx, llmtest.Embed("silane", 384), Scope{}, 3); !errors.Is(err, ErrEmbedderChanged) {
		t.Errorf("search before the rebuild: want ErrEmbedderChanged, got %v", err)
	}

	rep, err = store.Ingest(ctx, items, IngestOptions{Embedder: emb, Force: true})
	if err != nil || rep.Ingested != 2 {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	if info, _, _ := store.Collection(ctx, "sop"); info.Dim != 384 || info.Documents != 2 {
		t.Errorf("after the rebuild: %+v", info)
	}
	hits, err := store.Dense(ctx, llmtest.Embed("purge nitrogen gas line", 384), Scope{}, 3)
	if err != nil || len(hits) == 0 || !strings.HasPrefix(hits[0].ChunkID, "sop/purge.md#") {
		t.Errorf("search after the rebuild: %+v %v", hits, err)
	}
}

func failedReasons(rep *IngestReport) string {
	var out []string
	for _, f := range rep.Files {
		if f.Status == StatusFailed {
			out = append(out, f.Reason)
		}
	}
	return strings.Join(out, "\n")
}

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
	doc := func(id string) *Document {
		return &Document{ID: id, Collection: "sop", Language: "en", Meta: map[string]string{},
			Sections: []Section{{Heading: "Arsine", Text: "Arsine is a highly toxic hydride gas."}}}
	}
	if _, err := store.AddDocument(ctx, doc("a.md"), Builtin{}, DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.DB.Exec(`UPDATE collections SET dim = 0`); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := store.Collection(ctx, "sop"); info.Dim != BuiltinDim {
		t.Errorf("dimension from the stored vectors: %d, want %d", info.Dim, BuiltinDim)
	}
	var mismatch *EmbedderMismatchError
	_, err := NewStore(ws).Dense(ctx, make([]float32, 10), Scope{}, 3)
	if !errors.As(err, &mismatch) || mismatch.BuiltDim != BuiltinDim || mismatch.AskedDim != 10 {
		t.Errorf("search with 10 dims: %v", err)
	}
	_, err = store.AddDocument(ctx, doc("b.md"), fixedEmbedder{id: Builtin{}.ID(), dim: 10}, DefaultChunkOptions, nil)
	if !errors.As(err, &mismatch) || mismatch.BuiltDim != BuiltinDim || mismatch.AskedDim != 10 {
		t.Errorf("storing 10-dimension vectors: %v", err)
	}
	if _, err := store.AddDocument(ctx, doc("b.md"), Builtin{}, DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	var recorded int
	ws.DB.QueryRow(`SELECT dim FROM collections WHERE name = 'sop'`).Scan(&recorded)
	if recorded != BuiltinDim {
		t.Errorf("recorded dimension after a matching write: %d, want %d", recorded, BuiltinDim)
	}
}

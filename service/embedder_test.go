package service

// Ingesting and searching with an embedding model through the model gateway: kb takes the
// model's embedding function (kb.Ollama), and these tests, which need the gateway and its
// scripted server, moved up from kb with the code that builds that embedder.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/config"
	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const silaneSheet = `---
title: Silane gas data sheet
language: en
---
# Silane

## 1 Identification
Silane, CAS 7803-62-5, UN 2203. A pyrophoric gas that ignites spontaneously in air.

## 2 Handling
Purge the line with nitrogen before every cylinder change.
`

// gatewayEmbedder embeds through the scripted server with the given embed model.
func gatewayEmbedder(t *testing.T, srv *llmtest.Server, model string) kb.Ollama {
	t.Helper()
	return llmkb.Embedder(gatewayFor(t, srv, model))
}

func TestChangedEmbedModelIsCaughtBeforeVectorsAreCompared(t *testing.T) {
	ws, store := testkb.Empty(t)
	srv := llmtest.New(t)
	dir := t.TempDir()
	writeFile(t, dir, "sop/silane.md", silaneSheet)
	items, _ := kb.CollectItems([]string{filepath.Join(dir, "sop")}, "sop")
	ctx := context.Background()
	if rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: gatewayEmbedder(t, srv, llmtest.EmbedModel)}); err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	info, ok, err := store.Collection(ctx, "sop")
	if err != nil || !ok || info.Embedder != "ollama:nomic-embed-text" || info.Dim != 768 {
		t.Fatalf("the collection records its model and dimension: %+v %v", info, err)
	}

	// The same model spelled with its tag is no change.
	if _, err := info.QueryEmbedder(gatewayEmbedder(t, srv, "nomic-embed-text:latest")); err != nil {
		t.Errorf("nomic-embed-text:latest is the model the collection was built with: %v", err)
	}

	srv.AddModel(llmtest.Model{Name: "all-minilm", Embedding: true})
	srv.SetDimension(384)
	minilm := gatewayEmbedder(t, srv, "all-minilm")
	_, err = info.QueryEmbedder(minilm)
	var mismatch *kb.EmbedderMismatchError
	if !errors.As(err, &mismatch) || mismatch.Collection != "sop" || mismatch.BuiltDim != 768 || mismatch.Asked != "ollama:all-minilm" {
		t.Errorf("want a mismatch naming sop, 768 dims and all-minilm, got %#v", err)
	}

	query := llmtest.Embed("pyrophoric silane", 384)
	for _, scope := range []chunk.Scope{{}, {Collections: []string{"sop"}}, {Doc: "sop/silane.md"}} {
		_, err := kb.NewStore(ws).Dense(ctx, query, scope, 3)
		if !errors.As(err, &mismatch) || mismatch.Collection != "sop" || mismatch.BuiltDim != 768 || mismatch.AskedDim != 384 {
			t.Errorf("scope %+v: want a typed mismatch, got %v", scope, err)
		}
		if err != nil && strings.Contains(err.Error(), "same length") {
			t.Errorf("scope %+v: chromem-go's message leaked: %v", scope, err)
		}
	}

	// Adding a document with the new model is refused, naming the fix.
	writeFile(t, dir, "sop/silane.md", silaneSheet+"\nRevised.\n")
	rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: minilm})
	if err != nil || rep.Failed != 1 || !strings.Contains(rep.Files[0].Reason, "warren is set to all-minilm: run `warren ingest --rebuild`") {
		t.Errorf("want the ingest refused with the rebuild: %+v %v", rep, err)
	}
}

func TestRebuildAfterTheModelChangedItsDimension(t *testing.T) {
	_, store := testkb.Empty(t)
	srv := llmtest.New(t)
	dir := t.TempDir()
	writeFile(t, dir, "sop/silane.md", silaneSheet)
	writeFile(t, dir, "sop/purge.md", "# Purging\n\nPurge every gas line with nitrogen three times.\n")
	items, _ := kb.CollectItems([]string{filepath.Join(dir, "sop")}, "sop")
	ctx := context.Background()
	emb := gatewayEmbedder(t, srv, llmtest.EmbedModel)
	if rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: emb}); err != nil || rep.Ingested != 2 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	srv.SetDimension(384) // the same name now gives shorter vectors (a re-pulled tag)

	writeFile(t, dir, "sop/silane.md", silaneSheet+"\nRevised.\n")
	rep, err := store.Ingest(ctx, items, kb.IngestOptions{Embedder: emb})
	if err != nil || rep.Failed != 1 || rep.Unchanged != 1 ||
		!strings.Contains(failedReasons(rep), "nomic-embed-text (768 dims) but nomic-embed-text now gives 384 dims") {
		t.Errorf("want the changed file refused: %+v %v", rep, err)
	}
	if _, err := store.Dense(ctx, llmtest.Embed("silane", 384), chunk.Scope{}, 3); !errors.Is(err, kb.ErrEmbedderChanged) {
		t.Errorf("search before the rebuild: want ErrEmbedderChanged, got %v", err)
	}

	rep, err = store.Ingest(ctx, items, kb.IngestOptions{Embedder: emb, Force: true})
	if err != nil || rep.Ingested != 2 {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	if info, _, _ := store.Collection(ctx, "sop"); info.Dim != 384 || info.Documents != 2 {
		t.Errorf("after the rebuild: %+v", info)
	}
	hits, err := store.Dense(ctx, llmtest.Embed("purge nitrogen gas line", 384), chunk.Scope{}, 3)
	if err != nil || len(hits) == 0 || !strings.HasPrefix(hits[0].ChunkID, "sop/purge.md#") {
		t.Errorf("search after the rebuild: %+v %v", hits, err)
	}
}

func failedReasons(rep *kb.IngestReport) string {
	var out []string
	for _, f := range rep.Files {
		if f.Status == kb.StatusFailed {
			out = append(out, f.Reason)
		}
	}
	return strings.Join(out, "\n")
}

func TestReingestOfUnchangedFilesMakesNoEmbeddingCalls(t *testing.T) {
	srv := llmtest.New(t)
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, store := testkb.Empty(t)
	dir := t.TempDir()
	writeFile(t, dir, "docs/silane.md", silaneSheet)
	arsine := writeFile(t, dir, "docs/arsine.md", "# Arsine\n\nArsine is highly toxic; CAS 7784-42-1.\n")
	items, _ := kb.CollectItems([]string{filepath.Join(dir, "docs")}, "suppliers")
	opts := kb.IngestOptions{Embedder: llmkb.Embedder(g)}

	if rep, err := store.Ingest(context.Background(), items, opts); err != nil || rep.Ingested != 2 {
		t.Fatalf("first ingest: %+v %v", rep, err)
	}
	first := srv.Count("/api/embed")
	rep, err := store.Ingest(context.Background(), items, opts)
	if err != nil || rep.Unchanged != 2 || srv.Count("/api/embed") != first {
		t.Fatalf("unchanged files must not be embedded again: %+v, %d embed calls after %d", rep, srv.Count("/api/embed"), first)
	}
	os.WriteFile(arsine, []byte("# Arsine\n\nArsine (AsH3) is highly toxic and flammable.\n"), 0o644)
	rep, _ = store.Ingest(context.Background(), items, opts)
	if rep.Ingested != 1 || rep.Unchanged != 1 || srv.Count("/api/embed") != first+1 {
		t.Errorf("only the changed file is embedded: %+v, %d embed calls", rep, srv.Count("/api/embed")-first)
	}
	chunks, _ := store.SectionChunks(context.Background(), "docs/arsine.md", "")
	for _, c := range chunks {
		if strings.Contains(c.Text, "7784-42-1") {
			t.Errorf("the old text of a changed file must be replaced: %q", c.Text)
		}
	}
}

package gasfill

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"warren/config"
	"warren/kb"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
)

// A collection embedded with another model than the configured one stops the fill with the
// rebuild that fixes it, instead of failing row after row on "vectors must have the same
// length".
func TestFillStopsWhenACollectionWasEmbeddedWithAnotherModel(t *testing.T) {
	h := newHarness(t)
	scriptReader(t, h.srv, loadAnswerKey(t), new(atomic.Bool))
	ctx := context.Background()
	h.addArsineSOP(t) // embedded by the server's nomic-embed-text (768 dims)…
	// …then warren is set to all-minilm (384 dims).
	h.srv.AddModel(llmtest.Model{Name: "all-minilm", Embedding: true})
	h.srv.SetDimension(384)
	cfg := config.Default()
	cfg.Ollama.Host = h.srv.URL
	cfg.Ollama.BackoffBase = 1e6
	cfg.Embed.Model = "all-minilm"
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.filler.Gateway, h.filler.Searcher = g, llmkb.Searcher(h.kb, g, 0)

	var rows []int
	for _, r := range h.table.Rows {
		if r.Name() == "Arsine" || r.Name() == "Phosphine" {
			rows = append(rows, r.ID)
		}
	}
	results, err := h.filler.Fill(ctx, h.table, rows, nil)
	want := "collection \"sop\" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm (384 dims): run `warren ingest --rebuild`"
	if !errors.Is(err, kb.ErrEmbedderChanged) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("the fill must stop on the changed model:\n got %v\nwant %s…", err, want)
	}
	// The row that met the mismatch says so; a row still running when the fill stopped was
	// cancelled, or met the mismatch too but had no time left to learn all-minilm's dimension.
	reported := 0
	for _, r := range results {
		switch {
		case strings.HasPrefix(r.Err, want):
			reported++
		case strings.HasPrefix(r.Err, `collection "sop" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm: run`):
		case r.Err != "" && !strings.Contains(r.Err, context.Canceled.Error()):
			t.Errorf("row %s: %s", r.Name, r.Err)
		}
	}
	if reported == 0 {
		t.Errorf("no row reports the mismatch: %+v", results)
	}
}

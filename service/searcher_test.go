package service

// Searching collections that an embedding model built: the searcher takes the model's
// embedder and its dimension probe from the model gateway (newSearcher), and these tests,
// which need the gateway and its scripted server, moved up from retrieval.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"warren/config"
	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
	"warren/retrieval"
)

func gatewayFor(t *testing.T, srv *llmtest.Server, embedModel string) *llm.Gateway {
	t.Helper()
	c := config.Default()
	c.Ollama.Host = srv.URL
	c.Ollama.BackoffBase = 1e6
	c.Embed.Model = embedModel
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// mixedStore holds "sop", embedded by nomic-embed-text through the scripted server (768
// dims), and "general", embedded by the built-in embedder.
func mixedStore(t *testing.T, srv *llmtest.Server) *kb.Store {
	t.Helper()
	_, store := testkb.Empty(t)
	ctx := context.Background()
	add := func(id, collection, text string, emb kb.Embedder) {
		doc := &load.Document{ID: id, Collection: collection, Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Heading: "Procedure", Text: text}}}
		if _, err := store.AddDocument(ctx, doc, emb, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("sop/cylinder.md", "sop", "Change a silane cylinder only after purging the pigtail with nitrogen.", llmkb.Embedder(gatewayFor(t, srv, llmtest.EmbedModel)))
	add("general/arsine.md", "general", "Arsine is a highly toxic hydride gas; purge with nitrogen.", kb.Builtin{})
	return store
}

func TestSearchAfterTheEmbedModelChangedNamesTheRebuild(t *testing.T) {
	srv := llmtest.New(t)
	store := mixedStore(t, srv)
	ctx := context.Background()
	before := llmkb.Searcher(store, gatewayFor(t, srv, llmtest.EmbedModel), 0)
	if res, err := before.Search(ctx, retrieval.Request{Query: "silane cylinder purge", K: 3}); err != nil || len(res) == 0 {
		t.Fatalf("with the model the collection was built with: %v %v", res, err)
	}

	srv.AddModel(llmtest.Model{Name: "all-minilm", Embedding: true})
	srv.SetDimension(384)
	after := llmkb.Searcher(store, gatewayFor(t, srv, "all-minilm"), 0)
	want := "collection \"sop\" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm (384 dims): run `warren ingest --rebuild`"
	for _, req := range []retrieval.Request{
		{Query: "silane cylinder purge", Mode: retrieval.Hybrid},
		{Query: "silane cylinder purge", Mode: retrieval.Dense},
		{Query: "silane cylinder purge", Scope: chunk.Scope{Collections: []string{"sop"}}},
		{Query: "silane cylinder purge", Scope: chunk.Scope{Doc: "sop/cylinder.md"}},
	} {
		_, err := after.Search(ctx, req)
		var mismatch *kb.EmbedderMismatchError
		if !errors.Is(err, kb.ErrEmbedderChanged) || !errors.As(err, &mismatch) {
			t.Errorf("%+v: want a *kb.EmbedderMismatchError, got %v", req, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v:\n got %s\nwant %s…", req, err, want)
		}
	}
	// What the change does not touch still works: the lexical ranking, and collections of the
	// built-in embedder.
	if res, err := after.Search(ctx, retrieval.Request{Query: "silane cylinder purge", Mode: retrieval.Lexical}); err != nil || len(res) == 0 {
		t.Errorf("lexical search: %v %v", res, err)
	}
	if res, err := after.Search(ctx, retrieval.Request{Query: "toxic hydride", Scope: chunk.Scope{Collections: []string{"general"}}}); err != nil || len(res) == 0 {
		t.Errorf("built-in collection: %v %v", res, err)
	}
}

func TestSearchAfterTheModelChangedItsDimension(t *testing.T) {
	srv := llmtest.New(t)
	store := mixedStore(t, srv)
	srv.SetDimension(384) // the same model name, now giving shorter vectors
	s := llmkb.Searcher(store, gatewayFor(t, srv, llmtest.EmbedModel), 0)
	for _, scope := range []chunk.Scope{{}, {Doc: "sop/cylinder.md"}} {
		_, err := s.Search(context.Background(), retrieval.Request{Query: "silane cylinder", Scope: scope})
		want := "collection \"sop\" was embedded with nomic-embed-text (768 dims) but nomic-embed-text now gives 384 dims: run `warren ingest --rebuild` on its documents"
		if !errors.Is(err, kb.ErrEmbedderChanged) || err.Error() != want {
			t.Errorf("scope %+v:\n got %v\nwant %s", scope, err, want)
		}
	}
}

package doctor

import (
	"context"
	"strings"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/kb/load"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
)

// embeddedWorkspace is a workspace whose collection "sop" was embedded by the server's
// nomic-embed-text (768 dims) and "general" by the built-in embedder.
func embeddedWorkspace(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	dir := workspace(t)
	ws, err := kb.Open(dir, config.Sources{}, schema.All())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c := config.Default()
	c.Ollama.Host = srv.URL
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	store := kb.NewStore(ws)
	ctx := context.Background()
	for _, d := range []struct {
		id, collection string
		emb            kb.Embedder
	}{{"sop/cylinder.md", "sop", llmkb.Embedder(g)}, {"general/arsine.md", "general", kb.Builtin{}}} {
		doc := &load.Document{ID: d.id, Collection: d.collection, Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Heading: "Procedure", Text: "Purge the silane line with nitrogen."}}}
		if _, err := store.AddDocument(ctx, doc, d.emb, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCollectionsMatchingTheirEmbeddersPass(t *testing.T) {
	srv := llmtest.New(t)
	r := Run(context.Background(), Input{Workspace: embeddedWorkspace(t, srv), Sources: config.Sources{Env: []string{"OLLAMA_HOST=" + srv.URL}}})
	c := find(r, "collections")
	if !r.OK || c.Status != OK || c.Detail != "embedded as warren embeds queries: general (the built-in embedder, 512 dims), sop (nomic-embed-text, 768 dims)" {
		t.Errorf("collections check: %+v\n%s", c, r.Text())
	}
}

func TestChangedEmbedModelFailsNamingTheRebuild(t *testing.T) {
	srv := llmtest.New(t)
	dir := embeddedWorkspace(t, srv)
	srv.AddModel(llmtest.Model{Name: "all-minilm", Embedding: true})
	srv.SetDimension(384)
	r := Run(context.Background(), Input{Workspace: dir, Sources: config.Sources{
		Env: []string{"OLLAMA_HOST=" + srv.URL}, Flags: map[string]string{"models.embed.model": "all-minilm"}}})
	c := find(r, "collection sop")
	if r.OK || c.Status != Fail ||
		c.Detail != `collection "sop" was embedded with nomic-embed-text (768 dims) but warren is set to all-minilm (384 dims)` ||
		!strings.HasPrefix(c.Fix, "run `warren ingest --rebuild` on its documents") {
		t.Errorf("collection check: %+v\n%s", c, r.Text())
	}
	if ok := find(r, "collections"); ok.Status != OK || !strings.Contains(ok.Detail, "general (the built-in embedder") || strings.Contains(ok.Detail, "sop") {
		t.Errorf("the built-in collection still passes, alone: %+v", ok)
	}
	if !strings.Contains(r.Text(), "fix: run `warren ingest --rebuild` on its documents (or set models.embed.model back to nomic-embed-text)") {
		t.Errorf("the table shows the fix:\n%s", r.Text())
	}
}

func TestEmbedModelWithANewDimensionFails(t *testing.T) {
	srv := llmtest.New(t)
	dir := embeddedWorkspace(t, srv)
	srv.SetDimension(1024)
	r := Run(context.Background(), Input{Workspace: dir, Sources: config.Sources{Env: []string{"OLLAMA_HOST=" + srv.URL}}})
	c := find(r, "collection sop")
	if r.OK || c.Status != Fail || !strings.Contains(c.Detail, "nomic-embed-text (768 dims) but nomic-embed-text now gives 1024 dims") ||
		!strings.Contains(c.Fix, "warren ingest --rebuild") {
		t.Errorf("collection check: %+v\n%s", c, r.Text())
	}
}

// Without the embed model only the names are compared: a renamed model still fails, the
// dimension is left unchecked and said so.
func TestCollectionsWithoutTheEmbedModel(t *testing.T) {
	srv := llmtest.New(t)
	dir := embeddedWorkspace(t, srv)
	srv.RemoveModel(llmtest.EmbedModel)
	r := Run(context.Background(), Input{Workspace: dir, Sources: config.Sources{Env: []string{"OLLAMA_HOST=" + srv.URL}}})
	if c := find(r, "collections"); c.Status != OK || !strings.Contains(c.Detail, "dimensions not checked") {
		t.Errorf("collections check without the embed model: %+v\n%s", c, r.Text())
	}
	r = Run(context.Background(), Input{Workspace: dir, Sources: config.Sources{
		Env: []string{"OLLAMA_HOST=" + srv.URL}, Flags: map[string]string{"models.embed.model": "all-minilm"}}})
	if c := find(r, "collection sop"); c.Status != Fail || !strings.Contains(c.Detail, "but warren is set to all-minilm") {
		t.Errorf("a renamed model fails even unprobed: %+v\n%s", c, r.Text())
	}
}

package doctor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"warren/config"
	"warren/kb"
	"warren/kb/load"
	"warren/kb/weaviatekb"
	"warren/llm/llmtest"
)

// With kb.backend = weaviate and nothing listening, the server check fails with how to fix it
// and no collection is checked.
func TestUnreachableWeaviateFails(t *testing.T) {
	srv := llmtest.New(t)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	r := Run(context.Background(), Input{Workspace: workspace(t), Sources: config.Sources{Env: []string{
		"OLLAMA_HOST=" + srv.URL, "WARREN_KB_BACKEND=weaviate", "WARREN_KB_WEAVIATE_URL=http://" + addr}}})
	c := find(r, "weaviate")
	if r.OK || c.Status != Fail || !strings.Contains(c.Fix, "kb.weaviate.url") {
		t.Fatalf("weaviate check: %+v\n%s", c, r.Text())
	}
	if c := find(r, "collections"); c.Name != "" {
		t.Errorf("collections checked without a server: %+v", c)
	}
}

// Against a real server (WARREN_WEAVIATE_URL, as make e2e-weaviate sets it): the server, its
// version, the schema and the collections pass; a chunk class deleted behind warren's back
// fails the schema check.
func TestWeaviateServerSchemaAndDimensions(t *testing.T) {
	url := os.Getenv("WARREN_WEAVIATE_URL")
	if url == "" {
		if os.Getenv("WARREN_E2E_WEAVIATE") == "1" {
			t.Fatal("WARREN_WEAVIATE_URL is not set: scripts/e2e-weaviate.sh sets it when its server started")
		}
		t.Skip("WARREN_WEAVIATE_URL is not set: make e2e-weaviate runs this test against a real Weaviate server")
	}
	var suffix [4]byte
	rand.Read(suffix[:])
	prefix := "WarrenDoctor" + hex.EncodeToString(suffix[:])
	ctx := context.Background()
	wv, err := weaviatekb.Open(ctx, weaviatekb.Options{URL: url, ClassPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wv.DropAll(context.Background()) })
	doc := &load.Document{ID: "note.md", Collection: "notes", Language: "en", Source: "/tmp/note.md", Meta: map[string]string{},
		Sections: []load.Section{{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."}}}
	if _, err := kb.AddDocument(ctx, wv, doc, kb.Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	env := []string{"OLLAMA_HOST=" + srv.URL, "WARREN_KB_BACKEND=weaviate", "WARREN_KB_WEAVIATE_URL=" + url,
		"WARREN_KB_WEAVIATE_CLASS_PREFIX=" + prefix}
	dir := workspace(t)
	r := Run(ctx, Input{Workspace: dir, Sources: config.Sources{Env: env}})
	if !r.OK || !strings.HasPrefix(find(r, "weaviate").Detail, "Weaviate 1.") || find(r, "weaviate schema").Status != OK ||
		!strings.Contains(find(r, "collections").Detail, "notes (the built-in embedder, 512 dims)") {
		t.Fatalf("want every check to pass:\n%s", r.Text())
	}
	req, _ := http.NewRequest(http.MethodDelete, url+"/v1/schema/"+prefix+"Chunks_notes", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r = Run(ctx, Input{Workspace: dir, Sources: config.Sources{Env: env}})
	if c := find(r, "weaviate schema"); r.OK || c.Status != Fail || !strings.Contains(c.Detail, prefix+"Chunks_notes is missing") {
		t.Errorf("schema check after deleting the chunk class: %+v\n%s", c, r.Text())
	}
}

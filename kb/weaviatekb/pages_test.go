package weaviatekb

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"

	"warren/kb/chunk"
	"warren/kb/load"
)

var pagedChunk = chunk.Chunk{ID: "scans/cabinet#0003", Doc: "scans/cabinet", Collection: "procedures", Section: "2",
	SectionPath: "2", Heading: "Valves", Text: "Close the valve.", Start: 10, End: 26, Hash: "h", Seq: 3,
	Page: 3, PageKind: chunk.KindPage, OCR: true, OCRConfidence: 91.5}

// A chunk's page goes into its object and comes back from both kinds of read: GraphQL (JSON)
// and gRPC (typed values).
func TestChunkPageSurvivesTheObjectProperties(t *testing.T) {
	props := chunkObjectProperties(pagedChunk)

	raw, err := json.Marshal(props)
	if err != nil {
		t.Fatal(err)
	}
	var fromGraphQL chunkObject
	if err := json.Unmarshal(raw, &fromGraphQL); err != nil {
		t.Fatal(err)
	}
	if got := fromGraphQL.chunk(); got != pagedChunk {
		t.Errorf("GraphQL read:\n got %+v\nwant %+v", got, pagedChunk)
	}

	// gRPC gives ints as int64, numbers as float64.
	typed := map[string]any{}
	for k, v := range props {
		if n, ok := v.(int); ok {
			v = int64(n)
		}
		typed[k] = v
	}
	if got := chunkObjectOf(typed).chunk(); got != pagedChunk {
		t.Errorf("gRPC read:\n got %+v\nwant %+v", got, pagedChunk)
	}

	// An object written before pages existed has none of the properties (null in GraphQL).
	var old chunkObject
	json.Unmarshal([]byte(`{"chunk_id": "d#0000", "page": null, "page_kind": null, "ocr": null, "ocr_confidence": null}`), &old)
	if c := old.chunk(); !c.PageRef().IsZero() || !chunkObjectOf(map[string]any{"chunk_id": "d#0000"}).chunk().PageRef().IsZero() {
		t.Errorf("an old object reads with a page: %+v", c)
	}
}

// Every property a read asks for and a write sets is in the class warren creates.
func TestChunkPropertiesAreInTheSchema(t *testing.T) {
	b := &Backend{opts: Options{ClassPrefix: DefaultClassPrefix}}
	inSchema := map[string]bool{}
	for _, p := range b.chunkSchema("procedures").Properties {
		inSchema[p.Name] = true
	}
	for _, name := range chunkPropertyList {
		if !inSchema[name] {
			t.Errorf("reads ask for %s, which the schema lacks", name)
		}
	}
	for name := range chunkObjectProperties(pagedChunk) {
		if !inSchema[name] {
			t.Errorf("writes set %s, which the schema lacks", name)
		}
	}
}

// A chunk class created before pages existed lacks exactly the page properties, which Open
// adds.
func TestAnOldChunkClassLacksThePageProperties(t *testing.T) {
	b := &Backend{opts: Options{ClassPrefix: DefaultClassPrefix}}
	want := b.chunkSchema("procedures")
	old := &models.Class{Class: want.Class}
	for _, p := range want.Properties {
		if !slices.Contains([]string{"page", "page_kind", "ocr", "ocr_confidence"}, p.Name) {
			old.Properties = append(old.Properties, p)
		}
	}
	var names []string
	for _, p := range missingProperties(want.Properties, old) {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"page", "page_kind", "ocr", "ocr_confidence"}) {
		t.Errorf("missing properties %v", names)
	}
	if missingProperties(want.Properties, want) != nil {
		t.Error("a current class lacks properties")
	}
}

// Against a server: a collection whose class an earlier warren created (without the page
// properties) is read after Open, and a chunk written then keeps its page.
func TestAnOldChunkClassGainsThePageProperties(t *testing.T) {
	b := openTestBackend(t, testServer(t))
	ctx := context.Background()
	want := b.chunkSchema(pagedChunk.Collection)
	old := *want
	old.Properties = slices.DeleteFunc(slices.Clone(want.Properties), func(p *models.Property) bool {
		return slices.Contains([]string{"page", "page_kind", "ocr", "ocr_confidence"}, p.Name)
	})
	if err := b.client.Schema().ClassCreator().WithClass(&old).Do(ctx); err != nil {
		t.Fatal(err)
	}
	col := collectionObject{Name: pagedChunk.Collection, Embedder: "test", Dim: 2}
	before := pagedChunk
	before.ID, before.Seq, before.Page, before.PageKind, before.OCR, before.OCRConfidence = "scans/cabinet#0000", 0, 0, "", false, 0
	props := chunkObjectProperties(before)
	for _, name := range []string{"page", "page_kind", "ocr", "ocr_confidence"} {
		delete(props, name)
	}
	doc := &load.Document{ID: pagedChunk.Doc, Collection: pagedChunk.Collection, Title: "Cabinet", Source: "/scans/cabinet.pdf",
		Format: "pdf", Meta: map[string]string{}}
	if err := b.put(ctx, []*models.Object{collectionObj(b, col), documentObj(b, doc, 1, "h0", "", ""),
		{Class: old.Class, ID: strfmt.UUID(objectID("chunk", before.ID)), Vector: []float32{1, 0}, Properties: props}}); err != nil {
		t.Fatal(err)
	}

	again := openAgain(t, b, nil)
	got, err := again.DocumentChunks(ctx, pagedChunk.Doc)
	if err != nil || len(got) != 1 || got[0] != before {
		t.Fatalf("the old chunk: %+v %v", got, err)
	}
	if err := again.ReplaceDocument(ctx, doc, []chunk.Chunk{pagedChunk}, [][]float32{{1, 0}}, "test"); err != nil {
		t.Fatal(err)
	}
	got, err = again.Chunks(ctx, []string{pagedChunk.ID})
	if err != nil || len(got) != 1 || got[0] != pagedChunk {
		t.Errorf("the new chunk: %+v %v", got, err)
	}
}

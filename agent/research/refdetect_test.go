package research

// The model's reference detector, run by retrieval's hybrid detector; moved up from
// retrieval with DetectModel.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
	"warren/retrieval"
)

func testGateway(t *testing.T, srv *llmtest.Server) *llm.Gateway {
	t.Helper()
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

const passage = "Die Pflichten nach § 6 GefStoffV gelten auch für Anlagen im Sinne der Seveso-III-Richtlinie."

func TestHybridAddsOnlyNewGroundedModelReferences(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{SchemaHas: "references", Replies: []string{`{"references":[
		{"type":"legal_section","target":"§ 6","original_text":"§ 6 GefStoffV","document_context":"GefStoffV"},
		{"type":"document_mention","target":"Seveso-III-Richtlinie","original_text":"Seveso-III-Richtlinie","document_context":""},
		{"type":"document_mention","target":"Biostoffverordnung","original_text":"Biostoffverordnung","document_context":""}]}`}})
	g := testGateway(t, srv)

	got, err := retrieval.DetectHybrid(context.Background(), ModelDetector(g, llm.Call{}), passage)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, r := range got {
		summary = append(summary, r.Method+":"+r.Key())
		if passage[r.Start:r.End] != r.OriginalText {
			t.Errorf("%s: span does not match the text", r.Key())
		}
	}
	want := "regex:legal_section:§ 6,model:document_mention:Seveso-III-Richtlinie"
	if strings.Join(summary, ",") != want {
		t.Errorf("got %s, want %s (the duplicate and the invented Biostoffverordnung dropped)", strings.Join(summary, ","), want)
	}
	req := srv.Requests()[0]
	if req.Model != "qwen3:8b" || !strings.Contains(req.Messages[0].Content, "original_text") {
		t.Errorf("the model detector uses the fast role with its instructions: %+v", req.Messages[0])
	}
}

func TestHybridKeepsRegexReferencesWhenTheModelFails(t *testing.T) {
	srv := llmtest.New(t)
	srv.RemoveModel(llmtest.ChatModel)
	got, err := retrieval.DetectHybrid(context.Background(), ModelDetector(testGateway(t, srv), llm.Call{}), passage)
	if !errors.Is(err, llm.ErrModelMissing) || len(got) != 1 || got[0].Target != "§ 6" {
		t.Fatalf("want the regex reference and the model's error, got %+v %v", got, err)
	}
}

package research

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"warren/config"
	"warren/internal/refcases"
	"warren/internal/shareddata"
	"warren/llm"
	"warren/retrieval"
	"warren/retrieval/refs"
)

// FuzzDetectHybrid feeds the hybrid detector a passage and what the model answers about it.
// The answer is given as lines "type|target|original text|document context" and sent as valid
// JSON, so every input reaches the grounding and merging code rather than the JSON parser
// (llm fuzzes that). Whatever the model says, every reference must point into the passage,
// the regex references must all be kept, and a model reference must add something new.
func FuzzDetectHybrid(f *testing.F) {
	var mu sync.Mutex
	var answer []byte
	// A bare Ollama /api/chat: llmtest would record every request of a long fuzzing run.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		content := string(answer)
		mu.Unlock()
		json.NewEncoder(w).Encode(api.ChatResponse{Model: "qwen3:8b", Done: true, DoneReason: "stop",
			Message: api.Message{Role: "assistant", Content: content}})
	}))
	f.Cleanup(srv.Close)
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL
	cfg.Ollama.RepairAttempts = 0 // the answer would not change
	g, err := llm.New(cfg)
	if err != nil {
		f.Fatal(err)
	}

	f.Add(passage, "legal_section|§ 6|§ 6 GefStoffV|GefStoffV\ndocument_mention|Seveso-III-Richtlinie|Seveso-III-Richtlinie|")
	f.Add(passage, "document_mention|Biostoffverordnung|Biostoffverordnung|")
	f.Add("as described in Section 4 of [RFC6901]", "section|4|Section 4 of [RFC6901]|RFC 6901\nsection|4|4|")
	f.Add("see the Gas Cabinet Procedure", "document_mention|Gas Cabinet Procedure|the Gas Cabinet Procedure|")
	f.Add("ä§ 1", "legal_section|§ 1|\xa7 1|")
	f.Add("", "external|x|x|")
	for i, c := range refcases.Load(f) {
		if i%3 == 0 { // a third is plenty: the passages are short and alike
			e := c.Expect
			f.Add(c.Text, e.Type+"|"+e.Target+"|"+c.Text+"|"+e.DocumentContext)
		}
	}
	if p := shareddata.Seeds(f, "corpus/gesetze/GefStoffV/paragraphs/0006.md"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), "legal_section|§ 5|§ 5 des Arbeitsschutzgesetzes|Arbeitsschutzgesetzes\n"+
			"document_mention|Verordnung (EG) Nr. 1907/2006|Verordnung (EG) Nr. 1907/2006|")
	}

	f.Fuzz(func(t *testing.T, text, lines string) {
		var reply struct {
			References []map[string]string `json:"references"`
		}
		reply.References = []map[string]string{}
		for _, line := range strings.Split(lines, "\n") {
			p := strings.SplitN(line, "|", 4)
			if len(p) < 3 {
				continue
			}
			p = append(p, "")
			reply.References = append(reply.References, map[string]string{
				"type": p[0], "target": p[1], "original_text": p[2], "document_context": p[3]})
		}
		b, err := json.Marshal(reply)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		answer = b
		mu.Unlock()

		regex := refs.DetectRegex(text)
		got, err := retrieval.DetectHybrid(context.Background(), ModelDetector(g, llm.Call{}), text)
		if err != nil && !reflect.DeepEqual(got, regex) {
			t.Fatalf("the model failed (%v) but the regex references were not kept:\n%+v\n%+v", err, got, regex)
		}
		keys := map[string]bool{}
		for _, r := range regex {
			keys[r.Key()] = true
		}
		kept := 0
		for i, r := range got {
			if r.Start < 0 || r.End > len(text) || r.Start > r.End || text[r.Start:r.End] != r.OriginalText {
				t.Fatalf("reference %+v does not point at its text in the %d-byte passage", r, len(text))
			}
			if i > 0 && got[i-1].Start > r.Start {
				t.Fatalf("references out of text order: %+v before %+v", got[i-1], r)
			}
			if r.Method == refs.MethodRegex {
				kept++
				continue
			}
			if keys[r.Key()] {
				t.Fatalf("model reference %s repeats a reference already found", r.Key())
			}
			keys[r.Key()] = true
			if r.Method != retrieval.MethodModel || r.OriginalText == "" {
				t.Fatalf("bad model reference %+v", r)
			}
			if overlapsRegex(r, regex) {
				t.Fatalf("model reference %+v overlaps a regex reference", r)
			}
		}
		if kept != len(regex) {
			t.Fatalf("%d of %d regex references kept", kept, len(regex))
		}
	})
}

// overlapsRegex reports whether r's text overlaps one of the regex references'.
func overlapsRegex(r refs.Reference, regex []refs.Reference) bool {
	for _, o := range regex {
		if r.Start < o.End && o.Start < r.End {
			return true
		}
	}
	return false
}

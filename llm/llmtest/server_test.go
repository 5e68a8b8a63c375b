package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestEmbedIsDeterministicNormalisedAndOverlapSensitive(t *testing.T) {
	a := Embed("Silane is pyrophoric and ignites in air", 256)
	if cosine(a, Embed("Silane is pyrophoric and ignites in air", 256)) < 0.9999 {
		t.Error("not deterministic")
	}
	if n := cosine(a, a); math.Abs(n-1) > 1e-5 {
		t.Errorf("not unit length: %v", n)
	}
	near := cosine(a, Embed("silane ignites spontaneously in air", 256))
	far := cosine(a, Embed("Annual leave requests go to the HR office", 256))
	if near <= far+0.2 {
		t.Errorf("overlapping texts should be closer: near %.3f far %.3f", near, far)
	}
	if e := Embed("", 16); e[0] != 1 {
		t.Errorf("empty text should give a unit vector, got %v", e)
	}
}

func post(t *testing.T, url string, body any) (*http.Response, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp, out
}

func TestRulesMatchInOrderAndRetire(t *testing.T) {
	s := New(t)
	s.Handle(&Rule{Contains: "plan", Replies: []string{"first plan"}, Times: 1})
	s.Handle(&Rule{SchemaHas: "tasks", Replies: []string{"schema plan"}})
	s.Handle(&Rule{Replies: []string{"anything"}})
	ask := func(msg string, format any) string {
		f, _ := json.Marshal(format)
		_, out := post(t, s.URL+"/api/chat", map[string]any{"model": ChatModel, "stream": false,
			"messages": []map[string]string{{"role": "user", "content": msg}}, "format": json.RawMessage(f)})
		return out["message"].(map[string]any)["content"].(string)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"tasks": map[string]any{"type": "array"}}}
	got := []string{ask("make a plan", nil), ask("make a plan", schema), ask("make a plan", nil)}
	want := []string{"first plan", "schema plan", "anything"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("answer %d: got %q want %q", i, got[i], want[i])
		}
	}
}

func TestUnmatchedAndMissingModel(t *testing.T) {
	s := New(t)
	resp, _ := post(t, s.URL+"/api/chat", map[string]any{"model": ChatModel, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "hello?"}}})
	if resp.StatusCode != 500 || len(s.Unmatched()) != 1 || s.Unmatched()[0] != "hello?" {
		t.Errorf("an unmatched request should fail loudly: %d %v", resp.StatusCode, s.Unmatched())
	}
	resp, out := post(t, s.URL+"/api/chat", map[string]any{"model": "llama9:70b", "messages": []any{}})
	if resp.StatusCode != 404 || out["error"] == nil {
		t.Errorf("want 404 with an error, got %d %v", resp.StatusCode, out)
	}
	if got := s.Requests(); len(got) != 2 || got[1].Status != 404 || got[1].Model != "llama9:70b" {
		t.Errorf("requests not recorded: %+v", got)
	}
}

func TestFaultsApplyInOrderToTheirPath(t *testing.T) {
	s := New(t)
	s.Inject(Fault{Path: "/api/embed", Status: 503, Count: 2})
	chat := map[string]any{"model": ChatModel, "stream": false, "messages": []map[string]string{{"role": "user", "content": "x"}}}
	s.Handle(&Rule{Replies: []string{"ok"}})
	if resp, _ := post(t, s.URL+"/api/chat", chat); resp.StatusCode != 200 {
		t.Errorf("an embed fault must not hit chat: %d", resp.StatusCode)
	}
	embed := map[string]any{"model": EmbedModel, "input": []string{"a", "b"}}
	codes := []int{}
	for i := 0; i < 3; i++ {
		resp, _ := post(t, s.URL+"/api/embed", embed)
		codes = append(codes, resp.StatusCode)
	}
	if codes[0] != 503 || codes[1] != 503 || codes[2] != 200 {
		t.Errorf("want 503, 503, 200; got %v", codes)
	}
}

func TestStreamFaultsAreLeftForChat(t *testing.T) {
	s := New(t)
	s.Inject(Fault{Truncate: true})
	s.Handle(&Rule{Replies: []string{"a complete answer"}})
	if resp, _ := post(t, s.URL+"/api/embed", map[string]any{"model": EmbedModel, "input": "x"}); resp.StatusCode != 200 {
		t.Fatalf("embed: %d", resp.StatusCode)
	}
	_, out := post(t, s.URL+"/api/chat", map[string]any{"model": ChatModel, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "x"}}})
	if out["done_reason"] != "length" {
		t.Errorf("the truncation fault must reach the chat request, got %v", out)
	}
}

func TestMeaninglessAnswersAreSchemaValid(t *testing.T) {
	format := json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","enum":["follow","skip"]},
		"reason":{"type":"string","minLength":12},"score":{"type":"integer","minimum":0,"maximum":100},
		"tasks":{"type":"array","minItems":2,"items":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}},
		"required":["decision","reason","score","tasks"]}`)
	var v struct {
		Decision string
		Reason   string
		Score    int
		Tasks    []struct{ Q string }
	}
	if err := json.Unmarshal([]byte(Meaningless(Call{Format: format})), &v); err != nil {
		t.Fatal(err)
	}
	if v.Decision != "follow" || len(v.Reason) < 12 || v.Score != 50 || len(v.Tasks) != 2 || v.Tasks[0].Q == "" {
		t.Errorf("not schema-valid: %+v", v)
	}
	if !strings.Contains(Meaningless(Call{}), "[1]") {
		t.Error("a text answer cites something")
	}
}

// The server refuses the formats Ollama refuses, with Ollama's message, so that a schema
// its grammar builder cannot read fails in our tests and not only on a real server.
func TestFormatsOllamaRefuses(t *testing.T) {
	s := New(t)
	s.SetFallback(Meaningless)
	cases := []struct {
		format string
		ok     bool
	}{
		{`"json"`, true},
		{`{}`, true},
		{`{"type":"object","properties":{"value":{}}}`, true},
		{`{"type":"object","properties":{"value":{"type":["string","number","null"],"description":"any"}}}`, true},
		{`{"type":"float"}`, false},
		{`{"type":"object","properties":{"profile":{"description":"the whole profile"}}}`, false},
		{`{"type":"array","items":{"description":"an item"}}`, false},
		{`{"description":"anything"}`, false},
		{`"yaml"`, false},
	}
	for _, c := range cases {
		resp, out := post(t, s.URL+"/api/chat", map[string]any{"model": ChatModel, "stream": false,
			"format": json.RawMessage(c.format), "messages": []map[string]string{{"role": "user", "content": "x"}}})
		if got := resp.StatusCode == 200; got != c.ok {
			t.Errorf("format %s: status %d %v, want accepted=%v", c.format, resp.StatusCode, out, c.ok)
		}
		if !c.ok && !strings.Contains(fmt.Sprint(out["error"]), "invalid") {
			t.Errorf("format %s: the refusal says why as Ollama does: %v", c.format, out)
		}
	}
}

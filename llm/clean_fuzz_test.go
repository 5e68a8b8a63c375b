package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// Fuzz targets for what the gateway reads out of a model's answer: thinking removed (whole and
// streamed), the JSON value extracted, and a structured answer validated and decoded.

// answerSeeds are answers as models write them: bare JSON, fenced, with thinking, with prose.
var answerSeeds = []string{
	`{"a":1}`,
	"<think>maybe {\"a\":0}</think>\n{\"a\":1}",
	"```json\n{\"a\":1}\n```",
	"Sure! {\"a\":{\"b\":2}} done",
	"<think>unfinished thought {\"a\":1}",
	"reasoning first</think>{\"a\":1}",
	"  <think>a</think><think>b</think>Answer.  ",
	"Here you go:\n```json\n{\"a\":\"}\"}\n```\nthanks",
	`{"note":"a literal <think> tag"}`,
	"[1, 2] and {\"x\": [}",
	"<thi",
	"```\n```",
}

// FuzzExtractJSON: the extracted text is a piece of the answer, and it is valid JSON whenever
// the answer holds a JSON object or array that the extraction could have found.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		got := extractJSON(answer)
		if !strings.Contains(answer, got) {
			t.Fatalf("extractJSON(%q) = %q, not a piece of the answer", answer, got)
		}
		stripped := StripThink(answer)
		if json.Valid([]byte(stripped)) && got != stripped {
			t.Fatalf("extractJSON(%q) = %q; the answer without thinking, %q, is JSON already", answer, got, stripped)
		}
		if got != "" && !json.Valid([]byte(got)) && got != stripped && !strings.HasPrefix(stripped, "```") {
			t.Fatalf("extractJSON(%q) = %q: neither valid JSON nor the answer as it was", answer, got)
		}
		if json.Valid([]byte(got)) && got != strings.TrimSpace(got) {
			t.Fatalf("extractJSON(%q) = %q keeps white space around the value", answer, got)
		}
	})
}

// FuzzThinkFilter: StripThink is idempotent and returns a piece of its input; the streaming
// filter gives the same text however the stream is cut, and, unless the answer ends a
// thinking block it never opened (which only the whole text can show), what StripThink gives.
func FuzzThinkFilter(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, text string, cut uint8) {
		stripped := StripThink(text)
		if !strings.Contains(text, stripped) {
			t.Fatalf("StripThink(%q) = %q, not a piece of the text", text, stripped)
		}
		if again := StripThink(stripped); again != stripped {
			t.Fatalf("StripThink not idempotent: %q → %q → %q", text, stripped, again)
		}
		stream := func(size int) string {
			var fl thinkFilter
			var out strings.Builder
			for i := 0; i < len(text); i += size {
				out.WriteString(fl.Push(text[i:min(i+size, len(text))]))
			}
			out.WriteString(fl.Flush())
			return out.String()
		}
		whole := stream(max(len(text), 1))
		if pieces := stream(int(cut%16) + 1); pieces != whole {
			t.Fatalf("%q in pieces of %d streams %q, whole %q", text, cut%16+1, pieces, whole)
		}
		if !strings.Contains(whole, thinkClose) && strings.TrimSpace(whole) != stripped {
			t.Fatalf("%q streams %q, StripThink gives %q", text, whole, stripped)
		}
	})
}

// fuzzAnswer has the shapes of warren's structured answers: bounded clamped integer and
// fractional scores (research quality and coverage), an enum (reference types), string and
// list bounds, nested objects and an optional field.
type fuzzAnswer struct {
	Accuracy   int     `json:"accuracy" schema:"min=0,max=100,clamp"`
	Coverage   float64 `json:"coverage" schema:"min=0,max=1,clamp"`
	Decision   string  `json:"decision" schema:"enum=accept|retry"`
	References []struct {
		Type   string `json:"type" schema:"enum=legal_section|section|external"`
		Target string `json:"target" schema:"minLength=1"`
	} `json:"references" schema:"maxItems=4"`
	Queries []string        `json:"queries" schema:"minItems=1,maxItems=3,minLength=3"`
	Follow  bool            `json:"follow"`
	Profile json.RawMessage `json:"profile,omitempty" schema:"type=object"`
	Note    string          `json:"note,omitempty"`
}

// FuzzCheckAnswer: an answer the gateway accepts decodes into the caller's type, and checking
// what it accepted again finds nothing to change.
func FuzzCheckAnswer(f *testing.F) {
	schema, err := SchemaOf(fuzzAnswer{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"accuracy":85,"coverage":0.7,"decision":"accept","references":[{"type":"section","target":"4.1"}],"queries":["silane purge"],"follow":true}`)
	f.Add("<think>score it</think>```json\n{\"accuracy\":150,\"coverage\":70,\"decision\":\"retry\",\"references\":[],\"queries\":[\"abc\",\"def\"],\"follow\":false,\"profile\":{\"inci\":\"X\"}}\n```")
	f.Add(`{"accuracy":-5,"coverage":1.5,"decision":"accept","references":[],"queries":["abc"],"follow":false,"note":null}`)
	f.Add(`{"accuracy":1e2,"coverage":1,"decision":"accept","references":[],"queries":["abc"],"follow":false}`)
	f.Add(`{"accuracy":50} {"accuracy":60}`)
	f.Fuzz(func(t *testing.T, answer string) {
		text, problems := checkAnswer(answer, schema)
		if len(problems) == 0 && text == nil {
			t.Fatalf("checkAnswer(%q): no problems and nothing to decode", answer)
		}
		if len(problems) > 0 {
			return
		}
		var out fuzzAnswer
		if err := json.Unmarshal(text, &out); err != nil {
			t.Fatalf("checkAnswer accepted %q as %s, which doesn't decode: %v", answer, text, err)
		}
		if out.Accuracy < 0 || out.Accuracy > 100 || !(out.Coverage >= 0 && out.Coverage <= 1) || len(out.Queries) == 0 {
			t.Fatalf("checkAnswer accepted %s out of bounds: %+v", text, out)
		}
		again, problems := checkAnswer(string(text), schema)
		if len(problems) > 0 || string(again) != string(text) {
			t.Fatalf("checking the accepted %s again: %s %v", text, again, problems)
		}
	})
}

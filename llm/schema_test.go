package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

type task struct {
	Query     string   `json:"query" desc:"what to search for" schema:"minLength=3"`
	Rationale string   `json:"rationale,omitempty"`
	Done      bool     `json:"done"`
	Priority  int      `json:"priority" schema:"min=1,max=5"`
	Tags      []string `json:"tags" schema:"enum=legal|technical,maxItems=3"`
}

type plan struct {
	Tasks []task  `json:"tasks" schema:"minItems=1,maxItems=15"`
	Note  *string `json:"note,omitempty"`
}

func TestSchemaOfKeepsOrderRequiredAndBounds(t *testing.T) {
	s, err := SchemaOf(&plan{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	got := string(data)
	want := `{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{` +
		`"query":{"type":"string","description":"what to search for","minLength":3},` +
		`"rationale":{"type":"string"},"done":{"type":"boolean"},` +
		`"priority":{"type":"integer","minimum":1,"maximum":5},` +
		`"tags":{"type":"array","items":{"type":"string","enum":["legal","technical"]},"maxItems":3}},` +
		`"required":["query","done","priority","tags"]},"minItems":1,"maxItems":15},` +
		`"note":{"type":"string"}},"required":["tasks"]}`
	if got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	var back Schema
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	if string(again) != got {
		t.Errorf("schema does not round-trip through JSON:\n%s\n%s", again, got)
	}
}

func TestSchemaOfRejectsRecursionAndBadTags(t *testing.T) {
	type node struct {
		Children []node `json:"children"`
	}
	if _, err := SchemaOf(node{}); err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Errorf("want a recursion error, got %v", err)
	}
	type bad struct {
		X int `json:"x" schema:"min=low"`
	}
	if _, err := SchemaOf(bad{}); err == nil {
		t.Error("want an error for a non-numeric bound")
	}
}

func TestValidate(t *testing.T) {
	s, _ := SchemaOf(&plan{})
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{"tasks":[{"query":"§ 6 GefStoffV","done":false,"priority":2,"tags":["legal"]}]}`, nil},
		{"missing required", `{"tasks":[{"query":"abc","priority":2,"tags":[]}]}`, []string{`$.tasks[0]: required field "done" is missing`}},
		{"too few items", `{"tasks":[]}`, []string{"$.tasks: has 0 items, at least 1 required"}},
		{"wrong types", `{"tasks":[{"query":5,"done":"no","priority":2.5,"tags":"legal"}]}`, []string{
			"$.tasks[0].query: want a string, got a number", "$.tasks[0].done: want true or false, got a string",
			"$.tasks[0].priority: want a whole number, got 2.5", "$.tasks[0].tags: want an array, got a string"}},
		{"bounds and enum", `{"tasks":[{"query":"ab","done":true,"priority":9,"tags":["gossip"]}]}`, []string{
			"$.tasks[0].query: is 2 characters, at least 3 required", "$.tasks[0].priority: 9 is above the maximum 5",
			`$.tasks[0].tags[0]: "gossip" is not one of ["legal","technical"]`}},
		{"not an object", `[1]`, []string{"$: want an object, got an array"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.doc))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			got := s.Validate(v)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestExtractJSON(t *testing.T) {
	cases := map[string]string{
		`{"a":1}`: `{"a":1}`,
		"<think>maybe {\"a\":0}</think>\n{\"a\":1}":          `{"a":1}`,
		"```json\n{\"a\":1}\n```":                            `{"a":1}`,
		"```\n[1,2]\n```":                                    `[1,2]`,
		"Sure! {\"a\":{\"b\":2}} done":                       `{"a":{"b":2}}`,
		"<think>unfinished thought {\"a\":1}":                ``,
		"no json at all":                                     `no json at all`,
		"reasoning first</think>{\"a\":1}":                   `{"a":1}`,
		`{"report":"use ` + "```" + `go\nx\n` + "```" + `"}`: `{"report":"use ` + "```" + `go\nx\n` + "```" + `"}`,
		`{"note":"a literal <think> tag"}`:                   `{"note":"a literal <think> tag"}`,
		"{\"a\":1}\nThat is my answer {with braces}.":        `{"a":1}`,
		"Answer [JSON]: {\"a\":[1]}":                         `{"a":[1]}`,
		"Here you go:\n```json\n{\"a\":\"}\"}\n```\nthanks":  `{"a":"}"}`,
	}
	for in, want := range cases {
		if got := extractJSON(in); got != want {
			t.Errorf("extractJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestThinkFilterMatchesStripThink(t *testing.T) {
	for _, text := range []string{
		"<think>hidden <b> reasoning</think>\n\nSection 6 applies, not <think> tags.",
		"  <think>a</think><think>b</think>Answer.",
		"Plain answer without thinking.",
		"<think>never closed",
		"<thi",
	} {
		want := StripThink(text)
		for _, size := range []int{1, 2, 3, 5, 8, 100} {
			var f thinkFilter
			var out strings.Builder
			for i := 0; i < len(text); i += size {
				out.WriteString(f.Push(text[i:min(i+size, len(text))]))
			}
			out.WriteString(f.Flush())
			if out.String() != want {
				t.Errorf("%q in pieces of %d: streamed %q, StripThink %q", text, size, out.String(), want)
			}
		}
	}
}

// An untyped field names every type (Ollama's grammar builder reads {} as any object and
// refuses a description alone), and type=object types a json.RawMessage.
func TestSchemaOfUntypedFields(t *testing.T) {
	var v struct {
		Any     json.RawMessage `json:"any" desc:"anything at all"`
		Profile json.RawMessage `json:"profile" desc:"the whole profile" schema:"type=object"`
	}
	s, err := SchemaOf(v)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	want := `{"type":"object","properties":{"any":{"type":["string","number","integer","boolean","object","array","null"],"description":"anything at all"},` +
		`"profile":{"type":"object","description":"the whole profile"}},"required":["any","profile"]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var bad struct {
		N int `json:"n" schema:"type=string"`
	}
	if _, err := SchemaOf(bad); err == nil {
		t.Error("type= on a typed field must be refused")
	}
	var unknown struct {
		V json.RawMessage `json:"v" schema:"type=float"`
	}
	if _, err := SchemaOf(unknown); err == nil {
		t.Error("type=float is not a JSON schema type")
	}
}

// A clone changed for one request leaves the schema SchemaOf keeps for the type as it was.
func TestCloneLeavesTheCachedSchemaAlone(t *testing.T) {
	type item struct {
		N int `json:"n"`
	}
	type list struct {
		Items []item `json:"items" schema:"maxItems=9"`
	}
	shared, err := SchemaOf(&list{})
	if err != nil {
		t.Fatal(err)
	}
	c := shared.Clone()
	k, lo := 3, 1.0
	c.Property("items").MinItems = &k
	c.Property("items").Items.Property("n").Minimum = &lo
	again, _ := SchemaOf(&list{})
	if again.Property("items").MinItems != nil || again.Property("items").Items.Property("n").Minimum != nil {
		t.Fatal("changing a clone changed the cached schema")
	}
	if *c.Property("items").MaxItems != 9 {
		t.Errorf("the clone lost the type's bounds")
	}
}

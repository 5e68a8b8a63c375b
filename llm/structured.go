package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/ollama/ollama/api"
)

// Structured asks for an answer in the shape of out (a pointer) and decodes it there. The
// schema (derived from out's type, or req.Schema) is sent as Ollama's `format`, so the server
// constrains the answer; the gateway still validates it, because small models and other
// servers do not always honour the constraint.
//
// Invalid output goes through the repair tier: the model sees its answer and the problems and
// is asked for corrected JSON, at most RepairAttempts times. An answer cut off at its length
// limit is retried once with a larger num_predict. What cannot be fixed ends as an
// *InvalidOutputError (errors.Is ErrInvalidOutput) that keeps the raw answer.
func (g *Gateway) Structured(ctx context.Context, req Request, out any) error {
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("llm.Structured needs a non-nil pointer to decode into, got %T", out)
	}
	t, err := g.target(req.Role)
	if err != nil {
		return err
	}
	schema := req.Schema
	if schema == nil {
		var err error
		if schema, err = SchemaOf(out); err != nil {
			return err
		}
	}
	format, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("couldn't encode the schema: %w", err)
	}
	messages := buildMessages(req)
	predict := predictFor(t, req)
	if predict <= 0 {
		// A model that loses its way inside a JSON string writes until its context is full;
		// a bound makes that a truncated answer in seconds rather than minutes.
		predict = defaultAllowance
	}
	kind := "structured"
	repairs, lengthRetried, rounds := 0, false, 0
	var asked []answer // the answers this call got from the model, forgotten if it fails
	fail := func(e *InvalidOutputError) error {
		if j := req.Call.Journal; j != nil {
			for _, a := range asked {
				if err := j.Forget(context.WithoutCancel(ctx), a.key, a.journalEntry()); err != nil {
					g.log.Warn("couldn't drop a failed call's answer from the journal", "error", err)
				}
			}
		}
		return e
	}

	for {
		rounds++
		var problems []string
		var decoded []byte
		a, err := g.send(ctx, t, exchange{kind: kind, messages: messages, format: format, numPredict: predict, req: &req,
			judge: func(a *answer) string {
				if a.doneReason == "length" {
					return "truncated"
				}
				decoded, problems = checkAnswer(a.content, schema)
				if len(problems) > 0 {
					return "invalid"
				}
				return "ok"
			}})
		if err != nil {
			return err
		}
		if !a.replayed {
			asked = append(asked, a)
		}
		if a.doneReason == "length" {
			if lengthRetried {
				return fail(&InvalidOutputError{Model: t.model, Raw: a.content, Truncated: true, Rounds: rounds,
					Problems: []string{fmt.Sprintf("stopped at the length limit twice (num_predict %d)", a.predict)}})
			}
			lengthRetried = true
			predict = largerPredict(a.predict)
			kind = "length_retry"
			g.log.Info("structured answer truncated, retrying with a larger num_predict", "model", t.model, "num_predict", predict)
			continue
		}
		if len(problems) == 0 {
			if err := json.Unmarshal(decoded, out); err != nil {
				problems = []string{fmt.Sprintf("$: %v", err)}
			} else {
				return nil
			}
		}
		if repairs >= g.settings.RepairAttempts {
			return fail(&InvalidOutputError{Model: t.model, Raw: a.content, Problems: problems, Rounds: rounds})
		}
		repairs++
		kind = "repair"
		g.log.Info("structured answer invalid, asking for a repair", "model", t.model, "round", repairs, "problems", problems)
		messages = append(messages,
			api.Message{Role: "assistant", Content: a.content},
			api.Message{Role: "user", Content: repairPrompt(problems)})
	}
}

// checkAnswer extracts the JSON from an answer, decodes it and validates it. It returns the
// JSON text to decode into the caller's type, and the problems found.
func checkAnswer(content string, schema *Schema) ([]byte, []string) {
	text := extractJSON(content)
	if text == "" {
		return nil, []string{"$: the answer is empty; a JSON value is required"}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, []string{fmt.Sprintf("$: not valid JSON (%v)", err)}
	}
	if dec.More() {
		return nil, []string{"$: more than one JSON value; send exactly one"}
	}
	if clamped, changed := schema.clampNumbers(v); changed {
		v = clamped
		b, err := json.Marshal(v)
		if err != nil {
			return nil, []string{fmt.Sprintf("$: %v", err)}
		}
		text = string(b)
	}
	if problems := schema.Validate(v); len(problems) > 0 {
		return nil, problems
	}
	return []byte(text), nil
}

func repairPrompt(problems []string) string {
	var b bytes.Buffer
	b.WriteString("Your answer does not match the required JSON schema:\n")
	for _, p := range problems {
		b.WriteString("- ")
		b.WriteString(p)
		b.WriteByte('\n')
	}
	b.WriteString("Reply again with only the corrected JSON value, keeping everything that was right.")
	return b.String()
}

// largerPredict is the num_predict for the one retry after a truncated answer: twice what was
// sent, or, when nothing was sent and the model stopped at its own limit, a generous fixed one.
func largerPredict(sent int) int {
	if sent <= 0 {
		return 8192
	}
	return sent * 2
}

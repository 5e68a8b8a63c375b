package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Meaningless answers any request with something valid in shape and empty of sense: the
// smallest instance of the requested JSON schema, or for a text request a few uncited and
// cited sentences. It is how a small model that follows the grammar but not the task looks.
func Meaningless(c Call) string {
	if len(c.Format) == 0 || string(c.Format) == "null" {
		return "Lorem ipsum dolor sit amet [1].\n\nConsectetur adipiscing elit, sed do eiusmod [2].\n\nUt enim ad minim veniam [99]."
	}
	var schema map[string]any
	if err := json.Unmarshal(c.Format, &schema); err != nil {
		return `"lorem"`
	}
	data, _ := json.Marshal(instance(schema, 0))
	return string(data)
}

func instance(s map[string]any, depth int) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	num := func(key string, def float64) float64 {
		if v, ok := s[key].(float64); ok {
			return v
		}
		return def
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				required[fmt.Sprint(r)] = true
			}
		}
		for name, p := range props {
			if sub, ok := p.(map[string]any); ok && (required[name] || depth == 0) {
				out[name] = instance(sub, depth+1)
			}
		}
		return out
	case "array":
		n := int(num("minItems", 0))
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, instance(items, depth+1))
		}
		return out
	case "string":
		n := int(num("minLength", 5))
		return strings.Repeat("lorem ", n/6+1)[:max(n, 5)]
	case "integer":
		lo, hi := num("minimum", 0), num("maximum", 100)
		return int((lo + hi) / 2)
	case "number":
		lo, hi := num("minimum", 0), num("maximum", 1)
		return (lo + hi) / 2
	case "boolean":
		return true
	}
	return nil
}

// SetFallback answers every request that no rule matches with f (Meaningless, say) instead
// of failing it.
func (s *Server) SetFallback(f func(Call) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = f
}

// Command llmtest-server runs warren's scripted Ollama-compatible test server on its own, so
// that the real binary can be driven from scripts without a model. It answers /api/tags,
// /api/show, /api/version and /api/embed for the models it is given; chat requests answer
// with a rule file's replies. --slots sets how many requests it answers at once (the rest
// queue, each holding its slot for --latency), as OLLAMA_NUM_PARALLEL does for Ollama.
//
//	go run ./llm/llmtest/cmd/llmtest-server --addr 127.0.0.1:11999 --slots 1 --latency 200ms
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"warren/llm/llmtest"
)

// fileRule is one chat rule as written in a --rules JSON file.
type fileRule struct {
	Name        string   `json:"name"`
	Contains    string   `json:"contains"`
	AnyContains string   `json:"any_contains"`
	SchemaHas   string   `json:"schema_has"`
	Replies     []string `json:"replies"`
	Times       int      `json:"times"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:11999", "address to listen on")
	chat := flag.String("chat", llmtest.ChatModel, "chat models, comma-separated (empty: none)")
	embed := flag.String("embed", llmtest.EmbedModel, "embedding models, comma-separated (empty: none)")
	rules := flag.String("rules", "", "JSON file with a list of chat rules {name, contains, any_contains, schema_has, replies, times}")
	meaningless := flag.Bool("meaningless", false, "answer requests no rule matches with schema-valid but meaningless content")
	latency := flag.Duration("latency", 0, "delay before every answer, during which the request holds a slot")
	slots := flag.Int("slots", llmtest.DefaultSlots, "chat and embed requests answered at once; the rest queue in arrival order (0: no limit)")
	flag.Parse()

	srv, err := llmtest.StartAt(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmtest-server:", err)
		os.Exit(1)
	}
	var models []llmtest.Model
	for _, n := range splitList(*chat) {
		models = append(models, llmtest.Model{Name: n})
	}
	for _, n := range splitList(*embed) {
		models = append(models, llmtest.Model{Name: n, Embedding: true})
	}
	srv.SetModels(models...)
	if *rules != "" {
		if err := loadRules(srv, *rules); err != nil {
			fmt.Fprintln(os.Stderr, "llmtest-server:", err)
			os.Exit(1)
		}
	}
	if *meaningless {
		srv.SetFallback(llmtest.Meaningless)
	}
	if *slots < 0 {
		fmt.Fprintln(os.Stderr, "llmtest-server: --slots must be 0 (no limit) or more")
		os.Exit(2)
	}
	srv.SetLatency(*latency)
	srv.SetSlots(*slots)
	fmt.Printf("llmtest-server listening on %s (%s)\n", srv.URL, slotText(*slots))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	srv.Close()
}

func slotText(n int) string {
	if n == 0 {
		return "no slot limit"
	}
	return fmt.Sprintf("%d slot(s)", n)
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func loadRules(srv *llmtest.Server, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("couldn't read the rules: %w", err)
	}
	var list []fileRule
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("couldn't parse the rules %s: %w", path, err)
	}
	for _, r := range list {
		srv.Handle(&llmtest.Rule{Name: r.Name, Contains: r.Contains, AnyContains: r.AnyContains,
			SchemaHas: r.SchemaHas, Replies: r.Replies, Times: r.Times})
	}
	return nil
}

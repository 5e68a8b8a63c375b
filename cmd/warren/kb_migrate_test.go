package main

import (
	"encoding/json"
	"strings"
	"testing"

	"warren/internal/cli"
)

// The migrate itself runs against a real server in make e2e-weaviate (e2e/weaviate), and its
// usage errors are in badLines; here, a workspace that names no server.
func TestKBMigrateRefusesWithoutAServer(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"}
	r := warren(t, env, "kb", "migrate", "--to", "weaviate", "--json")
	var out struct {
		Error string `json:"error"`
	}
	if r.code != cli.ExitFailure || json.Unmarshal([]byte(r.stdout), &out) != nil || !strings.Contains(out.Error, "kb.weaviate.url is not set") {
		t.Errorf("without kb.weaviate.url: want exit 1 and the missing key named, got %+v", r)
	}
}

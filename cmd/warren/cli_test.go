package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
	"warren/llm/llmtest"

	"github.com/spf13/cobra"
)

type result struct {
	code           int
	stdout, stderr string
}

func warren(t *testing.T, env []string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut, env)
	return result{code, out.String(), errOut.String()}
}

func TestBareWarrenPrintsHelp(t *testing.T) {
	r := warren(t, nil)
	if r.code != 0 || !strings.Contains(r.stdout, "Available Commands") || !strings.Contains(r.stdout, "doctor") {
		t.Fatalf("%+v", r)
	}
}

// TestEveryCommandHasItsHelp: help.txt has an entry for every command, and only for commands,
// and every command has a short line and an example.
func TestEveryCommandHasItsHelp(t *testing.T) {
	root := (&app{}).rootCommand()
	missing, orphaned := cli.SetHelp(root, helpText)
	if len(missing) > 0 || len(orphaned) > 0 {
		t.Errorf("help.txt lacks %q and has entries for no command: %q", missing, orphaned)
	}
	walk(root, func(cmd *cobra.Command) {
		if cmd.Short == "" || cmd.Example == "" {
			t.Errorf("%s lacks a short description or an example", cmd.CommandPath())
		}
	})
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"doctor", "--nope"}, {"version", "extra"}, {"--log-level", "loud", "version"}} {
		if r := warren(t, nil, args...); r.code != cli.ExitUsage || !strings.HasPrefix(r.stderr, "warren: ") {
			t.Errorf("%v: want exit 2 with one clear line, got %+v", args, r)
		}
	}
}

func TestVersionJSON(t *testing.T) {
	r := warren(t, nil, "version", "--json")
	var v cli.Version
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || v.Version == "" || v.Go == "" {
		t.Fatalf("%+v", r)
	}
}

func TestInitThenDoctorAgainstScriptedServer(t *testing.T) {
	srv := llmtest.New(t)
	ws := filepath.Join(t.TempDir(), "ws")
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=" + srv.URL}

	r := warren(t, env, "init")
	if r.code != 0 || !strings.Contains(r.stdout, "created warren.toml") {
		t.Fatalf("init: %+v", r)
	}
	r = warren(t, env, "init", "--json")
	var res struct{ Created, Existing []string }
	if json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Created) != 0 || len(res.Existing) != 6 {
		t.Fatalf("second init creates nothing: %+v", r)
	}

	r = warren(t, env, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "All checks passed") || !strings.Contains(r.stdout, "768 dimensions") {
		t.Fatalf("doctor should pass:\n%s%s", r.stdout, r.stderr)
	}

	srv.RemoveModel(llmtest.ChatModel)
	r = warren(t, env, "doctor", "--json")
	var report struct {
		OK     bool
		Checks []struct{ Name, Status, Fix string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	if r.code != cli.ExitFailure || report.OK {
		t.Fatalf("a missing model must fail: %+v", r)
	}
	found := false
	for _, c := range report.Checks {
		found = found || (c.Name == "chat model" && strings.Contains(c.Fix, "ollama pull qwen3:8b"))
	}
	if !found {
		t.Errorf("the fix names the pull command: %s", r.stdout)
	}
}

func TestDoctorWithNothingListening(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	r := warren(t, nil, "--workspace", ws, "--ollama-host", addr, "doctor")
	if r.code != cli.ExitFailure {
		t.Fatalf("want exit 1, got %+v", r)
	}
	for _, want := range []string{"Ollama is not reachable at http://" + addr, "ollama serve"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestInvalidConfigIsOneLine(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	os.WriteFile(filepath.Join(ws, "warren.toml"), []byte("[models.chat]\ntemperature = 9\n"), 0o644)
	r := warren(t, nil, "--workspace", ws, "config")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != cli.ExitFailure || len(lines) != 1 || !strings.Contains(lines[0], "models.chat.temperature") ||
		!strings.Contains(lines[0], `"9"`) || !strings.Contains(lines[0], "allowed is") {
		t.Fatalf("want one line naming key, value and what is allowed: %+v", r)
	}
}

func TestConfigShowsSources(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	r := warren(t, []string{"WARREN_MODELS_EMBED_MODEL=mxbai-embed-large"}, "--workspace", ws, "--ollama-host", "gpu:11434", "config", "--json")
	var entries []struct {
		Key    string
		Value  any
		Source string
	}
	if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil {
		t.Fatal(err, r.stdout)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Key] = e.Source
	}
	if got["ollama.host"] != "flag" || got["models.embed.model"] != "env WARREN_MODELS_EMBED_MODEL" ||
		!strings.HasSuffix(got["models.chat.model"], "warren.toml") || got["ollama.retries"] != "default" {
		t.Errorf("sources: %v", got)
	}
}

func TestLogFileReceivesDiagnostics(t *testing.T) {
	srv := llmtest.New(t)
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	logPath := filepath.Join(t.TempDir(), "warren.log")
	r := warren(t, []string{"OLLAMA_HOST=" + srv.URL}, "--workspace", ws, "--log-file", logPath, "doctor")
	data, _ := os.ReadFile(logPath)
	if r.code != 0 || !strings.Contains(string(data), `msg="doctor check" name="chat model" status=ok`) ||
		strings.Contains(r.stdout+r.stderr, "doctor check") {
		t.Errorf("diagnostics go to the log file only: code %d, log %q, terminal %q", r.code, data, r.stdout+r.stderr)
	}
}

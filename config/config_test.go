package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPrecedenceDefaultsFileEnvFlags(t *testing.T) {
	file := writeFile(t, `
[ollama]
host = "http://file-host:11434"
retries = 7
[models.chat]
model = "llama3.1:8b"
temperature = 0.3
[models.embed]
model = "mxbai-embed-large"
`)
	env := []string{"OLLAMA_HOST=env-host:9999", "WARREN_MODELS_CHAT_MODEL=mistral:7b", "UNRELATED=x"}
	c, err := Load(Sources{File: file, Env: env, Flags: map[string]string{"ollama.host": "flag-host"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, got, want, source string
	}{
		{"host from flag beats env and file", c.Ollama.Host, "http://flag-host:11434", "flag"},
		{"chat model from env beats file", c.Chat.Model, "mistral:7b", "env WARREN_MODELS_CHAT_MODEL"},
		{"embed model from file beats default", c.Embed.Model, "mxbai-embed-large", file},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if c.Sources["models.chat.model"] != "env WARREN_MODELS_CHAT_MODEL" || c.Sources["ollama.host"] != "flag" {
		t.Errorf("sources not recorded: %v", c.Sources)
	}
	if c.Ollama.Retries != 7 || c.Chat.Temperature != 0.3 {
		t.Errorf("file values lost: retries %d temperature %v", c.Ollama.Retries, c.Chat.Temperature)
	}
	if c.Ollama.EmbedBatchSize != 32 || c.Sources["ollama.embed_batch_size"] != "default" {
		t.Errorf("default lost: %d from %s", c.Ollama.EmbedBatchSize, c.Sources["ollama.embed_batch_size"])
	}
}

func TestMissingFileMeansDefaults(t *testing.T) {
	c, err := Load(Sources{File: filepath.Join(t.TempDir(), "absent.toml")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Chat.Model != "qwen3:8b" || c.Embed.Model != "nomic-embed-text" || c.Ollama.Host != DefaultHost {
		t.Errorf("unexpected defaults: %+v", c)
	}
}

func TestResolvedRoleFallbacks(t *testing.T) {
	c := Default()
	c.Chat.Host = "http://gpu:11434"
	fast := c.Resolved(RoleFast)
	if fast.Model != "qwen3:8b" || fast.Host != "http://gpu:11434" {
		t.Errorf("fast should fall back to the chat model and host, got %+v", fast)
	}
	if embed := c.Resolved(RoleEmbed); embed.Host != DefaultHost {
		t.Errorf("embed should use ollama.host, got %q", embed.Host)
	}
	c.Fast.Model = "qwen3:1.7b"
	if fast := c.Resolved(RoleFast); fast.Model != "qwen3:1.7b" || fast.Host != DefaultHost {
		t.Errorf("an explicit fast model uses ollama.host, got %+v", fast)
	}
}

func TestInvalidValuesNameKeyValueAndAllowed(t *testing.T) {
	cases := []struct {
		name  string
		src   Sources
		key   string
		value string
	}{
		{"temperature out of range in file", Sources{File: writeFile(t, "[models.chat]\ntemperature = 3.5\n")}, "models.chat.temperature", "3.5"},
		{"bad duration in env", Sources{Env: []string{"WARREN_OLLAMA_TIMEOUT=soon"}}, "ollama.timeout", "soon"},
		{"bad host flag", Sources{Flags: map[string]string{"ollama.host": "ftp://x"}}, "ollama.host", "ftp://x"},
		{"empty chat model", Sources{Env: []string{"WARREN_MODELS_CHAT_MODEL="}}, "models.chat.model", ""},
		{"negative concurrency", Sources{File: writeFile(t, "[ollama]\nmax_concurrency = 0\n")}, "ollama.max_concurrency", "0"},
		{"threshold above one", Sources{Env: []string{"WARREN_THRESHOLDS_RELEVANCE=1.5"}}, "thresholds.relevance", "1.5"},
		{"b above one", Sources{Env: []string{"WARREN_KB_BM25_B=1.5"}}, "kb.bm25_b", "1.5"},
		{"b neither a number nor auto", Sources{File: writeFile(t, "[kb]\nbm25_b = \"automatic\"\n")}, "kb.bm25_b", "automatic"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.src)
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("want ValueError, got %v", err)
			}
			msg := err.Error()
			if ve.Key != tc.key || ve.Value != tc.value || strings.Contains(msg, "\n") ||
				!strings.Contains(msg, tc.key) || !strings.Contains(msg, "allowed is") {
				t.Errorf("message should name key, value and what is allowed in one line: %q", msg)
			}
		})
	}
}

func TestUnknownKeySuggestsClosest(t *testing.T) {
	_, err := Load(Sources{File: writeFile(t, "[models.chat]\nmodle = \"x\"\n")})
	var uk *UnknownKeyError
	if !errors.As(err, &uk) || uk.Suggestion != "models.chat.model" {
		t.Fatalf("want suggestion models.chat.model, got %v", err)
	}
}

func TestMalformedTOMLIsOneClearError(t *testing.T) {
	_, err := Load(Sources{File: writeFile(t, "[ollama\nhost = 1")})
	if err == nil || !strings.Contains(err.Error(), "couldn't parse") {
		t.Fatalf("want parse error, got %v", err)
	}
}

func TestDefaultFileRoundTrips(t *testing.T) {
	c, err := Load(Sources{File: writeFile(t, DefaultFile())})
	if err != nil {
		t.Fatalf("the generated default file must load: %v\n%s", err, DefaultFile())
	}
	d := Default()
	for _, e := range c.Entries() {
		k, _ := lookupKey(e.Key)
		if !reflect.DeepEqual(e.Value, k.get(d)) {
			t.Errorf("%s: default file gives %v, default is %v", e.Key, e.Value, k.get(d))
		}
	}
	// Every key is in the file, commented or not, so analysts can discover them.
	for _, name := range KeyNames() {
		_, field := splitKey(name)
		if !strings.Contains(DefaultFile(), field+" = ") {
			t.Errorf("default file lacks %s", name)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	cases := map[string]string{
		"localhost":               "http://localhost:11434",
		"10.0.0.5:8080":           "http://10.0.0.5:8080",
		"https://models.lab":      "https://models.lab:443",
		"http://127.0.0.1:11434/": "http://127.0.0.1:11434",
		"http://[::1]":            "http://[::1]:11434",
	}
	for in, want := range cases {
		got, err := NormalizeHost(in)
		if err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		if _, err := NormalizeHost(bad); err == nil {
			t.Errorf("NormalizeHost(%q) should fail", bad)
		}
	}
}

func TestDurationsParse(t *testing.T) {
	c, err := Load(Sources{Env: []string{"WARREN_MODELS_CHAT_KEEP_ALIVE=30m", "WARREN_BUDGETS_RUN_TIME=2h"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Chat.KeepAlive != 30*time.Minute || c.Budgets.RunTime != 2*time.Hour {
		t.Errorf("got keep_alive %v run_time %v", c.Chat.KeepAlive, c.Budgets.RunTime)
	}
}

// kb.bm25_b is auto (b from the chunks' lengths) by default, shown as such, and takes a number
// from a file or the environment.
func TestBM25BIsAutoOrANumber(t *testing.T) {
	c, err := Load(Sources{})
	if err != nil || c.KB.BM25B != AutoB {
		t.Fatalf("default b %v, %v", c.KB.BM25B, err)
	}
	k, _ := lookupKey("kb.bm25_b")
	if got := k.get(c); got != "auto" {
		t.Errorf("shown as %v, want auto", got)
	}
	c, err = Load(Sources{File: writeFile(t, "[kb]\nbm25_b = 0.4\n")})
	if err != nil || c.KB.BM25B != 0.4 || k.get(c) != 0.4 {
		t.Errorf("b from a file: %v %v", c.KB.BM25B, err)
	}
	c, err = Load(Sources{Env: []string{"WARREN_KB_BM25_B=AUTO"}})
	if err != nil || c.KB.BM25B != AutoB {
		t.Errorf("auto from the environment: %v %v", c.KB.BM25B, err)
	}
}

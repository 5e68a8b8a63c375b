package doctor

import (
	"context"
	"net"
	"strings"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/llm/llmtest"
)

func workspace(t *testing.T) string {
	dir := t.TempDir()
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func find(r Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

func TestPassesAgainstAServerWithTheDefaultModels(t *testing.T) {
	srv := llmtest.New(t)
	r := Run(context.Background(), Input{Workspace: workspace(t), Sources: config.Sources{Env: []string{"OLLAMA_HOST=" + srv.URL}}})
	if !r.OK {
		t.Fatalf("want all checks to pass:\n%s", r.Text())
	}
	if c := find(r, "embedding"); c.Detail != "768 dimensions" {
		t.Errorf("embedding check: %+v", c)
	}
	if c := find(r, "fast model"); c.Status != OK || !strings.Contains(c.Detail, "the chat model") {
		t.Errorf("fast model check: %+v", c)
	}
}

func TestUnreachableHostFailsWithHowToStart(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	r := Run(context.Background(), Input{Workspace: workspace(t), Sources: config.Sources{Flags: map[string]string{"ollama.host": addr}}})
	if r.OK {
		t.Fatal("must fail with nothing listening")
	}
	host := find(r, "ollama http://"+addr)
	if host.Status != Fail || !strings.Contains(host.Detail, "not reachable at http://"+addr) || !strings.Contains(host.Fix, "ollama serve") {
		t.Errorf("host check: %+v\n%s", host, r.Text())
	}
	if c := find(r, "chat model"); c.Status != Skip {
		t.Errorf("model checks are skipped when the host is down: %+v", c)
	}
}

func TestMissingModelNamesThePullCommand(t *testing.T) {
	srv := llmtest.New(t)
	srv.RemoveModel(llmtest.EmbedModel)
	r := Run(context.Background(), Input{Workspace: workspace(t), Sources: config.Sources{Env: []string{"OLLAMA_HOST=" + srv.URL}}})
	c := find(r, "embed model")
	if r.OK || c.Status != Fail || !strings.Contains(c.Fix, "ollama pull nomic-embed-text") {
		t.Fatalf("embed model check: %+v\n%s", c, r.Text())
	}
	if !strings.Contains(r.Text(), "fix: run `OLLAMA_HOST="+srv.URL+" ollama pull nomic-embed-text`") {
		t.Errorf("the table shows the fix:\n%s", r.Text())
	}
}

func TestNoWorkspaceAndInvalidConfig(t *testing.T) {
	r := Run(context.Background(), Input{Workspace: t.TempDir(), Sources: config.Sources{Env: []string{"WARREN_OLLAMA_RETRIES=many"}}})
	if r.OK || find(r, "workspace").Status != Fail || !strings.Contains(find(r, "workspace").Fix, "warren init") {
		t.Errorf("workspace check: %+v", find(r, "workspace"))
	}
	if c := find(r, "config"); c.Status != Fail || !strings.Contains(c.Detail, "ollama.retries") {
		t.Errorf("config check: %+v", c)
	}
	if c := find(r, "chat model"); c.Status != Skip {
		t.Errorf("model checks skip on an invalid config: %+v", c)
	}
}

// Every host of every role is checked: a host that lacks the model fails with the pull
// command for that host, while the role's other host passes.
func TestEveryHostOfARoleIsChecked(t *testing.T) {
	a, b := llmtest.New(t), llmtest.New(t)
	b.RemoveModel(llmtest.ChatModel)
	env := []string{"OLLAMA_HOST=" + a.URL, "WARREN_MODELS_CHAT_HOSTS=" + a.URL + "," + b.URL + "#3"}
	r := Run(context.Background(), Input{Workspace: workspace(t), Sources: config.Sources{Env: env}})
	if r.OK {
		t.Fatalf("a host without the chat model must fail the report:\n%s", r.Text())
	}
	for _, host := range []string{a.URL, b.URL} {
		if c := find(r, "ollama "+host); c.Status != OK {
			t.Errorf("host %s: %+v", host, c)
		}
	}
	if c := find(r, "chat model on "+a.URL); c.Status != OK {
		t.Errorf("chat on A: %+v\n%s", c, r.Text())
	}
	c := find(r, "chat model on "+b.URL)
	if c.Status != Fail || !strings.Contains(c.Detail, "requests skip this host") ||
		c.Fix != "run `OLLAMA_HOST="+b.URL+" ollama pull qwen3:8b`" {
		t.Errorf("chat on B: %+v\n%s", c, r.Text())
	}
	if c := find(r, "fast model on "+b.URL); c.Status != Fail {
		t.Errorf("the fast role follows the chat hosts: %+v\n%s", c, r.Text())
	}
	if c := find(r, "embed model"); c.Status != OK {
		t.Errorf("the embed role keeps its one host: %+v", c)
	}
}

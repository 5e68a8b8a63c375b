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

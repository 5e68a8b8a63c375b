package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/cli"
	"warren/internal/testkb"
)

func TestResearchExportWritesTheDocumentAndSaysWhere(t *testing.T) {
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	e := openAs(t, env)
	ctx := context.Background()
	const run = "run-purge"
	st := research.State{Question: "How is a silane cylinder purged?", Language: "en",
		Sources: []research.Source{{N: 1, Doc: "procedures/gas-cabinet.md", Section: "5.2", Collection: "internal", Excerpt: "Purge the pigtail with nitrogen for at least five cycles."}},
		Report:  "# Purging\n\nThe pigtail is purged five times [1].\n"}
	raw, _ := json.Marshal(st)
	if err := e.RunStore().CreateRun(ctx, run, research.GraphName, "purge"); err != nil {
		t.Fatal(err)
	}
	if err := e.RunStore().Save(ctx, agent.Checkpoint{Run: run, Step: 1, Node: "attribute", Status: agent.StatusDone, State: raw}); err != nil {
		t.Fatal(err)
	}

	r := warren(t, env, "research", "export", run, "--format", "docx", "--json")
	var res struct {
		Path  string
		Bytes int64
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Path != filepath.Join(ws, "exports", "research-"+run+".docx") || res.Bytes <= 0 {
		t.Fatalf("export: %+v", r)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "purge.pdf")
	r = warren(t, env, "research", "export", run, "-f", "pdf", "--out", out)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Report of run run-purge written to "+out+" (pdf, ") {
		t.Fatalf("export --out: %+v", r)
	}

	// An unknown run says where the runs are listed; an unknown format lists the formats.
	r = warren(t, env, "research", "export", "run-none", "--format", "html")
	if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "`warren sessions list` shows the runs") {
		t.Errorf("an unknown run: %+v", r)
	}
	r = warren(t, env, "research", "export", run, "--format", "rtf")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "md, docx, odt, pdf or html") {
		t.Errorf("an unknown format: %+v", r)
	}
	// The research command itself still takes a question.
	r = warren(t, env, "research")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "give the QUESTION") {
		t.Errorf("research without a question: %+v", r)
	}
}

func TestGasAndToxExportTheirSummariesAsDocuments(t *testing.T) {
	env := contractWorkspace(t)
	out := filepath.Join(t.TempDir(), "hmis-summary.html")
	r := warren(t, env, "gas", "export", out)
	if r.code != 0 || !strings.Contains(r.stdout, "Exported the table's summary (html) to "+out) {
		t.Fatalf("gas summary: %+v", r)
	}
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "Cells by state") {
		t.Errorf("the summary: %v", err)
	}
	if r := warren(t, env, "tox", "import", filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); r.code != 0 {
		t.Fatalf("tox import: %+v", r)
	}
	r = warren(t, env, "tox", "export", "eugenol", "--format", "pdf", "--json")
	var res struct{ Path string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || filepath.Base(res.Path) != "tox-EUGENOL.pdf" {
		t.Fatalf("tox export: %+v", r)
	}
}

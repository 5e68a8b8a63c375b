package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/agent"
	"warren/gas"
	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
)

// warrenIn is warren with stdin.
func warrenIn(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut, env)
	return result{code, out.String(), errOut.String()}
}

// jobIDs lists the jobs `warren jobs list --json` gives.
func jobIDs(t *testing.T, env []string) []string {
	t.Helper()
	r := warren(t, env, "jobs", "list", "--json")
	var list []struct{ ID string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil {
		t.Fatalf("jobs --json: %+v", r)
	}
	var ids []string
	for _, j := range list {
		ids = append(ids, j.ID)
	}
	return ids
}

// A fill killed after its run was recorded but before its first checkpoint resumes: "no
// checkpoint yet" is not "no run" (it was `UNIQUE constraint failed: runs.id` for ever).
func TestGasFillKilledBeforeItsFirstCheckpointResumes(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	if r := warren(t, env, "gas", "import", filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	ctx := context.Background()
	fill, err := (&gas.Store{DB: ws.DB}).StartFill(ctx, "hmis-sample", []int{1, 2}, []string{"suppliers"})
	if err != nil {
		t.Fatal(err)
	}
	// What a process killed in its first half second leaves: the run's record, no checkpoint.
	if err := (&agent.Store{DB: ws.DB}).CreateRun(ctx, service.GasFillRun(fill), "gasfill", "gas fill of hmis-sample (2 rows)"); err != nil {
		t.Fatal(err)
	}
	r := warren(t, env, "gas", "fill", "--resume", "--json")
	var sum service.GasFillSummary
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("fill --resume of a run without a checkpoint: %+v", r)
	}
	if len(sum.Results) != 2 {
		t.Errorf("the resumed fill worked rows %+v, want 1 and 2", sum.Results)
	}
}

// A run that is not there is refused before any job is recorded: no failed job stays behind.
func TestResearchResumeOfAMissingRunRecordsNoJob(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	srv := llmtest.New(t)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=" + srv.URL}
	r := warren(t, env, "research", "--resume", "does-not-exist", "--yes")
	if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "does-not-exist") || !strings.Contains(r.stderr, "sessions list") {
		t.Errorf("want exit 1 naming the run and where the runs are: %+v", r)
	}
	if strings.Contains(r.stderr, "the run is saved") {
		t.Errorf("a run that is not there is not \"saved\": %q", r.stderr)
	}
	if ids := jobIDs(t, env); len(ids) != 0 {
		t.Errorf("the refused resume left jobs %v", ids)
	}
}

// `--resume --yes` would take "--yes" as the run: a usage error says how to write it.
func TestResearchResumeRefusesAFlagAsTheRun(t *testing.T) {
	for _, args := range [][]string{{"research", "--resume", "--yes"}, {"research", "--resume", "-y"}, {"research", "--resume=--json"}} {
		r := warren(t, nil, args...)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--resume RUN") {
			t.Errorf("%v: want a usage error (exit 2) that shows `--resume RUN`: %+v", args, r)
		}
	}
}

// `warren research -` reads the question from stdin; an empty stdin is a usage error.
func TestResearchDashReadsTheQuestionFromStdin(t *testing.T) {
	ws, _, _ := testkb.Corpus(t)
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	if r := warrenIn(t, " \n", env, "research", "-", "--yes"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "stdin") {
		t.Errorf("an empty stdin: want a usage error naming stdin: %+v", r)
	}
	const question = "Welche Pflichten hat der Arbeitgeber?"
	r := warrenIn(t, question+"\n", env, "research", "-", "--yes", "--json")
	var sum service.ResearchSummary
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("research -: %+v", r)
	}
	r = warren(t, env, "sessions", "show", sum.Run)
	if !strings.Contains(r.stdout, "Question: "+question+"\n") {
		t.Errorf("the run's question is not the one on stdin:\n%s", r.stdout)
	}
}

// Ingesting documents into another collection than theirs is refused, naming the collection
// they are in, and leaves both as they were; --move moves them.
func TestIngestIntoAnotherCollectionRefusesUnlessMove(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"} // the built-in embedder
	docs := filepath.Join(t.TempDir(), "literature")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Silane\n\nSilane ignites in air.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "b.md"), []byte("# Arsine\n\nArsine is toxic.\n"), 0o644)
	if r := warren(t, env, "ingest", docs, "--collection", "literature"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	collections := func() map[string]string {
		t.Helper()
		r := warren(t, env, "kb", "list", "--json")
		var list struct {
			Documents []struct{ ID, Collection string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
			t.Fatalf("kb list --json: %v %+v", err, r)
		}
		out := map[string]string{}
		for _, d := range list.Documents {
			out[d.ID] = d.Collection
		}
		return out
	}
	before := collections()
	r := warren(t, env, "ingest", docs, "--collection", "lit2")
	if r.code == 0 || !strings.Contains(r.stderr, `"literature"`) || !strings.Contains(r.stderr, "--move") {
		t.Errorf("want a refusal naming the collection and --move: %+v", r)
	}
	after := collections()
	if len(after) != 2 || after["literature/a.md"] != "literature" || after["literature/b.md"] != "literature" {
		t.Errorf("the refused ingest changed the collections: before %v, after %v", before, after)
	}
	if r = warren(t, env, "ingest", docs, "--collection", "lit2", "--move"); r.code != 0 {
		t.Fatalf("ingest --move: %+v", r)
	}
	if moved := collections(); moved["literature/a.md"] != "lit2" || moved["literature/b.md"] != "lit2" {
		t.Errorf("--move left the documents where they were: %v", moved)
	}
	// The same collection again is no move: unchanged, no refusal.
	if r = warren(t, env, "ingest", docs, "--collection", "lit2"); r.code != 0 {
		t.Errorf("re-ingesting into the documents' own collection: %+v", r)
	}
}

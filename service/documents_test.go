package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/agent"
	"warren/agent/research"
	"warren/kb/chunk"
	"warren/retrieval"
)

// twoProcedures ingests two documents that share a file name, in folders a and b of
// collection "standards".
func twoProcedures(t *testing.T) *Service {
	t.Helper()
	s := openService(t)
	dir := t.TempDir()
	for _, sub := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(dir, "docs", sub), 0o755)
		os.WriteFile(filepath.Join(dir, "docs", sub, "procedure.md"), []byte("# Procedure "+sub+"\n\n## 4.2 Purge\nPurge the pigtail with nitrogen.\n"), 0o644)
	}
	if _, err := s.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{filepath.Join(dir, "docs")}, Collection: "standards"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFindDocumentByIDNameOrNameWithoutExtensionAndSaysWhenAmbiguous(t *testing.T) {
	s := twoProcedures(t)
	ctx := context.Background()
	if id, err := s.Knowledge().FindDocument(ctx, "docs/a/procedure.md"); err != nil || id != "docs/a/procedure.md" {
		t.Errorf("by ID: %q %v", id, err)
	}
	for _, name := range []string{"procedure.md", "PROCEDURE"} {
		_, err := s.Knowledge().FindDocument(ctx, name)
		if err == nil || !strings.Contains(err.Error(), "docs/a/procedure.md or docs/b/procedure.md") {
			t.Errorf("%s names two documents: %v", name, err)
		}
	}
	if _, err := s.Knowledge().FindDocument(ctx, "nothing"); err == nil || !strings.Contains(err.Error(), "warren kb list") {
		t.Errorf("an unknown name says where to look: %v", err)
	}
}

func TestListAndSearchRefuseAnUnknownCollection(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	var unknown *UnknownCollectionError
	if _, err := s.Knowledge().List(ctx, "standards"); !errors.As(err, &unknown) || unknown.Name != "standards" || len(unknown.Have) != 0 {
		t.Errorf("an empty knowledge base has no collections: %v", err)
	}
	s = twoProcedures(t)
	if _, err := s.Knowledge().Search(ctx, retrieval.Request{Query: "purge"}); err != nil {
		t.Fatal(err)
	}
	req := retrieval.Request{Query: "purge"}
	req.Scope.Collections = []string{"standards", "rfc"}
	if _, err := s.Knowledge().Search(ctx, req); !errors.As(err, &unknown) || unknown.Name != "rfc" || strings.Join(unknown.Have, ",") != "standards" {
		t.Errorf("rfc is no collection: %v", err)
	}
	l, err := s.Knowledge().List(ctx, "standards")
	if err != nil || len(l.Collections) != 1 || len(l.Documents) != 2 {
		t.Errorf("list: %+v %v", l, err)
	}
	hits, err := s.Knowledge().Search(ctx, retrieval.Request{Query: "purge nitrogen", Mode: retrieval.Lexical, Scope: chunk.Scope{Doc: "docs/b/procedure.md"}})
	if err != nil || len(hits) == 0 || hits[0].Doc != "docs/b/procedure.md" {
		t.Errorf("search in one document: %+v %v", hits, err)
	}
}

func TestRemoveDocumentsStopsAtAnUnknownNameKeepingWhatItRemoved(t *testing.T) {
	s := twoProcedures(t)
	ctx := context.Background()
	removed, err := s.Knowledge().RemoveDocuments(ctx, []string{"docs/a/procedure.md", "nothing"})
	if err == nil || len(removed) != 1 {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if id, err := s.Knowledge().FindDocument(ctx, "procedure"); err != nil || id != "docs/b/procedure.md" {
		t.Errorf("with a removed, procedure names b alone: %q %v", id, err)
	}
}

func TestResolveReferencesFromANamedDocument(t *testing.T) {
	s := twoProcedures(t)
	res, err := s.Knowledge().ResolveReferences(context.Background(), retrieval.DetectorRegex, "See Section 4.2.", "docs/a/procedure.md", "", nil)
	if err != nil || len(res) != 1 || res[0].Resolved == nil || res[0].Resolved.Doc != "docs/a/procedure.md" || res[0].Resolved.Section != "4.2" {
		t.Fatalf("Section 4.2 resolves in the document it comes from: %+v %v", res, err)
	}
	if _, err := s.Knowledge().ResolveReferences(context.Background(), retrieval.DetectorRegex, "See Section 4.2.", "procedure", "", nil); err == nil {
		t.Error("an ambiguous --from is refused")
	}
}

func TestSessionShowsARunAndRemoveRunsRemovesIt(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	st := research.State{Question: "Which purge?", References: []research.RefRecord{{State: research.RefFollowed}, {State: research.RefSkipped}, {State: research.RefFollowed}}}
	data, _ := json.Marshal(st)
	store := s.RunStore()
	store.CreateRun(ctx, "r1", research.GraphName, st.Question)
	if err := store.Save(ctx, agent.Checkpoint{Run: "r1", Step: 1, Node: "refine", Status: agent.StatusDone, State: data}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Research().Session(ctx, "r1")
	if err != nil || sess.State.Question != "Which purge?" || sess.References[research.RefFollowed] != 2 || len(sess.Steps) != 1 {
		t.Fatalf("session: %+v %v", sess, err)
	}
	out, _ := json.Marshal(sess)
	var keys map[string]json.RawMessage
	json.Unmarshal(out, &keys)
	if _, ok := keys["usage"]; len(keys) != 5 || !ok || string(keys["decisions"]) != "[]" || !strings.HasPrefix(string(out), `{"checkpoint":`) {
		t.Errorf("the JSON is the checkpoint, ledger, steps, usage and decisions ([] for a run nobody answered): %s", out)
	}
	if err := s.Research().RemoveRuns(ctx, []string{"r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Research().Session(ctx, "r1"); !errors.Is(err, agent.ErrNoRun) {
		t.Errorf("the run is gone: %v", err)
	}
	if err := s.Research().RemoveRuns(ctx, []string{"r1"}); err == nil || !strings.Contains(err.Error(), "warren sessions list") {
		t.Errorf("removing it again says where the runs are: %v", err)
	}
}

func TestFinishedReportIsWrittenOnlyWhenMissingOrAsked(t *testing.T) {
	s := openService(t)
	st := &research.State{Question: "Which purge?", Report: "# Purge\n\nWith nitrogen."}
	path, err := s.Research().FinishedReport("r1", st, "")
	if err != nil || path != filepath.Join(s.ws.Dir, "exports", "research-r1.md") {
		t.Fatalf("%q %v", path, err)
	}
	os.WriteFile(path, []byte("edited"), 0o644)
	if _, err := s.Research().FinishedReport("r1", st, ""); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "edited" {
		t.Errorf("an existing report is left alone: %q", data)
	}
	out := filepath.Join(t.TempDir(), "r.md")
	if p, err := s.Research().FinishedReport("r1", st, out); err != nil || p != out {
		t.Fatalf("%q %v", p, err)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "With nitrogen") {
		t.Errorf("--out gets the report: %q", data)
	}
}

func TestPreparedAnswersArePickedByRound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "answers.yaml")
	os.WriteFile(path, []byte("questions: [\"Stoffe\", \"/end\"]\nplan: {action: replan, comment: shorter}\n"), 0o644)
	a, err := ReadAnswers(path)
	if err != nil || len(a.Plan) != 1 || a.Plan[0].Comment != "shorter" {
		t.Fatalf("one plan answer reads as a list of one: %+v %v", a, err)
	}
	ask := func(kind string, payload any) *agent.Interrupt {
		data, _ := json.Marshal(payload)
		return &agent.Interrupt{Kind: kind, Payload: data}
	}
	if got, ok, _ := a.Answer(ask(research.InterruptQuestions, research.QuestionsPayload{Iteration: 2})); !ok || string(got) != `"/end"` {
		t.Errorf("round 2: %s %v", got, ok)
	}
	if _, ok, _ := a.Answer(ask(research.InterruptPlan, research.PlanPayload{Round: 2})); ok {
		t.Error("no second plan answer, and no --yes: the run waits")
	}
	a.Yes = true
	if got, ok, _ := a.Answer(ask(research.InterruptPlan, research.PlanPayload{Round: 2})); !ok || !strings.Contains(string(got), "approve") {
		t.Errorf("--yes approves: %s", got)
	}
	if _, _, err := a.Answer(ask("mystery", nil)); err == nil {
		t.Error("an unknown interrupt cannot be answered")
	}
	plan := ask(research.InterruptPlan, research.PlanPayload{Round: 1})
	if got := Reply(plan, " Yes "); !strings.Contains(string(got), "approve") {
		t.Errorf("yes approves: %s", got)
	}
	if got := Reply(plan, "drop task 2"); !strings.Contains(string(got), `"replan"`) || !strings.Contains(string(got), "drop task 2") {
		t.Errorf("anything else replans: %s", got)
	}
	if a, err := ReadAnswers(""); err != nil || len(a.Questions)+len(a.Plan) != 0 {
		t.Errorf("no file, no answers: %+v %v", a, err)
	}
}

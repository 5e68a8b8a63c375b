package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/internal/testkb"
	"warren/kb"
	"warren/registry"
	"warren/service/jobs"
)

func openService(t *testing.T) *Service {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	// Nothing listens on this port: the built-in embedder serves, and no model is asked.
	s, err := Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin"}}, Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestIngestIsARecordedJobThatUpdatesTheRegistry(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	reg, err := registry.Load(filepath.Join(testkb.SampleDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	items := RegistryItems(reg, testkb.SampleDir())
	var last kb.Progress
	rep, err := s.Knowledge().Ingest(ctx, items, IngestOptions{Registry: reg, Progress: func(p kb.Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingested != len(items) || last.FilesDone != len(items) {
		t.Fatalf("ingested %d of %d, progress %+v", rep.Ingested, len(items), last)
	}
	list, err := s.jobs.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("jobs: %+v %v", list, err)
	}
	j := list[0]
	if j.Kind != jobs.KindIngest || j.State != jobs.JobDone || j.Owner != "ana" || j.Progress.Done != len(items) || j.Progress.Total != len(items) {
		t.Errorf("the ingest's job: %+v", j)
	}
	ws, err := s.Registry()
	if err != nil || ws.DocumentCount() != len(items) {
		t.Errorf("the workspace registry holds %d documents, want %d (%v)", ws.DocumentCount(), len(items), err)
	}
}

func TestCancelledIngestEndsItsJobCanceled(t *testing.T) {
	s := openService(t)
	reg, err := registry.Load(filepath.Join(testkb.SampleDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := s.Knowledge().Ingest(ctx, RegistryItems(reg, testkb.SampleDir()), IngestOptions{Progress: func(p kb.Progress) {
		if p.FilesDone >= 2 { // progress comes in steps: a batch of files is stored at once
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := s.jobs.List(context.Background())
	if !rep.Canceled || len(list) != 1 || list[0].State != jobs.JobCanceled {
		t.Fatalf("report canceled %v, jobs %+v", rep.Canceled, list)
	}
}

// A destination that is not a backend is refused before any server is asked: the error names
// the allowed ones, not a connection that failed.
func TestMigrateRefusesAnUnknownDestinationFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin",
		"kb.weaviate.url": "http://127.0.0.1:9"}}, Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	_, err = s.Knowledge().Migrate(context.Background(), MigrateOptions{To: "qdrant"})
	if err == nil || !strings.Contains(err.Error(), `to "qdrant": allowed is weaviate or embedded`) {
		t.Errorf("want the destination refused, got %v", err)
	}
}

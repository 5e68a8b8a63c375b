package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"warren/agent/research"
	"warren/config"
	"warren/internal/schema"
	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/chunk"
	"warren/registry"
	"warren/retrieval"
	"warren/service/audit"
)

// trail is the entries f selects, as the account (an admin) reads them.
func trail(t *testing.T, s *Service, f audit.Filter) []audit.Entry {
	t.Helper()
	es, err := s.Audit().List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// only is the one entry of action in es; it fails when there is none or more than one.
func only(t *testing.T, es []audit.Entry, action string) audit.Entry {
	t.Helper()
	var got []audit.Entry
	for _, e := range es {
		if e.Action == action {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d %s entries, want 1: %+v", len(got), action, got)
	}
	return got[0]
}

func detail(t *testing.T, e audit.Entry) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(e.Detail), &d); err != nil {
		t.Fatalf("detail of %s: %q: %v", e.Action, e.Detail, err)
	}
	return d
}

// Each use case the trail covers leaves one entry in the name of the view's analyst.
func TestEachActionIsRecordedOnceInItsAnalystsName(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	reg, err := registry.Load(filepath.Join(testkb.SampleDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	items := RegistryItems(reg, testkb.SampleDir())
	if _, err := s.Knowledge().Ingest(ctx, items, IngestOptions{Registry: reg}); err != nil {
		t.Fatal(err)
	}
	e := only(t, trail(t, s, audit.Filter{}), audit.ActionIngest)
	if e.Analyst != "ana" || e.Outcome != audit.OK || detail(t, e)["ingested"] != float64(len(items)) {
		t.Errorf("ingest: %+v", e)
	}

	const gone = "suppliers/veridian-phosphine.md"
	doc, ok, err := s.store.Document(ctx, gone)
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", gone, ok, err)
	}
	if _, err := s.Knowledge().RemoveDocuments(ctx, []string{gone}); err != nil {
		t.Fatal(err)
	}
	e = only(t, trail(t, s, audit.Filter{}), audit.ActionRemove)
	if d := detail(t, e); e.Target != doc.Collection || d["document"] != gone || e.Outcome != audit.OK {
		t.Errorf("remove: %+v", e)
	}

	bob := s.As("bob", false)
	res, err := bob.Knowledge().Search(ctx, retrieval.Request{Query: "arsine exposure limit", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	e = only(t, trail(t, s, audit.Filter{Analyst: "bob"}), audit.ActionSearch)
	if d := detail(t, e); d["query"] != "arsine exposure limit" || d["results"] != float64(len(res)) || e.Outcome != audit.OK {
		t.Errorf("search: %+v", e)
	}
	// A refused search is on record too, as failed.
	if _, err := bob.Knowledge().Search(ctx, retrieval.Request{Query: "x", Scope: chunk.Scope{Collections: []string{"nope"}}}); err == nil {
		t.Fatal("a search of an unknown collection ran")
	}
	if es := trail(t, s, audit.Filter{Analyst: "bob"}); len(es) != 2 || es[1].Outcome != audit.Failed || es[1].Target != "nope" {
		t.Errorf("the refused search: %+v", es)
	}

	// The question is recorded when the run is asked for, whatever the model does after.
	cleo := s.As("cleo", false)
	_, _, _ = cleo.Research().Start(ctx, "run-audit", "What is the TLV of arsine?", research.Options{}, nil)
	e = only(t, trail(t, s, audit.Filter{Analyst: "cleo"}), audit.ActionResearch)
	if e.Target != "run-audit" || detail(t, e)["question"] != "What is the TLV of arsine?" {
		t.Errorf("research: %+v", e)
	}
	if _, err := cleo.Research().ExportReport("run-audit", "# report\n"); err != nil {
		t.Fatal(err)
	}
	e = only(t, trail(t, s, audit.Filter{Analyst: "cleo"}), audit.ActionExport)
	if !strings.HasSuffix(e.Target, "research-run-audit.md") || e.Outcome != audit.OK {
		t.Errorf("export: %+v", e)
	}
}

func TestDeskDecisionsAreRecorded(t *testing.T) {
	s := toxService(t)
	ctx := context.Background()
	if _, err := s.Gas().Import(ctx, filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"), "fab", false); err != nil {
		t.Fatal(err)
	}
	dan := s.As("dan", false)
	view, err := dan.Gas().Table(ctx, "fab")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dan.Gas().Edit(ctx, "fab", 1, "odour", "repulsive", view.Row(1).Cells["odour"]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dan.Gas().Undo(ctx, "fab"); err != nil {
		t.Fatal(err)
	}
	if v, err := approveEdit(ctx, dan, "EUGENOL", eugenolPatch); err != nil || v != 2 {
		t.Fatalf("edit: %d %v", v, err)
	}
	if _, err := dan.Tox().Rollback(ctx, "EUGENOL", 1, 2, "back"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range trail(t, s, audit.Filter{Analyst: "dan"}) {
		got = append(got, e.Action+" "+e.Target+" "+detail(t, e)["decision"].(string)+" "+e.Outcome)
	}
	want := "gas fab " + GasReasonEdit + " ok|gas fab undo ok|tox EUGENOL approve ok|tox EUGENOL rollback ok"
	if strings.Join(got, "|") != want {
		t.Errorf("dan's decisions:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// With audit.keep_queries = hash the trail keeps a hash, equal for equal queries, and no words.
func TestKeepQueriesHashHidesTheText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin", "audit.keep_queries": "hash"}}, Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, q := range []string{"Arsine TLV", "arsine  tlv"} {
		_, _ = s.Knowledge().Search(ctx, retrieval.Request{Query: q, K: 3})
	}
	_, _, _ = s.Research().Start(ctx, "run-h", "arsine tlv", research.Options{}, nil)
	es := trail(t, s, audit.Filter{})
	if len(es) != 3 {
		t.Fatalf("%d entries: %+v", len(es), es)
	}
	q0, q1, q2 := detail(t, es[0])["query"], detail(t, es[1])["query"], detail(t, es[2])["question"]
	if q0 != audit.HashQuery("arsine tlv") || q0 != q1 || q1 != q2 {
		t.Errorf("hashes %v %v %v", q0, q1, q2)
	}
	for _, e := range es {
		if strings.Contains(strings.ToLower(e.Detail), "arsine") {
			t.Errorf("the text is kept: %+v", e)
		}
	}
}

// A served analyst who is not an admin may not read the trail; an admin and the account may.
func TestOnlyAdminsReadTheTrailUnderServe(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	s.Audit().RecordLogin(ctx, "eve", "10.0.0.9:5555", "SHA256:x")
	s.Audit().RecordRefusal(ctx, "", "mallory", "10.0.0.8:1", "key", "unknown key")
	if _, err := s.As("eve", false).Served().Audit().List(ctx, audit.Filter{}); !errors.Is(err, ErrAuditAdminsOnly) {
		t.Errorf("a served analyst read the trail: %v", err)
	}
	es, err := s.As("root", true).Served().Audit().List(ctx, audit.Filter{})
	if err != nil || len(es) != 2 || es[0].Action != audit.ActionLogin || es[1].Analyst != "ssh:mallory" || es[1].Outcome != audit.Refused {
		t.Errorf("an admin's view: %+v %v", es, err)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"24h":                  now.Add(-24 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"2026-11-01T00:00:00Z": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"":                     {},
	} {
		if got, err := ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	if got, err := ParseSince("2026-11-01", now); err != nil || got.Format("2006-01-02 15:04") != "2026-11-01 00:00" {
		t.Errorf("a date: %v %v", got, err)
	}
	if _, err := ParseSince("yesterday", now); err == nil {
		t.Error("yesterday was read")
	}
}

// An ingest of items that name their own collections (a registry's) is in the trail under
// all of them, not under the default collection it did not touch.
func TestAnIngestOfManyCollectionsNamesThemAll(t *testing.T) {
	s := openService(t)
	dir := t.TempDir()
	var items []kb.Item
	for _, c := range []string{"sds", "permits"} {
		p := filepath.Join(dir, c+".md")
		os.WriteFile(p, []byte("# "+c+"\n\nSome text.\n"), 0o644)
		items = append(items, kb.Item{Path: p, ID: c + ".md", Collection: c})
	}
	if _, err := s.Knowledge().Ingest(context.Background(), items, IngestOptions{Collection: "general"}); err != nil {
		t.Fatal(err)
	}
	if e := only(t, trail(t, s, audit.Filter{}), audit.ActionIngest); e.Target != "sds,permits" {
		t.Errorf("the ingest's target: %q", e.Target)
	}
}

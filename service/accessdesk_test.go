package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/retrieval"
	"warren/service/audit"
	"warren/service/grants"
)

// confidentialWorkspace holds the word bluefinch in two collections: general, and
// confidential, which only some analysts may read. Its account (ana) is the admin.
func confidentialWorkspace(t *testing.T) *Service {
	t.Helper()
	s := openService(t)
	dir := t.TempDir()
	for collection, text := range map[string]string{
		"confidential": "# Merger\n\nProject bluefinch: the merger terms are secret.\n",
		"general":      "# Birds\n\nThe bluefinch is a small bird of the hedges.\n",
	} {
		path := filepath.Join(dir, collection, collection+".md")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{filepath.Dir(path)}, Collection: collection}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// collectionsFound searches for bluefinch as v, in mode, and returns the collections of the
// passages found.
func collectionsFound(t *testing.T, v *Service, mode retrieval.Mode) []string {
	t.Helper()
	res, err := v.Knowledge().Search(context.Background(), retrieval.Request{Query: "bluefinch", K: 10, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return resultCollections(res)
}

func resultCollections(res []retrieval.Result) []string {
	var out []string
	for _, r := range res {
		if !slices.Contains(out, r.Collection) {
			out = append(out, r.Collection)
		}
	}
	slices.Sort(out)
	return out
}

func grant(t *testing.T, admin *Service, analyst, collection string, level grants.Level) {
	t.Helper()
	if _, err := admin.Access().Grant(context.Background(), analyst, collection, level); err != nil {
		t.Fatal(err)
	}
}

func TestServedSearchFindsOnlyReadableCollections(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	grant(t, s, "alice", "confidential", grants.Read)
	bob := s.As("bob", false).Served()
	alice := s.As("alice", false).Served()
	lead := s.As("lead", true).Served()

	for _, mode := range []retrieval.Mode{retrieval.Lexical, retrieval.Hybrid, retrieval.Dense} {
		if got := collectionsFound(t, bob, mode); !slices.Equal(got, []string{"general"}) {
			t.Errorf("bob, %s: passages from %v, want general only", mode, got)
		}
		for who, v := range map[string]*Service{"alice": alice, "lead (admin)": lead, "ana (outside serve)": s} {
			if got := collectionsFound(t, v, mode); !slices.Equal(got, []string{"confidential", "general"}) {
				t.Errorf("%s, %s: passages from %v, want both collections", who, mode, got)
			}
		}
	}

	// Named, by collection or by a document in it: refused, saying who grants what.
	want := "bob may not read confidential; an admin grants it: warren access grant bob confidential read"
	for _, scope := range []chunk.Scope{
		{Collections: []string{"confidential"}},
		{Collections: []string{"general", "confidential"}},
		{Doc: "confidential.md"},
	} {
		_, err := bob.Knowledge().Search(ctx, retrieval.Request{Query: "bluefinch", Scope: scope})
		var refused *AccessError
		if !errors.As(err, &refused) || !errors.Is(err, ErrNoAccess) || err.Error() != want {
			t.Errorf("bob, scope %+v:\n got %v\nwant %s", scope, err, want)
		}
	}
	if res, err := alice.Knowledge().Search(ctx, retrieval.Request{Query: "bluefinch", Scope: chunk.Scope{Collections: []string{"confidential"}}}); err != nil || len(res) == 0 {
		t.Errorf("alice, scoped to confidential: %v %v", res, err)
	}

	// The Knowledge tab's lists and passages keep to the same rule.
	cols, err := bob.Knowledge().Collections(ctx)
	if err != nil || len(cols) != 1 || cols[0].Name != "general" {
		t.Errorf("bob's collections: %+v %v", cols, err)
	}
	docs, err := bob.Knowledge().Documents(ctx, "")
	if err != nil || len(docs) != 1 || docs[0].Collection != "general" {
		t.Errorf("bob's documents: %+v %v", docs, err)
	}
	if _, err := bob.Knowledge().DocumentChunks(ctx, "confidential/confidential.md"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob opening confidential.md: %v", err)
	}
	if cs, err := bob.Knowledge().Chunks(ctx, []string{chunk.ID("confidential/confidential.md", 0), chunk.ID("general/general.md", 0)}); err != nil || len(cs) != 1 || cs[0].Collection != "general" {
		t.Errorf("bob's chunks by ID: %+v %v", cs, err)
	}
	if _, err := bob.Knowledge().List(ctx, "confidential"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob listing confidential: %v", err)
	}
	if _, err := bob.Knowledge().RemoveDocuments(ctx, []string{"confidential.md"}); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob removing confidential.md: %v", err)
	}

	// Revoked, bob is back at serve.default_access (write).
	if ok, err := s.Access().Revoke(ctx, "bob", "confidential"); err != nil || !ok {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if got := collectionsFound(t, bob, retrieval.Lexical); !slices.Equal(got, []string{"confidential", "general"}) {
		t.Errorf("bob after the revocation: %v", got)
	}
}

// serve.default_access decides for every analyst and collection no grant names; a grant
// overrides it either way.
func TestDefaultAccessDecidesWithoutAGrant(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	inbox := filepath.Join(s.ws.Dir, "inbox", "sds")
	os.MkdirAll(inbox, 0o755)
	if err := os.WriteFile(filepath.Join(inbox, "argon.md"), []byte("# Argon\n\nArgon is inert.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	grant(t, s, "dan", "general", grants.Write)
	carol := s.As("carol", false).Served()
	dan := s.As("dan", false).Served()
	for _, tc := range []struct {
		def      string
		found    []string
		ingestOK bool
	}{
		{"none", nil, false},
		{"read", []string{"confidential", "general"}, false},
		{"write", []string{"confidential", "general"}, true},
	} {
		s.ws.Config.Serve.DefaultAccess = tc.def
		if got := collectionsFound(t, carol, retrieval.Lexical); !slices.Equal(got, tc.found) {
			t.Errorf("default %s: carol finds %v, want %v", tc.def, got, tc.found)
		}
		if got := collectionsFound(t, dan, retrieval.Lexical); !slices.Contains(got, "general") {
			t.Errorf("default %s: dan, granted write on general, finds %v", tc.def, got)
		}
		_, err := carol.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/sds/argon.md"}, Collection: "general"})
		if tc.ingestOK {
			if err != nil {
				t.Errorf("default write: carol's ingest: %v", err)
			}
			continue
		}
		want := "carol may not ingest into general; an admin grants it: warren access grant carol general write"
		if !errors.Is(err, ErrNoAccess) || err.Error() != want {
			t.Errorf("default %s: carol's ingest:\n got %v\nwant %s", tc.def, err, want)
		}
		// Refused before any file is looked at: a path that does not exist gets the same answer.
		if _, err := carol.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/nothing-here.md"}, Collection: "general"}); !errors.Is(err, ErrNoAccess) {
			t.Errorf("default %s: carol's ingest of a missing file: %v", tc.def, err)
		}
	}
	s.ws.Config.Serve.DefaultAccess = "read"
	if _, err := dan.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/sds/argon.md"}, Collection: "general"}); err != nil {
		t.Errorf("dan, granted write on general: %v", err)
	}
}

// The research agent's searcher, and its reference resolver's, are bob's: confined to what he
// may read, also once the run's embeddings are wired in.
func TestResearchRetrievalIsConfinedToTheRunsAnalyst(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	svc, err := s.As("bob", false).Served().researchAgent(0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, sr := range map[string]*retrieval.Searcher{
		"searcher":          svc.Deps.Searcher,
		"resolver searcher": svc.Deps.Resolver.Searcher,
		"run's searcher":    svc.Deps.Searcher.EmbeddingWith(nil),
	} {
		for _, scope := range []chunk.Scope{{}, {Collections: []string{"confidential"}}, {Doc: "confidential/confidential.md"}} {
			res, err := sr.Search(ctx, retrieval.Request{Query: "bluefinch merger", K: 10, Scope: scope})
			if err != nil {
				t.Fatalf("%s, scope %+v: %v", name, scope, err)
			}
			if slices.Contains(resultCollections(res), "confidential") {
				t.Errorf("%s, scope %+v: bob's research found confidential passages: %+v", name, scope, res)
			}
		}
	}
	mine, err := s.researchAgent(0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := mine.Deps.Searcher.Search(ctx, retrieval.Request{Query: "bluefinch merger", K: 10}); err != nil || !slices.Contains(resultCollections(res), "confidential") {
		t.Errorf("the account's research finds %v (%v), want confidential among them", resultCollections(res), err)
	}
}

func TestOnlyAdminsManageAccessAndEveryChangeIsAudited(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	bob := s.As("bob", false).Served()
	lead := s.As("lead", true).Served()

	if _, err := bob.Access().Grant(ctx, "bob", "confidential", grants.Write); !errors.Is(err, ErrAccessAdminsOnly) {
		t.Errorf("bob granting himself write: %v", err)
	}
	if _, err := bob.Access().Revoke(ctx, "alice", "confidential"); !errors.Is(err, ErrAccessAdminsOnly) {
		t.Errorf("bob revoking: %v", err)
	}
	if _, err := bob.Access().List(ctx, ""); !errors.Is(err, ErrAccessAdminsOnly) {
		t.Errorf("bob listing: %v", err)
	}
	for _, bad := range [][3]string{{"bob", "confidential", "admin"}, {"bob", "Bad Name", "read"}, {"bob smith", "confidential", "read"}} {
		if _, err := lead.Access().Grant(ctx, bad[0], bad[1], grants.Level(bad[2])); err == nil {
			t.Errorf("grant %q: accepted", bad)
		}
	}
	g, err := lead.Access().Grant(ctx, "bob", "confidential", grants.Read)
	if err != nil || g.GrantedBy != "lead" || g.At.IsZero() {
		t.Fatalf("lead's grant: %+v %v", g, err)
	}
	grant(t, s, "alice", "confidential", grants.Write)
	list, err := lead.Access().List(ctx, "")
	if err != nil || list.Default != grants.Write || len(list.Grants) != 2 || list.Grants[0].Analyst != "alice" || list.Grants[1].GrantedBy != "lead" {
		t.Fatalf("the list: %+v %v", list, err)
	}
	if l, err := bob.Access().Level(ctx, "confidential"); err != nil || l != grants.Read {
		t.Errorf("bob's level: %s %v", l, err)
	}
	if ok, err := lead.Access().Revoke(ctx, "bob", "confidential"); err != nil || !ok {
		t.Errorf("revoke: %v %v", ok, err)
	}
	if ok, err := lead.Access().Revoke(ctx, "bob", "confidential"); err != nil || ok {
		t.Errorf("revoking again: %v %v", ok, err)
	}

	var got []string
	for _, e := range trail(t, s, audit.Filter{}) {
		if e.Action == audit.ActionAccess {
			d := detail(t, e)
			got = append(got, e.Analyst+" "+d["change"].(string)+" "+e.Target+" "+e.Outcome)
		}
	}
	want := []string{
		"bob grant bob/confidential refused",
		"bob revoke alice/confidential refused",
		"lead grant bob/confidential failed",
		"lead grant bob/Bad Name failed",
		"lead grant bob smith/confidential failed",
		"lead grant bob/confidential ok",
		"ana grant alice/confidential ok",
		"lead revoke bob/confidential ok",
		"lead revoke bob/confidential ok",
	}
	if !slices.Equal(got, want) {
		t.Errorf("access entries in the trail:\n got %q\nwant %q", got, want)
	}
}

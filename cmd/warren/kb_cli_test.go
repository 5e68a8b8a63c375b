package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
)

func TestIngestSearchRefsAndRemoveThroughTheCLI(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"} // no Ollama: the built-in embedder
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "procedure.md"), []byte("# Gas Cabinet Procedure\n\n## 4.2 Purge before disconnect\nPurge the pigtail with nitrogen.\n\n## 5 Leak check\nSee Section 4.2 and § 6 GefStoffV.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "broken.txt"), []byte{0x89, 'P', 'N', 'G', 0x00, 0x41}, 0o644) // binary: FF FE would be a UTF-16 byte-order mark, read as text

	r := warren(t, env, "ingest", docs, "--collection", "standards")
	if r.code != cli.ExitPartial || !strings.Contains(r.stdout, "broken.txt: binary file") || !strings.Contains(r.stdout, "Ingested 1") {
		t.Fatalf("want exit 3 with the skipped file named: %+v", r)
	}
	if !strings.Contains(r.stderr, "built-in embedder") {
		t.Errorf("the fallback to the built-in embedder is announced: %q", r.stderr)
	}
	r = warren(t, env, "ingest", filepath.Join(docs, "procedure.md"), "--collection", "standards", "--json")
	var rep struct{ Unchanged, Ingested int }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Unchanged != 1 || rep.Ingested != 0 {
		t.Errorf("a second ingest leaves the unchanged file: %+v", r)
	}

	r = warren(t, env, "search", "purging nitrogen", "--json", "-k", "2")
	var hits []struct {
		Doc, Section string
		Score        float64
	}
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) == 0 || hits[0].Doc != filepath.Base(docs)+"/procedure.md" || hits[0].Section != "4.2" {
		t.Errorf("search: %+v %v", r, err)
	}

	r = warren(t, env, "refs", "resolve", "--from", "procedure", "--json", "See Section 4.2 and § 6 GefStoffV.")
	var resolved []struct {
		Type, Target string
		OriginalText string `json:"original_text"`
		Resolved     *struct {
			Doc, Section, Method string
			ChunkIDs             []string `json:"chunk_ids"`
		}
		Reason string
	}
	if err := json.Unmarshal([]byte(r.stdout), &resolved); err != nil || len(resolved) != 2 {
		t.Fatalf("refs resolve: %v %+v", err, r)
	}
	if res := resolved[0].Resolved; res == nil || res.Section != "4.2" || res.Method != "section" || len(res.ChunkIDs) == 0 {
		t.Errorf("Section 4.2 resolves in the current document: %+v", resolved[0])
	}
	if resolved[1].Resolved != nil || !strings.Contains(resolved[1].Reason, "not in the knowledge base") {
		t.Errorf("§ 6 GefStoffV is not ingested and must stay unresolved: %+v", resolved[1])
	}

	if r = warren(t, env, "registry", "check"); r.code != 0 {
		t.Errorf("the workspace registry written by ingest is valid: %+v", r)
	}
	if r = warren(t, env, "kb", "rm", "procedure.md"); r.code != 0 {
		t.Fatalf("kb rm: %+v", r)
	}
	r = warren(t, env, "kb", "list", "--json")
	var list struct{ Documents []any }
	if json.Unmarshal([]byte(r.stdout), &list) != nil || len(list.Documents) != 0 {
		t.Errorf("the removed document is gone: %s", r.stdout)
	}
	if r = warren(t, env, "kb", "rm", "nothing-like-this"); r.code != cli.ExitFailure || !strings.Contains(r.stderr, "warren kb list") {
		t.Errorf("an unknown document says how to find the right name: %+v", r)
	}
}

func TestRegistryCheckFailsOnProblems(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "registry.json")
	os.WriteFile(path, []byte(`{"collections":{"a":{"documents":[{"path":"missing.md","title":"Missing"}]}}}`), 0o644)
	r := warren(t, nil, "registry", "check", path)
	if r.code != cli.ExitFailure || !strings.Contains(r.stdout, "missing") {
		t.Errorf("want exit 1 naming the missing path: %+v", r)
	}
}

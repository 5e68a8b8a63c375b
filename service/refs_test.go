package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/retrieval"
)

// thresholds.fuzzy_match decides whether a misspelt document name resolves: "Gaz Cabinet
// Procedure" is one letter from the registered title (similarity 0.97), so it resolves at the
// default 0.7 and stays unresolved at 0.99 (the resolver used to take
// registry.DefaultFuzzyThreshold whatever the setting).
func TestFuzzyMatchThresholdDecidesAMisspeltDocumentName(t *testing.T) {
	for _, tc := range []struct {
		threshold string
		resolves  bool
	}{{"0.7", true}, {"0.99", false}} {
		t.Run(tc.threshold, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ws")
			if _, err := kb.Init(dir, schema.All()); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin",
				"thresholds.fuzzy_match": tc.threshold}}, Options{Owner: "ana"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			docs := filepath.Join(t.TempDir(), "docs")
			os.MkdirAll(docs, 0o755)
			os.WriteFile(filepath.Join(docs, "gcp.md"), []byte("# Gas Cabinet Procedure\n\n## 4.2 Purge\nPurge the pigtail with nitrogen.\n"), 0o644)
			if _, err := s.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{docs}, Collection: "standards"}); err != nil {
				t.Fatal(err)
			}
			res, err := s.Knowledge().ResolveReferences(context.Background(), retrieval.DetectorRegex, "Purge as set out in the Gaz Cabinet Procedure.", "", "", nil)
			if err != nil || len(res) != 1 {
				t.Fatalf("one document mention: %+v %v", res, err)
			}
			if got := res[0].Resolved != nil; got != tc.resolves {
				t.Errorf("at fuzzy_match %s: resolved %v (%+v, %s), want %v", tc.threshold, got, res[0].Resolved, res[0].Reason, tc.resolves)
			}
		})
	}
}

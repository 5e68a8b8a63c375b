package tox

import (
	"context"
	"path/filepath"
	"testing"
)

// The profiles shipped in the sample workspace are valid and import as version 1 each; a
// second import changes nothing.
func TestSampleProfilesImport(t *testing.T) {
	s, _ := openStore(t)
	path := filepath.Join("..", "sample", "tox", "profiles.json")
	results, err := s.ImportJSON(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 20 {
		t.Errorf("%d sample profiles imported, want about 20", len(results))
	}
	for _, r := range results {
		if r.Status != "new" || r.Version != 1 {
			t.Errorf("%s: %s at version %d", r.INCI, r.Status, r.Version)
		}
	}
	again, err := s.ImportJSON(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Status != "unchanged" {
			t.Errorf("%s: a second import gave %s", r.INCI, r.Status)
		}
	}
}

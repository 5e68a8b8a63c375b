package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/shareddata"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	r := New()
	r.Collections["standards"] = &Collection{Description: "internal standards", Documents: []Document{
		{Path: "standards/gas-cabinet.md", Title: "Gas Cabinet Procedure", Synonyms: []string{"GCP"}}}}
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.DocumentCount() != 1 || back.Collections["standards"].Documents[0].Synonyms[0] != "GCP" {
		t.Errorf("round trip lost data: %+v", back.Collections["standards"])
	}
}

func TestLoadRejectsMalformed(t *testing.T) {
	cases := map[string]string{
		"not json":        `{"collections": `,
		"no collections":  `{}`,
		"null collection": `{"collections": {"a": null}}`,
		"document path":   `{"collections": {"a": {"documents": [{"title": "x"}]}}}`,
	}
	for name, text := range cases {
		path := filepath.Join(t.TempDir(), FileName)
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "registry") {
			t.Errorf("%s: want a clear registry error, got %v", name, err)
		}
	}
}

func TestLoadsTheSharedCorpusRegistry(t *testing.T) {
	r, err := Load(shareddata.Path(t, "corpus/"+FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Collections["gesetze"].Documents) == 0 || len(r.Names()) < 2 {
		t.Errorf("unexpected registry: %v", r.Names())
	}
}

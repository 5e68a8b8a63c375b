package registry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"warren/internal/shareddata"
)

func TestCheckFindsProblems(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"standards/gcp.md", "suppliers/gcp.md", "laws/GefStoffV/meta.json"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := New()
	r.Collections["standards"] = &Collection{Documents: []Document{
		{Path: "standards/gcp.md", Title: "Gas Cabinet Procedure", Synonyms: []string{"GCP", "G C P"}},
		{Path: "standards/missing.md", Title: "Missing"},
	}}
	r.Collections["suppliers"] = &Collection{Documents: []Document{
		{Path: "suppliers/gcp.md", Title: "", Synonyms: []string{"g.c.p."}},
	}}
	r.Collections["laws"] = &Collection{Documents: []Document{
		{Path: "laws/GefStoffV", Title: "Gefahrstoffverordnung", Synonyms: []string{"12", "GefStoffV"}},
	}}
	path := filepath.Join(dir, FileName)
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	problems, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range problems {
		got[p.Kind] = append(got[p.Kind], p.Doc)
		if p.Detail == "" || !strings.Contains(p.String(), p.Doc) {
			t.Errorf("problem without a useful description: %+v", p)
		}
	}
	want := map[string][]string{
		ProblemMissingPath:      {"standards/missing.md"},
		ProblemEmptyTitle:       {"suppliers/gcp.md"},
		ProblemEmptySynonym:     {"laws/GefStoffV"},
		ProblemDuplicateSynonym: {"suppliers/gcp.md"}, // "g.c.p." = "GCP"; "G C P" on the same document is no problem
	}
	for kind, docs := range want {
		if !slices.Equal(got[kind], docs) {
			t.Errorf("%s: got %q, want %q (all problems: %v)", kind, got[kind], docs, problems)
		}
	}
	if len(problems) != 4 {
		t.Errorf("want 4 problems, got %d: %v", len(problems), problems)
	}
}

func TestCheckDuplicatePathAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("x"), 0o644)
	r := New()
	r.Collections["one"] = &Collection{Documents: []Document{{Path: "a.md", Title: "A"}}}
	r.Collections["two"] = &Collection{Documents: []Document{{Path: "./a.md", Title: "A again"}}}
	problems := r.Check(dir)
	if len(problems) != 1 || problems[0].Kind != ProblemDuplicatePath {
		t.Errorf("want one duplicate-path problem, got %v", problems)
	}
	if _, err := Check(filepath.Join(dir, "nope.json")); err == nil {
		t.Error("Check of a missing registry file must fail")
	}
}

func TestCheckSharedRegistry(t *testing.T) {
	problems, err := Check(shareddata.Path(t, "corpus/"+FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("the shared registry should be clean: %v", p)
	}
}

func TestOutsideAndConflicts(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "elsewhere.md")
	r := &Registry{Collections: map[string]*Collection{
		"a": {Documents: []Document{{Path: "in/doc.md", Title: "In"}, {Path: "../up.md", Title: "Up"}, {Path: "in/../still-in.md", Title: "Still"}}},
		"b": {Documents: []Document{{Path: filepath.ToSlash(abs), Title: "Abs"}, {Path: "..hidden.md", Title: "Dots"}}},
	}}
	var got []string
	for _, p := range r.Outside(dir) {
		if p.Kind != ProblemOutside {
			t.Errorf("kind %q", p.Kind)
		}
		got = append(got, p.Doc)
	}
	if want := []string{"../up.md", filepath.ToSlash(abs)}; !slices.Equal(got, want) {
		t.Errorf("outside: got %v, want %v", got, want)
	}
	problems := []Problem{{Kind: ProblemMissingPath}, {Kind: ProblemDuplicatePath}, {Kind: ProblemEmptyTitle}, {Kind: ProblemDuplicateSynonym}}
	if c := Conflicts(problems); len(c) != 2 || c[0].Kind != ProblemDuplicatePath || c[1].Kind != ProblemDuplicateSynonym {
		t.Errorf("conflicts: %v", c)
	}
}

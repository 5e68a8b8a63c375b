package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"warren/internal/shareddata"
)

// FuzzRegistry loads a registry file, checks it and resolves a name against it. A registry that
// loads must survive Save and Load unchanged, every problem must name a registered document,
// and a name owned by exactly one document must resolve to that document, exactly.
func FuzzRegistry(f *testing.F) {
	for _, rel := range []string{"sample/registry.json"} {
		data, err := os.ReadFile(shareddata.Project(f, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "Gas Cabinet Procedure")
	}
	if p := shareddata.Seeds(f, "corpus/"+FileName); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "Arbeitschutzgesetz")
		f.Add(data, "JSON Pointr")
		f.Add(data, "RFC 2616")
	}
	f.Add([]byte(`{"collections":{"a":{"documents":[{"path":"x.md","title":"X","synonyms":["","12","X"]},{"path":"./x.md","synonyms":["x"]}]}}}`), "x")
	f.Add([]byte(`{"collections":{"a":null}}`), "")
	f.Add([]byte(`{"collections":{"":{"documents":[{"path":"\u0000"}]}}}`), "\u00df")

	f.Fuzz(func(t *testing.T, data []byte, name string) {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		problems, err := Check(path)
		if err != nil {
			return // not a registry; Load said why
		}
		r, err := Load(path)
		if err != nil {
			t.Fatalf("Check accepted the file but Load refuses it: %v", err)
		}
		paths := map[string]bool{}
		for _, c := range r.Collections {
			for _, d := range c.Documents {
				paths[d.Path] = true
			}
		}
		for _, p := range problems {
			if !paths[p.Doc] {
				t.Fatalf("problem %q names no registered document", p)
			}
		}

		again := filepath.Join(dir, "again.json")
		if err := r.Save(again); err != nil {
			t.Fatal(err)
		}
		r2, err := Load(again)
		if err != nil {
			t.Fatalf("a saved registry doesn't load: %v", err)
		}
		if !reflect.DeepEqual(normalized(r), normalized(r2)) {
			t.Fatalf("save and load changed the registry:\n%+v\n%+v", r, r2)
		}

		rv := NewResolver(r)
		if m, ok := rv.Resolve(name, ""); ok {
			known := m.Method == MethodExact || m.Method == MethodFuzzy || m.Method == MethodSubstring
			if !paths[m.Doc.Path] || !known || m.Score < 0 || m.Score > 1 || (m.Method == MethodExact && m.Score != 1) {
				t.Fatalf("Resolve(%q) = %+v", name, m)
			}
		}
		// Every name owned by one document only resolves to it, exactly.
		owners := map[string]map[string]bool{}
		for _, coll := range r.Names() {
			for _, d := range r.Collections[coll].Documents {
				for _, n := range d.Names() {
					if k := parseName(n); k.letters != "" {
						if owners[k.key] == nil {
							owners[k.key] = map[string]bool{}
						}
						owners[k.key][coll+"\x00"+d.Path] = true
					}
				}
			}
		}
		for _, coll := range r.Names() {
			for _, d := range r.Collections[coll].Documents {
				for _, n := range d.Names() {
					k := parseName(n)
					if k.letters == "" || len(owners[k.key]) != 1 {
						continue
					}
					m, ok := rv.Resolve(n, "")
					if !ok || m.Method != MethodExact || m.Collection != coll || m.Doc.Path != d.Path {
						t.Fatalf("name %q of %s/%s resolved to %+v (%v)", n, coll, d.Path, m, ok)
					}
				}
			}
		}
	})
}

// normalized drops the difference between a missing and an empty list, which JSON can't keep
// with omitempty.
func normalized(r *Registry) map[string]Collection {
	out := map[string]Collection{}
	for name, c := range r.Collections {
		cc := Collection{Description: c.Description}
		for _, d := range c.Documents {
			if len(d.Synonyms) == 0 {
				d.Synonyms = nil
			}
			cc.Documents = append(cc.Documents, d)
		}
		out[name] = cc
	}
	return out
}

package service

import (
	"context"
	"fmt"
	"path/filepath"

	"warren/internal/realpath"
	"warren/kb"
	"warren/registry"
)

// RegistryRefusal is why a registry was not ingested: Problems lists the paths registered
// twice and the synonyms naming two documents, or (Outside) the documents outside its folder.
type RegistryRefusal struct {
	Path     string
	Outside  bool
	Problems []registry.Problem
}

func (e *RegistryRefusal) Error() string {
	what := "conflicting entries"
	if e.Outside {
		what = "documents outside the registry's folder"
	}
	return fmt.Sprintf("couldn't ingest %s: %d %s", e.Path, len(e.Problems), what)
}

// IngestRegistry loads a registry to ingest and lists its documents. It refuses one that would
// lose documents or names with a *RegistryRefusal: paths registered twice or synonyms naming
// two documents, documents outside its folder (unless allowOutside); and one whose collection
// names warren cannot use.
func IngestRegistry(path string, allowOutside bool) (*registry.Registry, []kb.Item, error) {
	reg, err := registry.Load(path)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range reg.Names() {
		if !kb.CollectionName.MatchString(name) {
			return nil, nil, fmt.Errorf("%s: collection name %q: use lower-case letters, digits, '-' and '_'", path, name)
		}
	}
	dir := filepath.Dir(path)
	if conflicts := registry.Conflicts(reg.Check(dir)); len(conflicts) > 0 {
		return nil, nil, &RegistryRefusal{Path: path, Problems: conflicts}
	}
	if outside := reg.Outside(dir); len(outside) > 0 && !allowOutside {
		return nil, nil, &RegistryRefusal{Path: path, Outside: true, Problems: outside}
	}
	items := RegistryItems(reg, dir)
	if !allowOutside {
		// Checked again on each file as it is read: a document swapped for a link out of the
		// folder after the check above is skipped, not read.
		real, err := realpath.Resolve(dir) // absolute: the open file's real path is
		if err != nil {
			return nil, nil, fmt.Errorf("couldn't resolve the registry's folder %s: %w", dir, err)
		}
		for i := range items {
			items[i].Within = real
		}
	}
	return reg, items, nil
}

// SynonymProposal is the names one stored document could also be referred to by.
type SynonymProposal struct {
	Doc      string
	Synonyms []string
}

// SuggestSynonyms proposes, for each document of the knowledge base in its order, the names
// its registry entry lacks: its title, abbreviations, document numbers and codes from its
// front matter. With apply they are added to the workspace registry.
func (k *Knowledge) SuggestSynonyms(ctx context.Context, apply bool) ([]SynonymProposal, error) {
	reg, err := k.s.Registry()
	if err != nil {
		return nil, err
	}
	docs, err := k.s.store.Documents(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []SynonymProposal
	for _, d := range docs {
		entry := registry.Document{Path: d.ID, Title: d.Title}
		if c := reg.Collections[d.Collection]; c != nil {
			if i := documentIndex(c, d.ID); i >= 0 {
				entry = c.Documents[i]
			}
		}
		syn := registry.SuggestSynonyms(entry, d.Meta)
		if len(syn) == 0 {
			continue
		}
		out = append(out, SynonymProposal{Doc: d.ID, Synonyms: syn})
		entry.Synonyms = append(entry.Synonyms, syn...)
		if entry.Title == "" {
			entry.Title = d.Title
		}
		c := collectionOf(reg, d.Collection)
		if i := documentIndex(c, d.ID); i >= 0 {
			c.Documents[i] = entry
		} else {
			c.Documents = append(c.Documents, entry)
		}
	}
	if apply && len(out) > 0 {
		if err := reg.Save(filepath.Join(k.s.ws.Dir, registry.FileName)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// collectionOf is the registry's collection of that name, added when it has none.
func collectionOf(r *registry.Registry, name string) *registry.Collection {
	c := r.Collections[name]
	if c == nil {
		c = &registry.Collection{}
		r.Collections[name] = c
	}
	return c
}

// documentIndex is the index of the document registered under path in c, or -1.
func documentIndex(c *registry.Collection, path string) int {
	for i, d := range c.Documents {
		if d.Path == path {
			return i
		}
	}
	return -1
}

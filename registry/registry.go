// Package registry is the document registry: which documents the knowledge base has, in which
// collection, and the names and synonyms analysts and documents use for them.
package registry

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"warren/internal/atomicfile"
)

// FileName is the registry's name inside a workspace.
const FileName = "registry.json"

// Registry maps collections to their documents.
type Registry struct {
	Collections map[string]*Collection `json:"collections"`
}

// Collection is a named group of documents searched together (suppliers, standards, …).
type Collection struct {
	Description string     `json:"description,omitempty"`
	Documents   []Document `json:"documents"`
}

// Document is one registered document. Path is relative to the registry file.
type Document struct {
	Path     string   `json:"path"`
	Title    string   `json:"title,omitempty"`
	Synonyms []string `json:"synonyms,omitempty"`
}

// New returns an empty registry.
func New() *Registry { return &Registry{Collections: map[string]*Collection{}} }

// Load reads a registry file.
func Load(path string) (*Registry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the registry: %w", err)
	}
	r := &Registry{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("couldn't parse the registry %s: %w (it must be {\"collections\": {…}})", path, err)
	}
	if r.Collections == nil {
		return nil, fmt.Errorf("the registry %s has no \"collections\" object", path)
	}
	for name, c := range r.Collections {
		if c == nil {
			return nil, fmt.Errorf("the registry %s: collection %q is null", path, name)
		}
		for i, d := range c.Documents {
			if d.Path == "" {
				return nil, fmt.Errorf("the registry %s: document %d of collection %q has no path", path, i+1, name)
			}
		}
	}
	return r, nil
}

// Save writes the registry atomically, collections in name order.
func (r *Registry) Save(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("couldn't encode the registry: %w", err)
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// Names returns the collection names in order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.Collections))
	for n := range r.Collections {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DocumentCount returns how many documents all collections list.
func (r *Registry) DocumentCount() int {
	n := 0
	for _, c := range r.Collections {
		n += len(c.Documents)
	}
	return n
}

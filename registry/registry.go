// Package registry is the document registry: which documents the knowledge base has, in which
// collection, and the names and synonyms analysts and documents use for them.
package registry

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

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
	// Source is where the document was ingested from, when that is not Path relative to the
	// registry file: the workspace registry names documents by their ID and records here the
	// file or folder they came from.
	Source string `json:"source,omitempty"`
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

// BaseName returns the last element of the document's path without a file extension
// ("rfc6901" for "rfc/rfc6901.txt", "GefStoffV" for "gesetze/GefStoffV"). Only a short
// alphanumeric extension with a letter counts, so "12.BImSchV-StoerfallV" stays whole.
func (d Document) BaseName() string {
	base := path.Base(strings.ReplaceAll(d.Path, `\`, "/"))
	if i := strings.LastIndexByte(base, '.'); i > 0 && isExtension(base[i+1:]) {
		return base[:i]
	}
	return base
}

// Names returns every name the document answers to: its synonyms, its title and its base name,
// in that order, without empty ones.
func (d Document) Names() []string {
	names := make([]string, 0, len(d.Synonyms)+2)
	for _, n := range append(append([]string{}, d.Synonyms...), d.Title, d.BaseName()) {
		if strings.TrimSpace(n) != "" {
			names = append(names, n)
		}
	}
	return names
}

func isExtension(ext string) bool {
	if len(ext) == 0 || len(ext) > 5 {
		return false
	}
	letter := false
	for _, r := range ext {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
}

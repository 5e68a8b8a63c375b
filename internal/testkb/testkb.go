// Package testkb builds knowledge bases for tests: a workspace in a temporary folder with
// ../shared/data/corpus (or the repository's sample workspace) ingested through its registry
// with the built-in embedder.
package testkb

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/internal/shareddata"
	"warren/kb"
	"warren/registry"
)

// Empty returns an open workspace in a temporary folder with nothing ingested, and its store.
func Empty(t testing.TB) (*kb.Workspace, *kb.Store) {
	t.Helper()
	dir := t.TempDir()
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	ws, err := kb.Open(dir, config.Sources{}, schema.All())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, kb.NewStore(ws)
}

// Corpus returns an open workspace holding the shared corpus, its store and its registry
// (as a workspace registry, documents named by their IDs).
func Corpus(t testing.TB) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	return fromRegistry(t, shareddata.Path(t, "corpus/registry.json"))
}

// SampleDir is the repository's sample workspace folder.
func SampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "sample")
}

// Sample returns an open workspace holding the repository's sample knowledge base, as
// `make run` prepares it.
func Sample(t testing.TB) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	return fromRegistry(t, filepath.Join(SampleDir(), "registry.json"))
}

func fromRegistry(t testing.TB, regPath string) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	reg, err := registry.Load(regPath)
	if err != nil {
		t.Fatal(err)
	}
	ws, store := Empty(t)
	dir := ws.Dir
	var items []kb.Item
	for _, name := range reg.Names() {
		for _, d := range reg.Collections[name].Documents {
			items = append(items, kb.Item{Path: filepath.Join(filepath.Dir(regPath), d.Path), ID: d.Path, Collection: name, Title: d.Title})
		}
	}
	rep, err := store.Ingest(context.Background(), items, kb.IngestOptions{Embedder: kb.Builtin{}})
	if err != nil || rep.Ingested != len(items) {
		t.Fatalf("corpus ingest: %+v %v", rep, err)
	}
	// The workspace registry names the documents by ID and records where they came from, as
	// `warren ingest --registry` does.
	wsReg := registry.New()
	for _, name := range reg.Names() {
		c := &registry.Collection{Description: reg.Collections[name].Description}
		for _, d := range reg.Collections[name].Documents {
			d.Source = filepath.Join(filepath.Dir(regPath), d.Path)
			c.Documents = append(c.Documents, d)
		}
		wsReg.Collections[name] = c
	}
	if err := wsReg.Save(filepath.Join(dir, registry.FileName)); err != nil {
		t.Fatal(err)
	}
	return ws, store, reg
}

// FromRegistry returns an open workspace holding the documents a registry file lists (paths
// relative to the file), ingested with the built-in embedder, its store and the registry: a
// knowledge base a test writes for itself.
func FromRegistry(t testing.TB, regPath string) (*kb.Workspace, *kb.Store, *registry.Registry) {
	t.Helper()
	return fromRegistry(t, regPath)
}

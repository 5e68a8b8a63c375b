package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	chromem "github.com/philippgille/chromem-go"
)

// vectorStore holds one chromem-go collection per knowledge-base collection, in memory. Each
// is persisted as one snapshot file, not one file per chunk, so a workspace opens by reading a
// few large files. The snapshot's name carries the collection generation it was taken at
// (vectors/<collection>.g<generation>.gob). Every write to a collection in warren.db raises its
// generation; the in-memory collection records the generation it reflects and is reloaded
// (from the matching snapshot, else from warren.db) whenever the two differ — after another
// process wrote, after a failed update, after a crash before the snapshot was saved.
type vectorStore struct {
	dir string
	db  *chromem.DB

	mu    sync.Mutex
	gen   map[string]int  // generation each loaded collection reflects
	dirty map[string]bool // changed since their snapshot was written
}

// refuseEmbedding is the embedding function handed to chromem-go: warren embeds queries
// itself, and chromem-go must never fall back to a cloud service.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, errors.New("warren embeds texts itself; chromem-go must not embed")
}

// vectorStore returns the in-memory vectors, loading every collection on first use.
func (s *Store) vectorStore(ctx context.Context) (*vectorStore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vectors != nil {
		return s.vectors, nil
	}
	vs := &vectorStore{dir: s.vdir, db: chromem.NewDB(), gen: map[string]int{}, dirty: map[string]bool{}}
	cols, err := s.Collections(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if err := vs.load(ctx, s, c); err != nil {
			return nil, err
		}
	}
	s.vectors = vs
	return vs, nil
}

func snapshotPath(dir, collection string, generation int) string {
	return filepath.Join(dir, fmt.Sprintf("%s.g%d.gob", collection, generation))
}

// load reads a collection at its current generation: from its snapshot when one matches,
// else from warren.db.
func (vs *vectorStore) load(ctx context.Context, s *Store, c CollectionInfo) error {
	vs.db.DeleteCollection(c.Name)
	path := snapshotPath(vs.dir, c.Name, c.Generation)
	if _, err := os.Stat(path); err == nil {
		if err := vs.db.ImportFromFile(path, "", c.Name); err == nil && vs.db.GetCollection(c.Name, refuseEmbedding) != nil {
			vs.mu.Lock()
			vs.gen[c.Name] = c.Generation
			vs.mu.Unlock()
			return nil
		}
		vs.db.DeleteCollection(c.Name) // unreadable: rebuilt below, the database is the truth
	}
	col, err := vs.db.CreateCollection(c.Name, nil, refuseEmbedding)
	if err != nil {
		return fmt.Errorf("couldn't create vector collection %s: %w", c.Name, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, doc, section, vector FROM chunks WHERE collection = ?`, c.Name)
	if err != nil {
		return fmt.Errorf("couldn't read the vectors of %s: %w", c.Name, err)
	}
	defer rows.Close()
	var docs []chromem.Document
	for rows.Next() {
		var id, doc, section string
		var blob []byte
		if err := rows.Scan(&id, &doc, &section, &blob); err != nil {
			return err
		}
		docs = append(docs, chromem.Document{ID: id, Embedding: decodeVector(blob),
			Metadata: map[string]string{"doc": doc, "section": section}})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(docs) > 0 {
		if err := col.AddDocuments(ctx, docs, 4); err != nil {
			vs.db.DeleteCollection(c.Name)
			return fmt.Errorf("couldn't load the vectors of %s: %w", c.Name, err)
		}
	}
	vs.mu.Lock()
	vs.gen[c.Name] = c.Generation
	vs.dirty[c.Name] = true
	vs.mu.Unlock()
	return nil
}

// fresh reloads the named collections whose generation in warren.db differs from memory, and
// returns every collection as stored.
func (vs *vectorStore) fresh(ctx context.Context, s *Store, names []string) ([]CollectionInfo, error) {
	cols, err := s.Collections(ctx)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, c := range cols {
		if len(want) > 0 && !want[c.Name] {
			continue
		}
		vs.mu.Lock()
		g, ok := vs.gen[c.Name]
		vs.mu.Unlock()
		if !ok || g != c.Generation {
			if err := vs.load(ctx, s, c); err != nil {
				return nil, err
			}
		}
	}
	return cols, nil
}

// apply brings a committed write into memory: old chunk IDs out, new chunks in. It applies
// only when memory held the generation just before the write; otherwise, or when the update
// fails, the collection is dropped from memory and reloaded on next use.
func (vs *vectorStore) apply(ctx context.Context, collection string, newGen int, old []string, chunks []Chunk, vectors [][]float32) {
	ctx = context.WithoutCancel(ctx) // the write is committed: memory must follow it whole
	vs.mu.Lock()
	g, ok := vs.gen[collection]
	vs.mu.Unlock()
	stale := func() {
		vs.db.DeleteCollection(collection)
		vs.mu.Lock()
		delete(vs.gen, collection)
		vs.mu.Unlock()
	}
	if !ok || g != newGen-1 {
		stale()
		return
	}
	col := vs.db.GetCollection(collection, refuseEmbedding)
	if col == nil {
		stale()
		return
	}
	if len(old) > 0 {
		if err := col.Delete(ctx, nil, nil, old...); err != nil {
			stale()
			return
		}
	}
	if len(chunks) > 0 {
		docs := make([]chromem.Document, len(chunks))
		for i, c := range chunks {
			docs[i] = chromem.Document{ID: c.ID, Embedding: vectors[i], Metadata: map[string]string{"doc": c.Doc, "section": c.Section}}
		}
		if err := col.AddDocuments(ctx, docs, 4); err != nil {
			stale()
			return
		}
	}
	vs.mu.Lock()
	vs.gen[collection] = newGen
	vs.dirty[collection] = true
	vs.mu.Unlock()
}

// SaveVectors writes the snapshot of every collection changed since it was loaded or saved,
// each to a temporary file renamed into place, and only when memory reflects the database's
// current generation: a collection another process has changed since is left to be rebuilt.
func (s *Store) SaveVectors(ctx context.Context) error {
	s.mu.Lock()
	vs := s.vectors
	s.mu.Unlock()
	if vs == nil {
		return nil
	}
	if err := os.MkdirAll(vs.dir, 0o755); err != nil {
		return fmt.Errorf("couldn't create %s: %w", vs.dir, err)
	}
	cols, err := s.Collections(ctx)
	if err != nil {
		return err
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, c := range cols {
		if !vs.dirty[c.Name] || vs.gen[c.Name] != c.Generation {
			continue
		}
		path := snapshotPath(vs.dir, c.Name, c.Generation)
		tmp := path + ".tmp"
		if err := vs.db.ExportToFile(tmp, false, "", c.Name); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("couldn't write the vector snapshot of %s: %w", c.Name, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("couldn't replace the vector snapshot of %s: %w", c.Name, err)
		}
		delete(vs.dirty, c.Name)
		removeOtherSnapshots(vs.dir, c.Name, path)
	}
	return nil
}

// removeOtherSnapshots deletes a collection's other snapshots once a new one is in place
// (keep "" removes them all). Names are matched exactly, not as patterns.
func removeOtherSnapshots(dir, collection, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := collection + ".g"
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".gob") {
			continue
		}
		if digits := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".gob"); strings.Trim(digits, "0123456789") != "" {
			continue // another collection whose name starts like this one
		}
		if p := filepath.Join(dir, name); p != keep {
			os.Remove(p)
		}
	}
}

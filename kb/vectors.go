package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	chromem "github.com/philippgille/chromem-go"
)

// vectorStore holds one chromem-go collection per knowledge-base collection, in memory. Each
// is persisted as one snapshot file, not one file per chunk, so a workspace opens by reading a
// few large files. The snapshot's name carries the collection generation it was taken at
// (vectors/<collection>.g<generation>.gob); a stale or missing one is rebuilt from warren.db.
type vectorStore struct {
	dir   string
	db    *chromem.DB
	mu    sync.Mutex
	dirty map[string]bool // collections changed since their snapshot was written
}

// refuseEmbedding is the embedding function handed to chromem-go: warren embeds queries
// itself, and chromem-go must never fall back to a cloud service.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, errors.New("warren embeds texts itself; chromem-go must not embed")
}

// vectorStore loads every collection's vectors, from snapshots where they are current.
func (s *Store) vectorStore(ctx context.Context) (*vectorStore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vectors != nil {
		return s.vectors, nil
	}
	vs := &vectorStore{dir: s.vdir, db: chromem.NewDB(), dirty: map[string]bool{}}
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

func (vs *vectorStore) load(ctx context.Context, s *Store, c CollectionInfo) error {
	path := snapshotPath(vs.dir, c.Name, c.Generation)
	if _, err := os.Stat(path); err == nil {
		if err := vs.db.ImportFromFile(path, "", c.Name); err == nil && vs.db.GetCollection(c.Name, refuseEmbedding) != nil {
			return nil
		}
		// An unreadable snapshot is rebuilt below; the database is the truth.
		vs.db.DeleteCollection(c.Name)
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
			return fmt.Errorf("couldn't load the vectors of %s: %w", c.Name, err)
		}
	}
	vs.mu.Lock()
	vs.dirty[c.Name] = true
	vs.mu.Unlock()
	return nil
}

// replace swaps a document's old chunks for new ones in memory; Save writes the snapshot.
func (vs *vectorStore) replace(ctx context.Context, collection string, old []string, chunks []Chunk, vectors [][]float32) {
	col := vs.db.GetCollection(collection, refuseEmbedding)
	if col == nil {
		var err error
		if col, err = vs.db.CreateCollection(collection, map[string]string{}, refuseEmbedding); err != nil {
			return
		}
	}
	if len(old) > 0 {
		col.Delete(ctx, nil, nil, old...)
	}
	if len(chunks) > 0 {
		docs := make([]chromem.Document, len(chunks))
		for i, c := range chunks {
			docs[i] = chromem.Document{ID: c.ID, Embedding: vectors[i], Metadata: map[string]string{"doc": c.Doc, "section": c.Section}}
		}
		col.AddDocuments(ctx, docs, 4)
	}
	vs.mu.Lock()
	vs.dirty[collection] = true
	vs.mu.Unlock()
}

// SaveVectors writes the snapshot of every collection changed since it was loaded or last
// saved, each to a temporary file renamed into place.
func (s *Store) SaveVectors(ctx context.Context) error {
	s.mu.Lock()
	vs := s.vectors
	s.mu.Unlock()
	if vs == nil {
		return nil
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if err := os.MkdirAll(vs.dir, 0o755); err != nil {
		return fmt.Errorf("couldn't create %s: %w", vs.dir, err)
	}
	cols, err := s.Collections(ctx)
	if err != nil {
		return err
	}
	for _, c := range cols {
		if _, dirty := vs.dirty[c.Name]; !dirty {
			continue
		}
		col := vs.db.GetCollection(c.Name, refuseEmbedding)
		if col == nil {
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

// removeOtherSnapshots deletes a collection's older snapshots once a new one is in place.
func removeOtherSnapshots(dir, collection, keep string) {
	old, _ := filepath.Glob(filepath.Join(dir, collection+".g*.gob"))
	for _, p := range old {
		if p != keep {
			os.Remove(p)
		}
	}
}

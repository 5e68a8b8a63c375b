// Package kb is the knowledge base's store: the workspace folder, warren.db (documents,
// chunks, their vectors and the FTS5 terms, written in one transaction per document), ingest
// and search. It composes the rooms below it, each with one job: kb/load reads documents
// into sections and chunks, kb/lexical ranks chunks by BM25 over an index in memory, and
// kb/vectors keeps the chunks' vectors and finds the nearest; kb/chunk is the vocabulary they
// share (Chunk, Scope, Hit).
package kb

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"warren/config"
	"warren/internal/atomicfile"
	"warren/registry"
)

// Folders inside a workspace.
const (
	VectorDir  = "vectors"
	ExportsDir = "exports"
	// InboxDir is where documents wait to be ingested; the default of serve.ingest_roots, the
	// only folder analysts of `warren serve` may ingest from unless the administrator names
	// others.
	InboxDir = "inbox"
)

// DefaultDir is the workspace used when neither --workspace nor $WARREN_WORKSPACE names one.
const DefaultDir = ".warren"

// Workspace is an open workspace folder.
type Workspace struct {
	Dir    string
	Config *config.Config
	DB     *sql.DB
}

// InitResult says what Init created and what was already there.
type InitResult struct {
	Dir      string   `json:"workspace"`
	Created  []string `json:"created"`
	Existing []string `json:"existing"`
}

// Init creates a workspace in dir, or completes one that lacks parts; its database gets the
// schema steps of migrations (see OpenDB). It never overwrites an existing file: a
// configuration or registry the analyst edited is kept as it is.
func Init(dir string, migrations []Migration) (*InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't resolve %s: %w", dir, err)
	}
	res := &InitResult{Dir: abs}
	note := func(name string, created bool) {
		if created {
			res.Created = append(res.Created, name)
		} else {
			res.Existing = append(res.Existing, name)
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("couldn't create the workspace folder: %w", err)
	}
	files := []struct {
		name  string
		write func(path string) error
	}{
		{config.FileName, func(p string) error { return atomicfile.WriteFile(p, []byte(config.DefaultFile()), 0o644) }},
		{registry.FileName, func(p string) error { return registry.New().Save(p) }},
	}
	for _, f := range files {
		path := filepath.Join(abs, f.name)
		_, err := os.Stat(path)
		switch {
		case err == nil:
			note(f.name, false)
		case errors.Is(err, fs.ErrNotExist):
			if err := f.write(path); err != nil {
				return nil, fmt.Errorf("couldn't write %s: %w", path, err)
			}
			note(f.name, true)
		default:
			return nil, fmt.Errorf("couldn't check %s: %w", path, err)
		}
	}
	for _, d := range []struct {
		name string
		perm os.FileMode
	}{
		{VectorDir, 0o755}, {ExportsDir, 0o755},
		// Documents waiting for ingest may be confidential: other accounts get nothing.
		{InboxDir, 0o750},
	} {
		path := filepath.Join(abs, d.name)
		_, statErr := os.Stat(path)
		if err := os.MkdirAll(path, d.perm); err != nil {
			return nil, fmt.Errorf("couldn't create %s: %w", path, err)
		}
		note(d.name+"/", statErr != nil)
	}
	dbPath := filepath.Join(abs, DBFileName)
	_, statErr := os.Stat(dbPath)
	db, err := OpenDB(dbPath, migrations)
	if err != nil {
		return nil, err
	}
	db.Close()
	note(DBFileName, statErr != nil)
	return res, nil
}

// ErrNoWorkspace means the folder is not a workspace.
var ErrNoWorkspace = errors.New("no workspace")

// IsWorkspace reports whether dir holds a workspace configuration.
func IsWorkspace(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, config.FileName))
	return err == nil
}

// Open opens an existing workspace with its configuration layered from src (src.File is set
// to the workspace's warren.toml), bringing its database up to date with migrations (see
// OpenDB).
func Open(dir string, src config.Sources, migrations []Migration) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't resolve %s: %w", dir, err)
	}
	if !IsWorkspace(abs) {
		return nil, fmt.Errorf("%w at %s: run `warren init %s` to create one, or pass --workspace", ErrNoWorkspace, abs, dir)
	}
	src.File = filepath.Join(abs, config.FileName)
	cfg, err := config.Load(src)
	if err != nil {
		return nil, err
	}
	db, err := OpenDB(filepath.Join(abs, DBFileName), migrations)
	if err != nil {
		return nil, err
	}
	return &Workspace{Dir: abs, Config: cfg, DB: db}, nil
}

// Close releases the workspace's stores.
func (w *Workspace) Close() error { return w.DB.Close() }

// Registry loads the workspace's document registry.
func (w *Workspace) Registry() (*registry.Registry, error) {
	return registry.Load(filepath.Join(w.Dir, registry.FileName))
}

// Package kbcopy copies a knowledge base from one backend to another (`warren kb migrate`):
// every document with its chunks and their stored vectors, so nothing is embedded again. A
// checkpoint in warren.db records each document once the destination holds it, so a copy that
// was killed or cancelled goes on where it stopped; at the end the two sides are compared by
// their counts and an order-independent checksum of every chunk's ID, text and vector.
package kbcopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"warren/kb"
	"warren/kb/load"
)

// Migrations is the schema step of the copy checkpoint: one row per document a copy to a
// target has finished, with the source's content hash and chunk count at that time.
var Migrations = []kb.Migration{{Version: 50, Name: "knowledge base copy checkpoints", SQL: `
CREATE TABLE kb_copies (
	target TEXT NOT NULL,
	doc    TEXT NOT NULL,
	hash   TEXT NOT NULL,
	chunks INTEGER NOT NULL,
	PRIMARY KEY (target, doc)
)`}}

// Options steer a copy.
type Options struct {
	// Target names the destination in the checkpoint, such as "weaviate http://10.0.0.5:8080";
	// a copy to another target starts from nothing.
	Target string
	// Prune removes destination documents the source does not hold; without it their presence
	// stops the copy before it writes anything.
	Prune bool
	// Progress is told after each document (may be nil).
	Progress func(Progress)
}

// Progress is where a copy stands.
type Progress struct {
	Done, Total int    // documents handled (copied or found done) of all
	Chunks      int    // chunks copied so far in this run
	Doc         string // the document just handled
	Resumed     bool   // the checkpoint had it: not copied again
}

// Report is the outcome of a copy.
type Report struct {
	Target      string   `json:"target"`
	Documents   int      `json:"documents"` // in the source
	Copied      int      `json:"copied"`    // documents written in this run
	Resumed     int      `json:"resumed"`   // documents an earlier, interrupted run had copied
	Chunks      int      `json:"chunks"`    // chunks written in this run
	Pruned      []string `json:"pruned,omitempty"`
	Source      Digest   `json:"source"`
	Destination Digest   `json:"destination"`
	Verified    bool     `json:"verified"` // the destination's counts and checksum equal the source's
}

// ExtraDocumentsError stops a copy whose destination holds documents the source does not.
type ExtraDocumentsError struct{ IDs []string }

func (e *ExtraDocumentsError) Error() string {
	shown := e.IDs
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(e.IDs) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(e.IDs)-len(shown))
	}
	return fmt.Sprintf("the destination holds %d documents the source does not (%s%s)", len(e.IDs), strings.Join(shown, ", "), more)
}

// MismatchError is a copy that finished but whose destination differs from its source.
type MismatchError struct{ Source, Destination Digest }

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the copy differs from its source: %d documents, %d chunks, checksum %s there; %d, %d, %s here",
		e.Source.Documents, e.Source.Chunks, e.Source.Sum, e.Destination.Documents, e.Destination.Chunks, e.Destination.Sum)
}

// Copy copies every document of src into dst, skipping the ones the checkpoint in db records
// as copied with the source's current hash and chunk count (and that dst still holds), and
// verifies the result. It is safe to run again after a kill, a cancel or an error: each
// document is replaced whole, and the checkpoint row is written only after dst stored it.
func Copy(ctx context.Context, db *sql.DB, src, dst kb.Backend, opts Options) (*Report, error) {
	if opts.Target == "" {
		return nil, errors.New("couldn't copy the knowledge base: no target named")
	}
	rep := &Report{Target: opts.Target}
	srcDocs, err := src.Documents(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("couldn't list the source's documents: %w", err)
	}
	dstDocs, err := dst.Documents(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("couldn't list the destination's documents: %w", err)
	}
	rep.Documents = len(srcDocs)
	inSource := make(map[string]bool, len(srcDocs))
	for _, d := range srcDocs {
		inSource[d.ID] = true
	}
	held := make(map[string]kb.DocInfo, len(dstDocs))
	var extra []string
	for _, d := range dstDocs {
		held[d.ID] = d
		if !inSource[d.ID] {
			extra = append(extra, d.ID)
		}
	}
	if len(extra) > 0 && !opts.Prune {
		return rep, &ExtraDocumentsError{IDs: extra}
	}
	embedders, err := embedderOf(ctx, src)
	if err != nil {
		return rep, err
	}
	done, err := checkpoint(ctx, db, opts.Target)
	if err != nil {
		return rep, err
	}

	if err := dst.Prepare(ctx); err != nil {
		return rep, fmt.Errorf("couldn't prepare the destination: %w", err)
	}
	// Whatever happens below, what was written is made durable, so a later run's checkpoint
	// and the destination agree.
	flushed := false
	defer func() {
		if !flushed {
			dst.Flush(context.WithoutCancel(ctx))
		}
	}()
	for _, id := range extra {
		if _, err := dst.RemoveDocument(ctx, id); err != nil {
			return rep, fmt.Errorf("couldn't remove %s from the destination: %w", id, err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM kb_copies WHERE target = ? AND doc = ?`, opts.Target, id); err != nil {
			return rep, fmt.Errorf("couldn't update the copy checkpoint: %w", err)
		}
		rep.Pruned = append(rep.Pruned, id)
	}
	for i, d := range srcDocs {
		if err := ctx.Err(); err != nil {
			return rep, interrupted(rep, err)
		}
		p := Progress{Done: i + 1, Total: len(srcDocs), Doc: d.ID}
		if c, ok := done[d.ID]; ok && c.hash == d.Hash && c.chunks == d.Chunks &&
			held[d.ID].Hash == d.Hash && held[d.ID].Chunks == d.Chunks && held[d.ID].Collection == d.Collection {
			rep.Resumed++
			p.Resumed, p.Chunks = true, rep.Chunks
			if opts.Progress != nil {
				opts.Progress(p)
			}
			continue
		}
		n, err := copyDocument(ctx, src, dst, d, embedders[d.Collection])
		if err != nil {
			if ctx.Err() != nil {
				return rep, interrupted(rep, ctx.Err())
			}
			return rep, err
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO kb_copies (target, doc, hash, chunks) VALUES (?, ?, ?, ?)
ON CONFLICT (target, doc) DO UPDATE SET hash = excluded.hash, chunks = excluded.chunks`, opts.Target, d.ID, d.Hash, n); err != nil {
			return rep, fmt.Errorf("couldn't update the copy checkpoint: %w", err)
		}
		rep.Copied++
		rep.Chunks += n
		p.Chunks = rep.Chunks
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	flushed = true
	if err := dst.Flush(ctx); err != nil {
		return rep, fmt.Errorf("couldn't flush the destination: %w", err)
	}

	if rep.Source, err = Checksum(ctx, src); err != nil {
		return rep, fmt.Errorf("couldn't checksum the source: %w", err)
	}
	if rep.Destination, err = Checksum(ctx, dst); err != nil {
		return rep, fmt.Errorf("couldn't checksum the destination: %w", err)
	}
	if rep.Source != rep.Destination {
		// The checkpoint cannot be trusted for this target any more: the next run copies
		// every document anew.
		if _, err := db.ExecContext(ctx, `DELETE FROM kb_copies WHERE target = ?`, opts.Target); err != nil {
			return rep, fmt.Errorf("couldn't reset the copy checkpoint: %w", err)
		}
		return rep, &MismatchError{Source: rep.Source, Destination: rep.Destination}
	}
	rep.Verified = true
	return rep, nil
}

func interrupted(rep *Report, err error) error {
	return fmt.Errorf("copy interrupted after %d of %d documents (run it again to go on): %w",
		rep.Copied+rep.Resumed, rep.Documents, err)
}

// copyDocument writes one source document with its chunks and vectors into dst and returns
// its chunk count.
func copyDocument(ctx context.Context, src, dst kb.Backend, d kb.DocInfo, embedder string) (int, error) {
	chunks, err := src.DocumentChunks(ctx, d.ID)
	if err != nil {
		return 0, fmt.Errorf("couldn't read the chunks of %s: %w", d.ID, err)
	}
	vectors, err := src.DocumentVectors(ctx, d.ID)
	if err != nil {
		return 0, fmt.Errorf("couldn't read the vectors of %s: %w", d.ID, err)
	}
	if len(vectors) != len(chunks) {
		return 0, fmt.Errorf("couldn't copy %s: the source has %d chunks but %d vectors", d.ID, len(chunks), len(vectors))
	}
	doc := &load.Document{ID: d.ID, Collection: d.Collection, Title: d.Title, Source: d.Source, Format: d.Format,
		Meta: d.Meta, Language: d.Language, Hash: d.Hash, Size: d.Size, ModTime: d.ModTime}
	if err := dst.ReplaceDocument(ctx, doc, chunks, vectors, embedder); err != nil {
		return 0, fmt.Errorf("couldn't write %s to the destination: %w", d.ID, err)
	}
	return len(chunks), nil
}

// embedderOf maps each source collection to the embedder that built it, which the destination
// records, so a later ingest there refuses another model as it would here.
func embedderOf(ctx context.Context, src kb.Backend) (map[string]string, error) {
	cols, err := src.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the source's collections: %w", err)
	}
	out := make(map[string]string, len(cols))
	for _, c := range cols {
		out[c.Name] = c.Embedder
	}
	return out, nil
}

type copied struct {
	hash   string
	chunks int
}

func checkpoint(ctx context.Context, db *sql.DB, target string) (map[string]copied, error) {
	rows, err := db.QueryContext(ctx, `SELECT doc, hash, chunks FROM kb_copies WHERE target = ?`, target)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the copy checkpoint: %w", err)
	}
	defer rows.Close()
	out := map[string]copied{}
	for rows.Next() {
		var doc string
		var c copied
		if err := rows.Scan(&doc, &c.hash, &c.chunks); err != nil {
			return nil, err
		}
		out[doc] = c
	}
	return out, rows.Err()
}

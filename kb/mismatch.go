package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"warren/config"
)

// A collection records the embedder that built it (its ID: "ollama:<model>" or the built-in
// scheme) and the length of its vectors, in the collections table of warren.db, written in
// the same transaction as the document's vectors. Vectors of another model, or of the same
// model at another length, cannot be compared with the stored ones: every path that would
// compare them (search, ingest, doctor) checks the record first and reports an
// *EmbedderMismatchError that names the collection, both embedders and the fix.

// ErrEmbedderChanged is what every *EmbedderMismatchError matches with errors.Is.
var ErrEmbedderChanged = errors.New("the embedding model changed")

// EmbedderMismatchError means a collection was embedded with another model, or another
// dimension, than the embedder warren would use now: their vectors are not comparable, and
// the collection has to be rebuilt (or the configuration set back).
type EmbedderMismatchError struct {
	Collection string // "" when not known
	Built      string // the embedder ID recorded for the collection, such as "ollama:nomic-embed-text"
	BuiltDim   int    // the length of its stored vectors; 0 when not known
	Asked      string // the embedder ID warren is set to use; "" when only a vector's length is known
	AskedDim   int    // the length of that embedder's vectors; 0 when not known
}

// Is makes errors.Is(err, ErrEmbedderChanged) true.
func (e *EmbedderMismatchError) Is(target error) bool { return target == ErrEmbedderChanged }

func (e *EmbedderMismatchError) Error() string { return e.Problem() + ": " + e.Fix() }

// Problem says what does not match, naming the collection, both embedders and their
// dimensions as far as they are known.
func (e *EmbedderMismatchError) Problem() string {
	subject := "the collection"
	if e.Collection != "" {
		subject = fmt.Sprintf("collection %q", e.Collection)
	}
	built := describeEmbedder(e.Built, e.BuiltDim)
	switch {
	case e.Asked == "":
		return fmt.Sprintf("%s was embedded with %s but the query vector has %d dims", subject, built, e.AskedDim)
	case SameEmbedder(e.Built, e.Asked):
		return fmt.Sprintf("%s was embedded with %s but %s now gives %d dims", subject, built, EmbedderName(e.Asked), e.AskedDim)
	}
	return fmt.Sprintf("%s was embedded with %s but warren is set to %s", subject, built, describeEmbedder(e.Asked, e.AskedDim))
}

// Fix is what the analyst runs: a rebuild, or the setting that brings the old embedder back.
func (e *EmbedderMismatchError) Fix() string {
	const rebuild = "run `warren ingest --rebuild` on its documents"
	switch {
	case e.Asked == "" || SameEmbedder(e.Built, e.Asked):
		return rebuild
	case isOllama(e.Built) && isOllama(e.Asked):
		return rebuild + " (or set models.embed.model back to " + EmbedderName(e.Built) + ")"
	case isOllama(e.Built):
		return rebuild + " (or ingest with --embedder ollama and models.embed.model = " + EmbedderName(e.Built) + ")"
	case e.Built == Builtin{}.ID():
		return rebuild + " (or ingest with --embedder builtin)"
	}
	return rebuild
}

func isOllama(id string) bool { return strings.HasPrefix(id, "ollama:") }

// EmbedderName is how an embedder ID is shown: the model's name, or "the built-in embedder".
func EmbedderName(id string) string {
	switch {
	case id == "":
		return "another embedder"
	case isOllama(id):
		return strings.TrimPrefix(id, "ollama:")
	case id == Builtin{}.ID():
		return "the built-in embedder"
	case strings.HasPrefix(id, "builtin:"):
		return "the built-in embedder " + strings.TrimPrefix(id, "builtin:")
	}
	return id
}

func describeEmbedder(id string, dim int) string {
	if dim > 0 {
		return fmt.Sprintf("%s (%d dims)", EmbedderName(id), dim)
	}
	return EmbedderName(id)
}

// SameEmbedder reports whether two embedder IDs name the same embedder; model names compare
// as Ollama compares them ("nomic-embed-text" is "nomic-embed-text:latest").
func SameEmbedder(a, b string) bool {
	if isOllama(a) && isOllama(b) {
		return config.SameModel(strings.TrimPrefix(a, "ollama:"), strings.TrimPrefix(b, "ollama:"))
	}
	return a == b
}

// CheckEmbedder reports whether vectors of the embedder id, dim long (0: not known), can be
// compared with the collection's: nil, or an *EmbedderMismatchError.
func (c CollectionInfo) CheckEmbedder(id string, dim int) error {
	if SameEmbedder(c.Embedder, id) && (dim == 0 || c.Dim == 0 || dim == c.Dim) {
		return nil
	}
	return &EmbedderMismatchError{Collection: c.Name, Built: c.Embedder, BuiltDim: c.Dim, Asked: id, AskedDim: dim}
}

// QueryEmbedder is [EmbedderFor] for a stored collection, with model the configured embedding
// model's embedder (nil when none is configured): the embedder its queries need, or an
// *EmbedderMismatchError naming the collection and its dimension. It does not know the
// configured model's dimension; compare a query vector with [CollectionInfo.CheckEmbedder].
func (c CollectionInfo) QueryEmbedder(model Embedder) (Embedder, error) {
	emb, err := EmbedderFor(c.Embedder, model)
	var mismatch *EmbedderMismatchError
	if errors.As(err, &mismatch) {
		mismatch.Collection, mismatch.BuiltDim = c.Name, c.Dim
	}
	return emb, err
}

// storedDim is the length of a collection's stored vectors: its recorded dimension, else
// (a record without one) the length of a stored vector, else 0 for an empty collection.
func storedDim(ctx context.Context, tx *sql.Tx, name string, recorded int) (int, error) {
	if recorded > 0 {
		return recorded, nil
	}
	var dim int
	err := tx.QueryRowContext(ctx, `SELECT length(vector) / 4 FROM chunks WHERE collection = ? LIMIT 1`, name).Scan(&dim)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("couldn't read the vectors of %s: %w", name, err)
	}
	return dim, nil
}

package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/kb/chunk"
	"warren/kb/load"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/retrieval"
	"warren/retrieval/ireval"
)

// IREvalOptions describe one retrieval evaluation: the test collection's files and how to
// index and search it.
type IREvalOptions struct {
	Format               string // cranfield, cisi, cacm or trec
	Docs, Queries, Qrels string // the collection's files
	KeepSourcePapers     bool   // cranfield: count each query's -1 judgment as relevant
	Mode                 retrieval.Mode
	Embedder             string  // builtin or ollama (the configured embed role)
	HeadingWeight        float64 // BM25 weight of heading terms; 0 keeps the default
	Sources              config.Sources
	Logger               *slog.Logger
	Progress             func(done, total int) // documents indexed so far
}

// IREvalResult is the outcome of an evaluation: the metrics and how they were measured.
type IREvalResult struct {
	ireval.Metrics
	Format      string  `json:"format"`
	Backend     string  `json:"backend"`
	Mode        string  `json:"mode"`
	Embedder    string  `json:"embedder"`
	Documents   int     `json:"documents"`
	IndexSecs   float64 `json:"index_seconds"`
	QuerySecs   float64 `json:"query_seconds"`
	SourcePaper bool    `json:"source_papers_relevant,omitempty"`
}

// EvalIR loads a test collection, indexes it into a throwaway workspace with warren's own
// analysis, chunking and stores (one chunk per document, so rankings are of documents), runs
// every judged query and scores the rankings.
func EvalIR(ctx context.Context, opts IREvalOptions) (*IREvalResult, error) {
	coll, err := ireval.LoadWith(opts.Format, opts.Docs, opts.Queries, opts.Qrels, ireval.Options{KeepSourcePapers: opts.KeepSourcePapers})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "warren-eval-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := kb.Init(dir, schema.All()); err != nil {
		return nil, err
	}
	ws, err := kb.Open(dir, opts.Sources, schema.All())
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	store, drop, err := evalBackend(ctx, ws, opts.HeadingWeight)
	if err != nil {
		return nil, err
	}
	defer drop()
	searcher := &retrieval.Searcher{Store: store, DenseWeight: ws.Config.KB.DenseWeight}
	var emb kb.Embedder = kb.Builtin{}
	switch opts.Embedder {
	case "ollama":
		log := opts.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		g, err := llm.New(ws.Config, llm.WithLogger(log))
		if err != nil {
			return nil, err
		}
		if err := g.CheckModel(ctx, config.RoleEmbed); err != nil {
			return nil, err
		}
		emb = llmkb.Embedder(g)
		searcher.Model, searcher.Dimension = emb, g.EmbedDimension
	case "builtin", "":
	default:
		return nil, fmt.Errorf("embedder %q: use builtin or ollama", opts.Embedder)
	}
	start := time.Now()
	chunking := load.ChunkOptions{Size: 20_000, Overlap: 0}
	chunks := 0
	for from := 0; from < len(coll.Docs); from += evalEmbedWindow {
		window := make([]*load.Document, 0, evalEmbedWindow)
		for _, d := range coll.Docs[from:min(from+evalEmbedWindow, len(coll.Docs))] {
			// The title is the document's heading, as a section heading is a chunk's.
			window = append(window, &load.Document{ID: d.ID, Collection: "eval", Title: d.Title, Language: "en", Format: "text",
				Source: "eval", Meta: map[string]string{}, Sections: []load.Section{{Heading: d.Title, Text: d.Text}}})
		}
		ahead, err := embedAhead(ctx, emb, window, chunking)
		if err != nil {
			return nil, err
		}
		for i, doc := range window {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			n, err := kb.AddDocument(ctx, store, doc, ahead, chunking, nil)
			if err != nil && !strings.Contains(err.Error(), "no text") {
				return nil, fmt.Errorf("couldn't index document %s: %w", doc.ID, err)
			}
			chunks += n
			if opts.Progress != nil {
				opts.Progress(from+i+1, len(coll.Docs))
			}
		}
	}
	indexed := time.Since(start)
	start = time.Now()
	// A document longer than a chunk ranks by its best chunk (docs/retrieval.md, Documents
	// longer than a chunk): as many more chunks are read as documents have chunks on average,
	// so that the ranking still reaches k documents.
	perDoc := max(1, (chunks+len(coll.Docs)-1)/max(len(coll.Docs), 1))
	run, err := ireval.Run(coll, func(q string, k int) ([]string, error) {
		results, err := searcher.Search(ctx, retrieval.Request{Query: q, K: k * perDoc, Mode: opts.Mode, Language: "en"})
		if err != nil {
			return nil, err
		}
		passages := make([]ireval.Passage, len(results))
		for i, r := range results {
			passages[i] = ireval.Passage{Doc: r.Doc, Score: r.Score}
		}
		return ireval.RankDocuments(passages, 0), nil
	}, ireval.DefaultK)
	if err != nil {
		return nil, err
	}
	return &IREvalResult{Metrics: ireval.Evaluate(coll, run), Format: opts.Format, Backend: store.Kind(), Mode: string(opts.Mode), Embedder: emb.ID(),
		Documents: len(coll.Docs), IndexSecs: indexed.Seconds(), QuerySecs: time.Since(start).Seconds(),
		SourcePaper: opts.KeepSourcePapers}, nil
}

// evalEmbedWindow is how many documents' chunks an evaluation embeds in one call: the gateway
// sends them in batches of ollama.embed_batch_size, as many at once as the embed hosts answer,
// where one request per document kept a model server waiting on warren's round trips.
const evalEmbedWindow = 256

// embedAhead embeds the chunks of a window of documents in one call and returns an embedder
// that answers AddDocument from those vectors.
func embedAhead(ctx context.Context, emb kb.Embedder, docs []*load.Document, chunking load.ChunkOptions) (kb.Embedder, error) {
	var texts []string
	for _, doc := range docs {
		// The chunks AddDocument will cut: an evaluation's documents are one section each.
		chunker := &load.Chunker{Doc: doc.ID, Collection: doc.Collection, Options: chunking}
		for _, sec := range doc.Sections {
			for _, c := range chunker.Section(sec) {
				texts = append(texts, chunk.IndexText(c))
			}
		}
	}
	vectors, err := emb.Embed(ctx, texts, nil)
	if err != nil {
		return nil, fmt.Errorf("couldn't embed the documents: %w", err)
	}
	if len(vectors) != len(texts) {
		return nil, fmt.Errorf("couldn't embed the documents: %d vectors for %d texts", len(vectors), len(texts))
	}
	ahead := embeddedAhead{Embedder: emb, vectors: make(map[string][]float32, len(texts))}
	for i, t := range texts {
		ahead.vectors[t] = vectors[i]
	}
	return ahead, nil
}

// embeddedAhead is an embedder whose vectors were computed before they are asked for; a text
// it does not hold goes to the embedder it wraps, whose ID it keeps.
type embeddedAhead struct {
	kb.Embedder
	vectors map[string][]float32
}

func (e embeddedAhead) Embed(ctx context.Context, texts []string, progress func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vectors[t]
		if !ok {
			return e.Embedder.Embed(ctx, texts, progress)
		}
		out[i] = v
	}
	if progress != nil {
		progress(len(texts))
	}
	return out, nil
}

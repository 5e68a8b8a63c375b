package llm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/sync/errgroup"

	"warren/config"
)

// Embed returns one vector per text from the embed role, sending the texts in batches of
// ollama.embed_batch_size through /api/embed, as many batches at once as the role's healthy
// hosts answer at once (Capacity). Each batch is one metered exchange; the vectors come back
// in the texts' order whatever order the batches end in. onBatch, when given, is told how
// many texts are done after each batch (for progress bars), one batch at a time. call is the
// run the batches are made for: it meters, records and replays each of them.
func (g *Gateway) Embed(ctx context.Context, call Call, texts []string, onBatch func(done int)) ([][]float32, error) {
	t, err := g.target(config.RoleEmbed)
	if err != nil {
		return nil, err
	}
	size := max(g.settings.EmbedBatchSize, 1)
	batches := make([][][]float32, (len(texts)+size-1)/size)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(g.Capacity(config.RoleEmbed))
	var mu sync.Mutex
	done := 0
	for b := range batches {
		if ectx.Err() != nil {
			break
		}
		eg.Go(func() error {
			vecs, err := g.embedBatch(ectx, call, t, texts[b*size:min((b+1)*size, len(texts))])
			if err != nil {
				return err
			}
			batches[b] = vecs
			if onBatch != nil {
				mu.Lock()
				defer mu.Unlock()
				done += len(vecs)
				onBatch(done)
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, 0, len(texts))
	for _, vecs := range batches {
		if len(out) > 0 && len(vecs) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, fmt.Errorf("model %s changed its embedding dimension from %d to %d mid-way", t.model, len(out[0]), len(vecs[0]))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// EmbedFor is Embed for call in the shape the knowledge base takes an embedding function
// (kb.EmbedFunc), so that a store or a searcher embeds as part of call.
func (g *Gateway) EmbedFor(call Call) func(ctx context.Context, texts []string, onBatch func(done int)) ([][]float32, error) {
	return func(ctx context.Context, texts []string, onBatch func(done int)) ([][]float32, error) {
		return g.Embed(ctx, call, texts, onBatch)
	}
}

func (g *Gateway) embedBatch(ctx context.Context, call Call, t target, batch []string) (vecs [][]float32, err error) {
	journal := call.Journal
	key := requestKey("embed", t.model, batch)
	done, err := g.flights.join(ctx, call, key)
	if err != nil {
		return nil, err
	}
	defer done() // after the vectors are journaled (deferred below)
	if journal != nil {
		if e, ok, err := journal.Lookup(ctx, key); err == nil && ok && len(e.Embeddings) == len(batch) {
			return e.Embeddings, nil
		}
	}
	estimate := estimateTokens(batch...)
	run := call.Run
	var res reservation
	if run != nil {
		if res, err = run.reserve(estimate, 0, false); err != nil {
			return nil, err
		}
	}
	req := &api.EmbedRequest{Model: t.model, Input: batch, KeepAlive: t.keep}
	var resp *api.EmbedResponse
	start := time.Now()
	attempts := 0
	var used *host
	defer func() {
		entry := LedgerEntry{Time: start, Node: call.Node, Role: string(t.role), Model: t.model, Host: hostURL(used, t),
			Kind: "embed", Duration: time.Since(start), Attempts: attempts, Outcome: "ok", Key: key}
		if resp != nil {
			entry.PromptTokens = resp.PromptEvalCount
		}
		if err != nil {
			entry.Outcome, entry.Error = "error", err.Error()
		} else if journal != nil {
			journal.Record(ctx, key, JournalEntry{Embeddings: vecs, PromptTokens: entry.PromptTokens})
		}
		if run != nil {
			run.settle(res, entry)
		}
	}()
	attempts, used, err = g.withRetry(ctx, t, func(ctx context.Context, h *host) error {
		var err error
		resp, err = h.client.Embed(ctx, req)
		return err
	}, nil)
	if err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(batch) {
		err = fmt.Errorf("model %s returned %d embeddings for %d texts", t.model, len(resp.Embeddings), len(batch))
		return nil, err
	}
	vecs = resp.Embeddings
	return vecs, nil
}

// EmbedBatchSize is how many texts one /api/embed request carries (ollama.embed_batch_size).
func (g *Gateway) EmbedBatchSize() int { return max(g.settings.EmbedBatchSize, 1) }

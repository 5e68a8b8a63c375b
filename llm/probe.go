package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// probeTimeout bounds each health probe: `warren doctor` and the workbench header must answer
// quickly even when a host is a black hole.
const probeTimeout = 5 * time.Second

// Probes answer "is this role usable?" with one attempt each and no retries, so a health
// check reports a dead host in seconds rather than after the full backoff.

// HostVersion asks one host (an address from Hosts) for its Ollama version.
func (g *Gateway) HostVersion(ctx context.Context, addr string) (string, error) {
	h, ok := g.hosts[addr]
	if !ok {
		return "", fmt.Errorf("%s is not a host of any role", addr)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	v, err := h.client.Version(ctx)
	if err != nil {
		return "", probeError("", h.url, err)
	}
	return v, nil
}

// CheckModel reports whether a role's model can be used: nil when at least one of its hosts
// has it. Its hosts are asked at once; those that lack the model are skipped by requests from
// then on. When none has it the error is a *ModelMissingError naming the hosts that lack it;
// when none could be asked, the first host's error.
func (g *Gateway) CheckModel(ctx context.Context, role config.RoleName) error {
	t, err := g.target(role)
	if err != nil {
		return err
	}
	errs := make([]error, len(t.hosts))
	var wg sync.WaitGroup
	for i, h := range t.hosts {
		wg.Go(func() { errs[i] = g.checkModelOn(ctx, t, h) })
	}
	wg.Wait()
	var lacking []*host
	for i, err := range errs {
		var missing *ModelMissingError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &missing):
			lacking = append(lacking, t.hosts[i])
		}
	}
	if len(lacking) > 0 {
		return &ModelMissingError{Model: t.model, Host: hostList(lacking)}
	}
	return errs[0]
}

// CheckModelOn checks one host of a role: nil when it has the role's model, a
// *ModelMissingError when it does not (requests then skip it), else why it could not be asked.
func (g *Gateway) CheckModelOn(ctx context.Context, role config.RoleName, addr string) error {
	t, err := g.target(role)
	if err != nil {
		return err
	}
	for _, h := range t.hosts {
		if h.url == addr {
			return g.checkModelOn(ctx, t, h)
		}
	}
	return fmt.Errorf("%s is not a host of the %s role", addr, role)
}

func (g *Gateway) checkModelOn(ctx context.Context, t target, h *host) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	list, err := h.client.List(ctx)
	if err != nil {
		return probeError(t.model, h.url, err)
	}
	for _, m := range list.Models {
		if SameModel(m.Name, t.model) {
			g.pool.has(h, t.model)
			return nil
		}
	}
	g.pool.lacking(h, t.model)
	return &ModelMissingError{Model: t.model, Host: h.url}
}

// EmbedDimension embeds one short text with the embed role, in one attempt on its first
// usable host, and returns the vector length.
func (g *Gateway) EmbedDimension(ctx context.Context) (int, error) {
	t, err := g.target(config.RoleEmbed)
	if err != nil {
		return 0, err
	}
	h := t.hosts[0]
	if up := g.pool.usable(t.hosts, t.model); len(up) > 0 {
		h = up[0]
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout*6) // loading an embedding model takes a while
	defer cancel()
	resp, err := h.client.Embed(ctx, &api.EmbedRequest{Model: t.model, Input: []string{"warren dimension probe"}, KeepAlive: t.keep})
	if err != nil {
		return 0, probeError(t.model, h.url, err)
	}
	if len(resp.Embeddings) != 1 || len(resp.Embeddings[0]) == 0 {
		return 0, fmt.Errorf("model %s returned no embedding", t.model)
	}
	return len(resp.Embeddings[0]), nil
}

// SameModel compares model names the way Ollama does: a name without a tag means ":latest".
func SameModel(a, b string) bool { return config.SameModel(a, b) }

func probeError(model, addr string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &UnreachableError{Host: addr, Attempts: 1, Err: fmt.Errorf("no answer within %s", probeTimeout)}
	}
	kind := classify(err)
	if kind == failModelMissing {
		return &ModelMissingError{Model: model, Host: addr}
	}
	return finalError(model, addr, kind, err, 1)
}

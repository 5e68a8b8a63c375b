package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// probeTimeout bounds each health probe: `warren doctor` and the workbench header must answer
// quickly even when a host is a black hole.
const probeTimeout = 5 * time.Second

// Probes answer "is this role usable?" with one attempt each and no retries, so a health
// check reports a dead host in seconds rather than after the full backoff.

// Version asks a role's host for its Ollama version.
func (g *Gateway) Version(ctx context.Context, role config.RoleName) (string, error) {
	t, err := g.target(role)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	v, err := t.host.client.Version(ctx)
	if err != nil {
		return "", probeError(t, err)
	}
	return v, nil
}

// Models lists the models installed on a role's host.
func (g *Gateway) Models(ctx context.Context, role config.RoleName) ([]string, error) {
	t, err := g.target(role)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	list, err := t.host.client.List(ctx)
	if err != nil {
		return nil, probeError(t, err)
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	return names, nil
}

// CheckModel reports a *ModelMissingError when the role's model is not on its host.
func (g *Gateway) CheckModel(ctx context.Context, role config.RoleName) error {
	names, err := g.Models(ctx, role)
	if err != nil {
		return err
	}
	t, _ := g.target(role) // Models has checked the role
	for _, n := range names {
		if SameModel(n, t.model) {
			return nil
		}
	}
	return &ModelMissingError{Model: t.model, Host: t.host.url}
}

// EmbedDimension embeds one short text with the embed role, in one attempt, and returns the
// vector length.
func (g *Gateway) EmbedDimension(ctx context.Context) (int, error) {
	t, err := g.target(config.RoleEmbed)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout*6) // loading an embedding model takes a while
	defer cancel()
	resp, err := t.host.client.Embed(ctx, &api.EmbedRequest{Model: t.model, Input: []string{"warren dimension probe"}, KeepAlive: t.keep})
	if err != nil {
		return 0, probeError(t, err)
	}
	if len(resp.Embeddings) != 1 || len(resp.Embeddings[0]) == 0 {
		return 0, fmt.Errorf("model %s returned no embedding", t.model)
	}
	return len(resp.Embeddings[0]), nil
}

// SameModel compares model names the way Ollama does: a name without a tag means ":latest".
func SameModel(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}

func probeError(t target, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &UnreachableError{Host: t.host.url, Attempts: 1, Err: fmt.Errorf("no answer within %s", probeTimeout)}
	}
	kind := classify(err)
	if kind == failModelMissing {
		return &ModelMissingError{Model: t.model, Host: t.host.url}
	}
	return finalError(t, kind, err, 1)
}

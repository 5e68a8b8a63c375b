// Package llm is warren's model gateway: every call to a model passes through it. It maps the
// roles of the configuration (chat, fast, embed) to a model on one or more hosts, asks for
// structured output with a JSON schema and validates it (with a repair tier), streams text,
// batches embeddings, retries transient failures (on another host when the role has one),
// enforces a run's budget before each call, keeps a ledger, and limits how many requests are
// in flight per host.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// Gateway sends model calls for the configured roles. It is safe for concurrent use.
type Gateway struct {
	settings config.Ollama
	roles    map[config.RoleName]target
	hosts    map[string]*host
	pool     *pool
	log      *slog.Logger
	flights  flights // identical exchanges of a run in flight (see flights)
}

// target is a role resolved to what a request needs.
type target struct {
	role    config.RoleName
	model   string
	hosts   []*host // in configured order; at least one
	options map[string]any
	keep    *api.Duration
	predict int
}

// Option adjusts a gateway.
type Option func(*options)

type options struct {
	httpClient *http.Client
	logger     *slog.Logger
}

// WithHTTPClient replaces the HTTP client (tests use it to shorten timeouts).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithLogger sends the gateway's diagnostics (retries, repairs) to a logger.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// New builds a gateway for the configuration's roles.
func New(cfg *config.Config, opts ...Option) (*Gateway, error) {
	o := options{logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.httpClient == nil {
		o.httpClient = newHTTPClient()
	}
	g := &Gateway{settings: cfg.Ollama, roles: map[config.RoleName]target{}, hosts: map[string]*host{}, log: o.logger}
	g.pool = &pool{g: g}
	explicit := map[string]bool{} // hosts whose slots a #N set
	for _, name := range config.Roles {
		r := cfg.Resolved(name)
		t := target{role: name, model: r.Model, options: map[string]any{}, predict: r.NumPredict}
		for _, hc := range r.Hosts {
			h, err := g.hostFor(hc, explicit, o.httpClient)
			if err != nil {
				return nil, fmt.Errorf("couldn't set up role %s: %w", name, err)
			}
			t.hosts = append(t.hosts, h)
		}
		if r.Temperature >= 0 {
			t.options["temperature"] = r.Temperature
		}
		if r.NumCtx > 0 {
			t.options["num_ctx"] = r.NumCtx
		}
		if r.KeepAlive > 0 {
			t.keep = &api.Duration{Duration: r.KeepAlive}
		}
		g.roles[name] = t
	}
	return g, nil
}

// newHTTPClient never uses a proxy: warren's only network peer is the configured Ollama host,
// and an HTTP_PROXY in the environment must not silently route model traffic elsewhere.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // a model may think for minutes before the first byte
	}}
}

// hostFor returns the one host object of an address, so that roles sharing a host share its
// slots. A host's #N holds wherever the host is listed without one; two different #N are an
// error.
func (g *Gateway) hostFor(hc config.Host, explicit map[string]bool, client *http.Client) (*host, error) {
	if h, ok := g.hosts[hc.URL]; ok {
		switch {
		case hc.Slots == 0 || hc.Slots == h.slots && explicit[hc.URL]:
		case explicit[hc.URL]:
			return nil, fmt.Errorf("host %s is given #%d and #%d: give it one number of requests at once", hc.URL, h.slots, hc.Slots)
		default:
			h.slots, explicit[hc.URL] = hc.Slots, true
		}
		return h, nil
	}
	h, err := newHost(hc, g.settings.MaxConcurrency, client)
	if err != nil {
		return nil, err
	}
	g.hosts[hc.URL], explicit[hc.URL] = h, hc.Slots > 0
	return h, nil
}

// Model returns the model a role uses and its first host; empty strings for an unknown role.
func (g *Gateway) Model(role config.RoleName) (model, host string) {
	t, ok := g.roles[role]
	if !ok {
		return "", ""
	}
	return t.model, t.hosts[0].url
}

// Hosts lists the addresses of a role's hosts in configured order (nil for an unknown role).
func (g *Gateway) Hosts(role config.RoleName) []string {
	t, ok := g.roles[role]
	if !ok {
		return nil
	}
	out := make([]string, len(t.hosts))
	for i, h := range t.hosts {
		out[i] = h.url
	}
	return out
}

// Capacity is how many requests of a role can be answered at once: the sum of the slots
// (ollama.max_concurrency, or a host's #N) of its hosts that are up and have its model. It is
// at least 1, so a caller can size a pool of workers with it; more workers than that only
// queue in the gateway. It changes as hosts fail and come back, so read it when a batch of
// work starts rather than once. Roles that share a host share its slots: the capacities of
// two such roles do not add up.
func (g *Gateway) Capacity(role config.RoleName) int {
	t, err := g.target(role)
	if err != nil {
		return 1
	}
	n := 0
	for _, h := range g.pool.usable(t.hosts, t.model) {
		n += h.slots
	}
	return max(n, 1)
}

// backoff is the delay before retry number attempt (1-based): exponential with full jitter,
// so parallel nodes that failed together do not retry together.
func (g *Gateway) backoff(attempt int) time.Duration {
	d := g.settings.BackoffBase << (attempt - 1)
	if d <= 0 || d > g.settings.BackoffMax {
		d = g.settings.BackoffMax
	}
	return d/2 + rand.N(d/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// withRetry runs one exchange's request, retrying transient failures: at once on another host
// of the role when one is healthy, else after a back-off. try gets a context bounded by the
// per-request timeout and the host to ask; onRetry runs before each new attempt. It returns
// the host of the last attempt (nil when none was made). However many attempts and hosts it
// takes, it is one exchange: the caller meters it once.
func (g *Gateway) withRetry(ctx context.Context, t target, try func(ctx context.Context, h *host) error, onRetry func()) (attempts int, used *host, err error) {
	for attempt := 1; ; attempt++ {
		h, err := g.pool.acquire(ctx, t.hosts, t.model)
		if errors.Is(err, errAllMissing) {
			return attempt - 1, used, &ModelMissingError{Model: t.model, Host: hostList(t.hosts)}
		}
		if err != nil {
			return attempt - 1, used, err
		}
		used = h
		err, timedOut := g.attempt(ctx, h, try)
		if err == nil {
			g.pool.succeeded(h)
			return attempt, h, nil
		}
		if ctx.Err() != nil {
			return attempt, h, ctx.Err()
		}
		if timedOut {
			return attempt, h, &TimeoutError{Model: t.model, Host: h.url, Timeout: g.settings.Timeout}
		}
		kind := classify(err)
		switch kind {
		case failModelMissing:
			g.pool.lacking(h, t.model)
			g.log.Warn("model host lacks the model, skipping it", "role", t.role, "model", t.model, "host", h.url)
			if onRetry != nil {
				onRetry()
			}
			continue // the next acquire picks a host that has it, or finds that none has
		case failPermanent:
			return attempt, h, finalError(t.model, h.url, kind, err, attempt)
		}
		g.pool.failed(h, err)
		if attempt > g.settings.Retries {
			return attempt, h, finalError(t.model, h.url, kind, err, attempt)
		}
		elsewhere := g.pool.healthyBesides(t.hosts, t.model, h)
		var delay time.Duration
		if !elsewhere {
			delay = g.backoff(attempt)
		}
		g.log.Warn("model request failed, retrying", "role", t.role, "model", t.model, "host", h.url,
			"attempt", attempt, "delay", delay, "other_host", elsewhere, "error", err)
		if onRetry != nil {
			onRetry()
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return attempt, h, err
		}
	}
}

// attempt runs try once in a slot of h, releasing the slot even if try panics.
func (g *Gateway) attempt(ctx context.Context, h *host, try func(ctx context.Context, h *host) error) (err error, timedOut bool) {
	defer g.pool.release(h)
	attemptCtx, cancel := context.WithTimeout(ctx, g.settings.Timeout)
	defer cancel()
	err = try(attemptCtx, h)
	return err, err != nil && attemptCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil
}

// hostList names a role's hosts for an error message.
func hostList(hosts []*host) string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.url
	}
	return strings.Join(names, ", ")
}

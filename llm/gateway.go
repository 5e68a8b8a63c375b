// Package llm is warren's model gateway: every call to a model passes through it. It maps the
// roles of the configuration (chat, fast, embed) to a model on a host, asks for structured
// output with a JSON schema and validates it (with a repair tier), streams text, batches
// embeddings, retries transient failures, enforces a run's budget before each call, keeps a
// ledger, and limits how many requests are in flight per host.
package llm

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// Gateway sends model calls for the configured roles. It is safe for concurrent use.
type Gateway struct {
	settings config.Ollama
	roles    map[config.RoleName]target
	hosts    map[string]*host
	log      *slog.Logger
}

// target is a role resolved to what a request needs.
type target struct {
	role    config.RoleName
	model   string
	host    *host
	options map[string]any
	keep    *api.Duration
	predict int
}

// host is one Ollama server with its own in-flight limit.
type host struct {
	url    string
	client *api.Client  // non-streaming endpoints: version, tags, embed
	http   *http.Client // streamed chat, see streamChat
	slots  chan struct{}
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
	for _, name := range config.Roles {
		r := cfg.Resolved(name)
		h, err := g.hostFor(r.Host, o.httpClient)
		if err != nil {
			return nil, fmt.Errorf("couldn't set up role %s: %w", name, err)
		}
		t := target{role: name, model: r.Model, host: h, options: map[string]any{}, predict: r.NumPredict}
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

func (g *Gateway) hostFor(raw string, hc *http.Client) (*host, error) {
	if h, ok := g.hosts[raw]; ok {
		return h, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("invalid Ollama host %q", raw)
	}
	n := max(g.settings.MaxConcurrency, 1)
	h := &host{url: raw, client: api.NewClient(u, hc), http: hc, slots: make(chan struct{}, n)}
	g.hosts[raw] = h
	return h, nil
}

// Model returns the model and host a role uses; empty strings for an unknown role.
func (g *Gateway) Model(role config.RoleName) (model, host string) {
	t, ok := g.roles[role]
	if !ok {
		return "", ""
	}
	return t.model, t.host.url
}

// acquire waits for a free request slot on the host.
func (h *host) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *host) release() { <-h.slots }

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

// withRetry runs one exchange's request, retrying transient failures with backoff. try gets a
// context bounded by the per-request timeout; onRetry runs before each new attempt.
func (g *Gateway) withRetry(ctx context.Context, t target, try func(ctx context.Context) error, onRetry func()) (attempts int, err error) {
	for attempt := 1; ; attempt++ {
		err, timedOut := g.attempt(ctx, t, try)
		if err == nil {
			return attempt, nil
		}
		if ctx.Err() != nil {
			return attempt, ctx.Err()
		}
		if timedOut {
			return attempt, &TimeoutError{Model: t.model, Host: t.host.url, Timeout: g.settings.Timeout}
		}
		kind := classify(err)
		if kind == failModelMissing {
			return attempt, &ModelMissingError{Model: t.model, Host: t.host.url}
		}
		if kind == failPermanent || attempt > g.settings.Retries {
			return attempt, finalError(t, kind, err, attempt)
		}
		delay := g.backoff(attempt)
		g.log.Warn("model request failed, retrying", "role", t.role, "model", t.model, "host", t.host.url,
			"attempt", attempt, "delay", delay, "error", err)
		if onRetry != nil {
			onRetry()
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return attempt, err
		}
	}
}

// attempt runs try once in a host slot, releasing the slot even if try panics.
func (g *Gateway) attempt(ctx context.Context, t target, try func(ctx context.Context) error) (err error, timedOut bool) {
	if err := t.host.acquire(ctx); err != nil {
		return err, false
	}
	defer t.host.release()
	attemptCtx, cancel := context.WithTimeout(ctx, g.settings.Timeout)
	defer cancel()
	err = try(attemptCtx)
	return err, err != nil && attemptCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil
}

package llm

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// A role is served by one or more hosts. Each request goes to the healthy host with the fewest
// requests in flight for its capacity; a host that fails (unreachable, 5xx) leaves the rotation
// and is probed again after a back-off; a host that lacks the role's model is skipped for that
// model. Hosts are shared by the roles that name them: one Ollama has one queue.

// missingRecheck is how long a host that answered "model not found" is skipped for that
// model before a request may try it again (someone may have pulled the model meanwhile).
const missingRecheck = 30 * time.Second

// host is one Ollama server. The fields below mu are guarded by the pool's mutex.
type host struct {
	url    string
	client *api.Client  // non-streaming endpoints: version, tags, embed
	http   *http.Client // streamed chat, see streamChat
	slots  int          // requests in flight at most

	inFlight  int
	served    int                  // requests given to it, so that ties take turns
	failures  int                  // consecutive failed attempts and probes
	down      bool                 // out of the rotation after a failure
	downUntil time.Time            // when a probe may bring it back
	probing   bool                 // a probe is in flight
	missing   map[string]time.Time // model → skipped until then
}

// pool hands out request slots on the hosts, first come first served.
type pool struct {
	g       *Gateway
	mu      sync.Mutex
	waiters []*waiter
}

// waiter is a request waiting for a slot on one of its role's hosts.
type waiter struct {
	hosts []*host
	model string
	got   chan *host // nil: every host lacks the model
}

// errAllMissing means no host of a role has its model.
var errAllMissing = errors.New("no host has the model")

// newHost sets up a host from a configured address.
func newHost(h config.Host, defaultSlots int, hc *http.Client) (*host, error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" {
		return nil, errors.New("invalid Ollama host " + h.URL)
	}
	slots := h.Slots
	if slots <= 0 {
		slots = max(defaultSlots, 1)
	}
	return &host{url: h.URL, client: api.NewClient(u, hc), http: hc, slots: slots, missing: map[string]time.Time{}}, nil
}

// lacks says whether the host is known to miss the model; the caller holds the pool's mutex.
func (h *host) lacks(model string, now time.Time) bool {
	until, ok := h.missing[model]
	if ok && !now.Before(until) {
		delete(h.missing, model)
		return false
	}
	return ok
}

// lighter says whether h is less busy than best for its capacity; ties go to the host that
// has served fewer requests, then to the one listed first.
func lighter(h, best *host) bool {
	if best == nil {
		return true
	}
	a, b := h.inFlight*best.slots, best.inFlight*h.slots
	return a < b || a == b && h.served < best.served
}

// choose picks the host for a request; the caller holds the mutex. It returns nil when every
// usable host is full (wait), and allMissing when no host has the model. When no host is
// healthy, the hosts that are down serve: the retry loop's back-off paces them, as it paces
// the one host of a role that has one.
func (p *pool) choose(hosts []*host, model string, now time.Time) (h *host, allMissing bool) {
	var best, fallback *host
	healthy, candidates := false, false
	for _, x := range hosts {
		if x.lacks(model, now) {
			continue
		}
		candidates = true
		if x.down {
			if len(hosts) > 1 {
				p.probeWhenDue(x, now)
			}
			if x.inFlight < x.slots && lighter(x, fallback) {
				fallback = x
			}
			continue
		}
		healthy = true
		if x.inFlight < x.slots && lighter(x, best) {
			best = x
		}
	}
	switch {
	case !candidates:
		return nil, true
	case healthy:
		return best, false
	default:
		return fallback, false
	}
}

// acquire waits for a slot on the best host of a role for the model.
func (p *pool) acquire(ctx context.Context, hosts []*host, model string) (*host, error) {
	p.mu.Lock()
	h, allMissing := p.choose(hosts, model, time.Now())
	switch {
	case allMissing:
		p.mu.Unlock()
		return nil, errAllMissing
	case h != nil:
		h.inFlight++
		h.served++
		p.mu.Unlock()
		return h, nil
	}
	w := &waiter{hosts: hosts, model: model, got: make(chan *host, 1)}
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()
	select {
	case h := <-w.got:
		if h == nil {
			return nil, errAllMissing
		}
		return h, nil
	case <-ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		if i := slices.Index(p.waiters, w); i >= 0 {
			p.waiters = slices.Delete(p.waiters, i, i+1)
		} else if h := <-w.got; h != nil { // handed a slot while giving up: pass it on
			h.inFlight--
			p.dispatch()
		}
		return nil, ctx.Err()
	}
}

// dispatch gives free slots to the waiters in the order they came; the caller holds the mutex.
func (p *pool) dispatch() {
	now := time.Now()
	for i := 0; i < len(p.waiters); {
		w := p.waiters[i]
		h, allMissing := p.choose(w.hosts, w.model, now)
		if h == nil && !allMissing {
			i++
			continue
		}
		if h != nil {
			h.inFlight++
			h.served++
		}
		w.got <- h
		p.waiters = slices.Delete(p.waiters, i, i+1)
	}
}

// release gives a slot back.
func (p *pool) release(h *host) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.inFlight--
	p.dispatch()
}

// succeeded brings a host back into the rotation.
func (p *pool) succeeded(h *host) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.failures = 0
	if h.down {
		h.down = false
		p.g.log.Info("model host is back", "host", h.url)
		p.dispatch()
	}
}

// failed takes a host out of the rotation until a probe after its back-off finds it again.
func (p *pool) failed(h *host, cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.failures++
	wait := p.g.hostBackoff(h.failures)
	if !h.down {
		p.g.log.Warn("model host taken out of the rotation", "host", h.url, "probe_in", wait, "error", cause)
	}
	h.down, h.downUntil = true, time.Now().Add(wait)
	p.dispatch() // waiters of a role with no healthy host left fall back to this one
}

// lacking notes that a host does not have a model; requests for it go elsewhere for a while.
func (p *pool) lacking(h *host, model string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.missing[model] = time.Now().Add(missingRecheck)
	p.dispatch()
}

// has notes that a host has a model.
func (p *pool) has(h *host, model string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := h.missing[model]; ok {
		delete(h.missing, model)
		p.dispatch()
	}
}

// healthyBesides says whether a role has a healthy host with the model other than h, so that
// a failed request can move there at once instead of backing off.
func (p *pool) healthyBesides(hosts []*host, model string, h *host) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for _, x := range hosts {
		if x != h && !x.down && !x.lacks(model, now) {
			return true
		}
	}
	return false
}

// probeWhenDue starts a probe of a down host once its back-off has passed; the caller holds
// the mutex. A probe asks for the version only, so a host that hangs costs the probe's
// timeout, not a model request's.
func (p *pool) probeWhenDue(h *host, now time.Time) {
	if h.probing || now.Before(h.downUntil) {
		return
	}
	h.probing = true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		_, err := h.client.Version(ctx)
		p.mu.Lock()
		h.probing = false
		p.mu.Unlock()
		if err != nil {
			p.failed(h, err)
			return
		}
		p.succeeded(h)
	}()
}

// usable lists a role's hosts that are up and not known to lack its model.
func (p *pool) usable(hosts []*host, model string) []*host {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	var out []*host
	for _, h := range hosts {
		if !h.down && !h.lacks(model, now) {
			out = append(out, h)
		}
	}
	return out
}

// hostBackoff is how long a failed host stays out before it is probed: the retry back-off
// without jitter, doubling with each failure in a row up to ollama.backoff_max.
func (g *Gateway) hostBackoff(failures int) time.Duration {
	d := g.settings.BackoffBase << min(failures-1, 30)
	if d <= 0 || d > g.settings.BackoffMax {
		d = g.settings.BackoffMax
	}
	return d
}

package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Host is one Ollama server of a role: its base URL and how many requests warren sends it at
// once. Written as the URL, optionally followed by #N ("http://gpu2:11434#4"); without #N the
// host takes ollama.max_concurrency.
type Host struct {
	URL   string
	Slots int // requests in flight at most; 0: ollama.max_concurrency
}

// maxSlots bounds a host's requests in flight, as ollama.max_concurrency is bounded.
const maxSlots = 64

// String writes the host as ParseHost reads it.
func (h Host) String() string {
	if h.Slots > 0 {
		return fmt.Sprintf("%s#%d", h.URL, h.Slots)
	}
	return h.URL
}

// ParseHost reads one entry of models.<role>.hosts: an address as NormalizeHost takes it,
// optionally followed by #N, the requests (1–64) the host takes at once.
func ParseHost(s string) (Host, error) {
	addr, slots, marked := strings.Cut(strings.TrimSpace(s), "#")
	url, err := NormalizeHost(addr)
	if err != nil {
		return Host{}, err
	}
	h := Host{URL: url}
	if marked {
		n, err := strconv.Atoi(strings.TrimSpace(slots))
		if err != nil || n < 1 || n > maxSlots {
			return Host{}, fmt.Errorf("%q: #N must be a whole number from 1 to %d", s, maxSlots)
		}
		h.Slots = n
	}
	return h, nil
}

// ParseHosts reads a list of hosts written as TOML gives an array to the key table or as the
// environment has it: entries separated by commas. An empty text is an empty list; the same
// URL twice is an error.
func ParseHosts(s string) ([]Host, error) {
	var out []Host
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		h, err := ParseHost(part)
		if err != nil {
			return nil, err
		}
		if seen[h.URL] {
			return nil, fmt.Errorf("%s is listed twice", h.URL)
		}
		seen[h.URL] = true
		out = append(out, h)
	}
	return out, nil
}

// hostsKey is models.<role>.hosts. Setting it clears the role's single host, and hostKey's
// set for the role clears the list, so whichever layer comes later decides; one layer that
// sets both is refused (see Config.Set).
func hostsKey(name string, role func(c *Config) *Role) key {
	return key{
		name: name,
		allowed: fmt.Sprintf(`a list of http(s) addresses, each optionally ending in #N for the requests it takes at once (1–%d; `+
			`without it ollama.max_concurrency), such as ["http://gpu1:11434", "http://gpu2:11434#4"]; `+
			`in the environment separated by commas`, maxSlots),
		help: "several Ollama hosts for this role: each request goes to the healthy one least busy for its capacity (empty: host)",
		set: func(c *Config, s string) error {
			hosts, err := ParseHosts(s)
			if err != nil {
				return errNotAllowed{}
			}
			r := role(c)
			r.Hosts = hosts
			if len(hosts) > 0 {
				r.Host = ""
			}
			return nil
		},
		get: func(c *Config) any {
			out := []string{}
			for _, h := range role(c).Hosts {
				out = append(out, h.String())
			}
			return out
		},
		excludes: strings.TrimSuffix(name, "s"),
	}
}

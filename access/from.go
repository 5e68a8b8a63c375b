package access

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// fromPattern is one pattern of a from= list.
//
// sshd matches from= against the client's address and, with UseDNS, its host name. warren
// never looks a name up (it works offline), so the "host name" is the address's text: a
// pattern that is a host name (alice-laptop.example.com) never matches, and a wildcard pattern
// only matches the address text (10.1.*, 2001:db8:*).
type fromPattern struct {
	negated bool
	prefix  netip.Prefix // valid when the pattern is an address or a CIDR block
	glob    string       // otherwise a pattern over the address text, lower case
}

// parseFrom reads a from= pattern list: comma-separated addresses, CIDR blocks and wildcard
// patterns (* and ?), each negated by a leading !.
func parseFrom(list string) ([]fromPattern, error) {
	var out []fromPattern
	for item := range strings.SplitSeq(list, ",") {
		p := fromPattern{}
		text := item
		if strings.HasPrefix(text, "!") {
			p.negated, text = true, text[1:]
		}
		switch {
		case text == "":
			return nil, fmt.Errorf("an empty pattern in %q: write comma-separated addresses, CIDR blocks or wildcards, without spaces", list)
		case strings.Contains(text, "/"):
			prefix, err := netip.ParsePrefix(text)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR block: write e.g. 10.0.0.0/8 or 2001:db8::/32", text)
			}
			if prefix != prefix.Masked() {
				// sshd refuses these too: the host bits say the writer meant something else.
				return nil, fmt.Errorf("%q has bits set past its /%d: write %s", text, prefix.Bits(), prefix.Masked())
			}
			p.prefix = prefix
		default:
			if addr, err := netip.ParseAddr(text); err == nil && addr.Zone() == "" {
				p.prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
			} else {
				p.glob = strings.ToLower(text)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// CheckFrom says what is wrong with a from= pattern list before it is written: besides what
// sshd refuses, a host name is refused, since warren does no DNS lookups and it could never
// match.
func CheckFrom(list string) error {
	patterns, err := parseFrom(list)
	if err != nil {
		return err
	}
	for i, p := range patterns {
		if p.glob == "" {
			continue
		}
		text := strings.Split(list, ",")[i]
		if strings.Trim(p.glob, "0123456789abcdef.:*?") != "" || !strings.ContainsAny(p.glob, "*?") {
			return fmt.Errorf("%q is not an address, a CIDR block or a wildcard over addresses (warren does no DNS lookups, so a host name never matches): write e.g. 10.1.2.3,10.0.0.0/8,192.168.1.*,!10.9.9.9 or 2001:db8::/32", text)
		}
	}
	return nil
}

// matchFrom says whether addr may connect under patterns: some pattern that is not negated
// matches it and no negated one does. When it may not, why says so.
func matchFrom(patterns []fromPattern, raw string, addr netip.Addr) (ok bool, why string) {
	addr = addr.Unmap().WithZone("")
	text := strings.ToLower(addr.String())
	matched := false
	for _, p := range patterns {
		var hit bool
		if p.prefix.IsValid() {
			hit = p.prefix.Contains(addr)
		} else {
			hit = wildcard(p.glob, text)
		}
		if !hit {
			continue
		}
		if p.negated {
			return false, fmt.Sprintf(`%s is excluded by from="%s"`, text, raw)
		}
		matched = true
	}
	if !matched {
		return false, fmt.Sprintf(`%s is not in from="%s"`, text, raw)
	}
	return true, ""
}

// wildcard matches s against a pattern in which * stands for any run of characters and ? for
// any one.
func wildcard(pattern, s string) bool {
	// Greedy with backtracking to the last *: linear enough for addresses.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// remoteAddr is the client's IP address, if it can be told; matchFrom unmaps an IPv4-mapped
// IPv6 address.
func remoteAddr(remote net.Addr) (netip.Addr, bool) {
	if remote == nil {
		return netip.Addr{}, false
	}
	if tcp, ok := remote.(*net.TCPAddr); ok {
		addr, ok := netip.AddrFromSlice(tcp.IP)
		return addr, ok
	}
	host, _, err := net.SplitHostPort(remote.String())
	if err != nil {
		host = remote.String()
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return addr, true
}

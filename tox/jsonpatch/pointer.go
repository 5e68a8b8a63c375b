package jsonpatch

import (
	"fmt"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON Pointer (RFC 6901): its unescaped reference tokens. The empty Pointer
// is the whole document.
type Pointer []string

// ParsePointer parses s. "" is the whole document; otherwise s must start with "/", and "~" may
// only appear as "~0" (a literal "~") or "~1" (a literal "/").
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("JSON Pointer %q must be empty or start with \"/\"", s)
	}
	parts := strings.Split(s[1:], "/")
	out := make(Pointer, len(parts))
	for i, part := range parts {
		if !strings.Contains(part, "~") {
			out[i] = part
			continue
		}
		var b strings.Builder
		for j := 0; j < len(part); j++ {
			c := part[j]
			if c != '~' {
				b.WriteByte(c)
				continue
			}
			if j+1 >= len(part) || (part[j+1] != '0' && part[j+1] != '1') {
				return nil, fmt.Errorf("JSON Pointer %q has a \"~\" not followed by 0 or 1", s)
			}
			if part[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		out[i] = b.String()
	}
	return out, nil
}

// String renders the pointer with escapes.
func (p Pointer) String() string {
	var b strings.Builder
	for _, tok := range p {
		b.WriteByte('/')
		b.WriteString(EscapeToken(tok))
	}
	return b.String()
}

// EscapeToken escapes one reference token ("~" → "~0", "/" → "~1").
func EscapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// isPrefixOf reports whether p is a prefix of (or equal to) q.
func (p Pointer) isPrefixOf(q Pointer) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses an array reference token: "0" or a decimal without leading zeros. "-" is
// reported with dash=true.
func arrayIndex(tok string) (idx int, dash bool, err error) {
	if tok == "-" {
		return 0, true, nil
	}
	if tok == "" {
		return 0, false, fmt.Errorf("an empty string is not an array index")
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false, fmt.Errorf("%q is not an array index (want a number such as 0, 1, 2 or \"-\")", tok)
		}
	}
	if len(tok) > 1 && tok[0] == '0' {
		return 0, false, fmt.Errorf("array index %q has a leading zero", tok)
	}
	if len(tok) > 15 {
		return 0, false, fmt.Errorf("array index %s is too large", tok)
	}
	n, err := strconv.Atoi(tok)
	if err != nil {
		return 0, false, fmt.Errorf("array index %q: %v", tok, err)
	}
	return n, false, nil
}

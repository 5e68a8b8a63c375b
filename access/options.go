package access

import (
	"fmt"
	"strings"
	"time"
)

// adminEnv is the one environment= value warren knows: it marks an admin's key.
const adminEnv = "WARREN_ROLE=admin"

// keyOptions is what a key's authorized_keys options say, read the way sshd reads them.
type keyOptions struct {
	admin   bool
	from    []fromPattern
	fromRaw string    // the from= pattern list, unquoted
	expires time.Time // zero: never
	// refused says why the options refuse the key whatever the address and time; empty when
	// they do not.
	refused string
}

// parseOptions reads the options that gossh.ParseAuthorizedKey split at unquoted commas.
// Every option is either honoured or refuses the key: ignoring one (command=, permitopen=, …)
// would let a key in on terms its writer did not mean.
func parseOptions(opts []string) keyOptions {
	var k keyOptions
	refuse := func(format string, args ...any) {
		if k.refused == "" {
			k.refused = fmt.Sprintf(format, args...)
		}
	}
	pty, ptyOff := true, ""
	for _, opt := range opts {
		name, raw, hasValue := strings.Cut(opt, "=")
		name = strings.ToLower(name) // sshd compares option names ignoring case
		switch name {
		case "restrict", "pty", "no-pty", "no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding", "no-user-rc":
			if hasValue {
				refuse("option %s takes no value (%s): write it as %s", name, opt, name)
				continue
			}
		case "from", "expiry-time", "environment":
			if !hasValue {
				refuse(`option %s needs a quoted value, e.g. %s="…"`, name, name)
				continue
			}
		}
		switch name {
		case "restrict":
			// restrict also turns off the pty unless a later pty turns it back on.
			pty, ptyOff = false, "restrict"
		case "pty":
			pty = true
		case "no-pty":
			pty, ptyOff = false, "no-pty"
		case "no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding", "no-user-rc":
			// warren serve offers none of these, so forbidding them changes nothing.
		case "from":
			value, err := dequote(raw)
			if err != nil {
				refuse("option from=: %v", err)
				continue
			}
			if k.fromRaw != "" {
				refuse("more than one from= option: join the patterns into one, comma-separated")
				continue
			}
			patterns, err := parseFrom(value)
			if err != nil {
				refuse(`option from="%s": %v`, value, err)
				continue
			}
			k.from, k.fromRaw = patterns, value
		case "expiry-time":
			value, err := dequote(raw)
			if err != nil {
				refuse("option expiry-time=: %v", err)
				continue
			}
			t, err := parseExpiryTime(value)
			if err != nil {
				refuse(`option expiry-time="%s": %v`, value, err)
				continue
			}
			// As sshd does, the earliest of several expiry times wins.
			if k.expires.IsZero() || t.Before(k.expires) {
				k.expires = t
			}
		case "environment":
			value, err := dequote(raw)
			if err != nil {
				refuse("option environment=: %v", err)
				continue
			}
			if value != adminEnv {
				refuse(`option environment="%s": warren knows only environment="%s" (an admin's key); remove it`, value, adminEnv)
				continue
			}
			k.admin = true
		default:
			refuse("option %s is not supported by warren serve, which refuses a key rather than ignore one of its options: remove it (supported: from=, expiry-time=, restrict, pty, no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-user-rc, environment=\"%s\")", name, adminEnv)
		}
	}
	if !pty {
		switch ptyOff {
		case "restrict":
			refuse("restrict without pty: warren serve needs a terminal; add ,pty after restrict")
		default:
			refuse("no-pty: warren serve shows the workbench in a terminal and offers nothing else; remove no-pty")
		}
	}
	return k
}

// dequote reads a quoted option value as sshd does: it starts and ends with a double quote, and
// \" stands for a quote inside it.
func dequote(raw string) (string, error) {
	if !strings.HasPrefix(raw, `"`) {
		return "", fmt.Errorf(`the value must be in double quotes (%s)`, raw)
	}
	var b strings.Builder
	for i := 1; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && raw[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			if i != len(raw)-1 {
				return "", fmt.Errorf("unexpected text after the closing quote (%s)", raw)
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("missing closing quote (%s)", raw)
}

// quote writes a value for an option, escaping its quotes as dequote reads them.
func quote(value string) string {
	return `"` + strings.ReplaceAll(value, `"`, `\"`) + `"`
}

// sshd's expiry-time forms: a date, a date and minute, a date and second.
var expiryLayouts = map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}

// parseExpiryTime reads an expiry-time value as sshd does: YYYYMMDD[HHMM[SS]] in local time,
// or in UTC with a Z at the end.
func parseExpiryTime(s string) (time.Time, error) {
	loc := time.Local
	digits := s
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		loc, digits = time.UTC, s[:len(s)-1]
	}
	layout, ok := expiryLayouts[len(digits)]
	if !ok || strings.Trim(digits, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("not a time: write YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS (local time, Z at the end for UTC)")
	}
	t, err := time.ParseInLocation(layout, digits, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("not a valid time (%v): write YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS", err)
	}
	return t, nil
}

// ParseExpiry reads the time after which a key is refused: YYYY-MM-DD, or sshd's
// YYYYMMDD[HHMM[SS]], in local time (a Z at the end means UTC). A date alone means the start of
// that day, as sshd takes it.
func ParseExpiry(s string) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	t, err := parseExpiryTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("expiry %q: write YYYY-MM-DD, YYYYMMDD or YYYYMMDDHHMM (local time)", s)
	}
	return t, nil
}

// FormatExpiry writes t as an expiry-time value in sshd's form, in local time, as short as t
// allows.
func FormatExpiry(t time.Time) string {
	t = t.In(time.Local)
	switch {
	case t.Second() != 0:
		return t.Format(expiryLayouts[14])
	case t.Hour() != 0 || t.Minute() != 0:
		return t.Format(expiryLayouts[12])
	}
	return t.Format(expiryLayouts[8])
}

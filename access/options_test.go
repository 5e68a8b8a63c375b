package access

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// keyLine is key's authorized_keys line for name, after options (none when empty).
func keyLine(key gossh.PublicKey, options, name string) string {
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key))) + " " + name
	if options != "" {
		line = options + " " + line
	}
	return line + "\n"
}

func tcp(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 50022} }

// TestOptions: every option is honoured or refuses its key, and only its key: another
// analyst's plain line in the same file still gets in.
func TestOptions(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	from := tcp("10.1.2.3")
	for _, tc := range []struct {
		name    string
		options string
		remote  net.Addr
		now     time.Time // zero: now above
		refused string    // part of the reason; empty: let in
		admin   bool
	}{
		{name: "no options", remote: from},
		{name: "admin", options: `environment="WARREN_ROLE=admin"`, remote: from, admin: true},
		{name: "option names ignore case", options: `Environment="WARREN_ROLE=admin",NO-PTY`, remote: from, refused: "no-pty", admin: true},
		{name: "another role", options: `environment="WARREN_ROLE=analyst"`, remote: from, refused: `environment="WARREN_ROLE=analyst"`},
		{name: "another variable", options: `environment="PATH=/tmp"`, remote: from, refused: "environment="},
		{name: "escaped quote in environment", options: `environment="WARREN_ROLE=admin\"x"`, remote: from, refused: `WARREN_ROLE=admin"x`},
		{name: "environment unquoted", options: `environment=WARREN_ROLE=admin`, remote: from, refused: "double quotes"},
		{name: "environment without a value", options: `environment`, remote: from, refused: "needs a quoted value"},
		{name: "restrict alone", options: `restrict`, remote: from, refused: "restrict without pty"},
		{name: "restrict then pty", options: `restrict,pty`, remote: from},
		{name: "pty then restrict", options: `pty,restrict`, remote: from, refused: "add ,pty"},
		{name: "pty", options: `pty`, remote: from},
		{name: "no-pty", options: `no-pty`, remote: from, refused: "no-pty"},
		{name: "restrict,pty,no-pty", options: `restrict,pty,no-pty`, remote: from, refused: "no-pty"},
		{name: "harmless no-*", options: `no-port-forwarding,no-agent-forwarding,no-X11-forwarding,no-user-rc`, remote: from},
		{name: "flag with a value", options: `restrict="yes",pty`, remote: from, refused: "takes no value"},
		{name: "command", options: `command="/bin/sh"`, remote: from, refused: "option command is not supported"},
		{name: "command with quotes and commas", options: `command="echo \"a,b\"",pty`, remote: from, refused: "option command is not supported"},
		{name: "permitopen", options: `permitopen="localhost:80"`, remote: from, refused: "option permitopen is not supported"},
		{name: "permitlisten", options: `permitlisten="8080"`, remote: from, refused: "option permitlisten"},
		{name: "tunnel", options: `tunnel="0"`, remote: from, refused: "option tunnel"},
		{name: "principals", options: `principals="alice"`, remote: from, refused: "option principals"},
		{name: "cert-authority", options: `cert-authority`, remote: from, refused: "option cert-authority"},
		{name: "port-forwarding", options: `restrict,pty,port-forwarding`, remote: from, refused: "option port-forwarding"},
		{name: "unknown flag", options: `frobnicate`, remote: from, refused: "option frobnicate"},
		{name: "unknown after a good one", options: `from="10.0.0.0/8",verify-required`, remote: from, refused: "option verify-required"},

		{name: "from IPv4", options: `from="10.1.2.3"`, remote: from},
		{name: "from another IPv4", options: `from="10.9.9.9"`, remote: from, refused: `10.1.2.3 is not in from="10.9.9.9"`},
		{name: "from CIDR", options: `from="10.0.0.0/8"`, remote: from},
		{name: "from CIDR outside", options: `from="10.0.0.0/16"`, remote: from, refused: "is not in"},
		{name: "from list in quotes", options: `from="192.168.1.0/24,10.1.0.0/16"`, remote: from},
		{name: "from wildcard *", options: `from="10.1.2.*"`, remote: from},
		{name: "from wildcard * outside", options: `from="10.1.3.*"`, remote: from, refused: "is not in"},
		{name: "from wildcard ?", options: `from="10.1.2.?"`, remote: from},
		{name: "from wildcard ? is one character", options: `from="10.1.?"`, remote: from, refused: "is not in"},
		{name: "from negated match", options: `from="*,!10.1.2.3"`, remote: from, refused: `10.1.2.3 is excluded`},
		{name: "from negated first", options: `from="!10.1.2.3,10.0.0.0/8"`, remote: from, refused: "excluded"},
		{name: "from negated CIDR", options: `from="*,!10.1.0.0/16"`, remote: from, refused: "excluded"},
		{name: "from negated other", options: `from="10.0.0.0/8,!10.9.9.9"`, remote: from},
		{name: "from only negations", options: `from="!10.9.9.9"`, remote: from, refused: "is not in"},
		{name: "from IPv6", options: `from="2001:db8::7"`, remote: tcp("2001:db8::7")},
		{name: "from IPv6 other", options: `from="2001:db8::7"`, remote: tcp("2001:db8::8"), refused: "2001:db8::8 is not in"},
		{name: "from IPv6 CIDR", options: `from="2001:db8::/32"`, remote: tcp("2001:db8:1::1")},
		{name: "from IPv6 CIDR outside", options: `from="2001:db8::/32"`, remote: tcp("2001:db9::1"), refused: "is not in"},
		{name: "from IPv6 wildcard", options: `from="2001:DB8:*"`, remote: tcp("2001:db8:1::1")},
		{name: "from IPv6 negated", options: `from="::/0,!2001:db8::/32"`, remote: tcp("2001:db8::1"), refused: "excluded"},
		{name: "from IPv4 CIDR, IPv6 client", options: `from="10.0.0.0/8"`, remote: tcp("2001:db8::1"), refused: "is not in"},
		{name: "from IPv4-mapped client", options: `from="10.0.0.0/8"`, remote: tcp("::ffff:10.1.2.3")},
		{name: "from a non-TCP address", options: `from="10.1.2.3"`, remote: fakeAddr("10.1.2.3:4000")},
		{name: "from a host name never matches", options: `from="alice-laptop.example.com"`, remote: from, refused: "is not in"},
		{name: "from a host wildcard never matches", options: `from="*.example.com"`, remote: from, refused: "is not in"},
		{name: "from unknown client", options: `from="10.1.2.3"`, remote: nil, refused: "couldn't tell the client's address"},
		{name: "from host bits set", options: `from="10.1.2.3/8"`, remote: from, refused: "write 10.0.0.0/8"},
		{name: "from bad CIDR", options: `from="10.0.0.0/33"`, remote: from, refused: "not a CIDR block"},
		{name: "from empty", options: `from=""`, remote: from, refused: "empty pattern"},
		{name: "from empty item", options: `from="10.1.2.3,"`, remote: from, refused: "empty pattern"},
		{name: "from bare !", options: `from="!"`, remote: from, refused: "empty pattern"},
		{name: "from twice", options: `from="10.1.2.3",from="10.1.2.3"`, remote: from, refused: "more than one from="},
		{name: "from unquoted", options: `from=10.1.2.3`, remote: from, refused: "double quotes"},

		{name: "expiry future", options: `expiry-time="20991231"`, remote: from},
		{name: "expiry past", options: `expiry-time="20200101"`, remote: from, refused: "expired at 2020-01-01"},
		{name: "expiry UTC minute before", options: `expiry-time="202603011201Z"`, remote: from},
		{name: "expiry UTC exactly", options: `expiry-time="202603011200Z"`, remote: from},
		{name: "expiry UTC second after", options: `expiry-time="20260301115959Z"`, remote: from, refused: "expired"},
		{name: "expiry earliest wins", options: `expiry-time="20991231",expiry-time="20200101"`, remote: from, refused: "expired"},
		{name: "expiry with dashes", options: `expiry-time="2026-03-01"`, remote: from, refused: "not a time"},
		{name: "expiry no such month", options: `expiry-time="20261301"`, remote: from, refused: "not a valid time"},
		{name: "expiry with a space", options: `expiry-time="20261301 1200"`, remote: from, refused: "not a time"},
		{name: "expiry unquoted", options: `expiry-time=20991231`, remote: from, refused: "double quotes"},
		{name: "from and expiry both fine", options: `restrict,pty,from="10.0.0.0/8",expiry-time="20991231"`, remote: from},
		{name: "from fine, expired", options: `from="10.0.0.0/8",expiry-time="20200101"`, remote: from, refused: "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "authorized_keys")
			alice, bob := newKey(t), newKey(t)
			if err := os.WriteFile(path, []byte(keyLine(alice, tc.options, "alice")+keyLine(bob, "", "bob")), 0o600); err != nil {
				t.Fatal(err)
			}
			at := now
			if !tc.now.IsZero() {
				at = tc.now
			}
			list, err := Load(path)
			if err != nil || len(list) != 2 {
				t.Fatalf("an option must not keep the file from loading: %v %v", list, err)
			}
			if list[0].Admin != tc.admin {
				t.Errorf("admin: %v, want %v", list[0].Admin, tc.admin)
			}
			a, err := Authorize(path, alice, tc.remote, at)
			if tc.refused == "" {
				if err != nil || a.Name != "alice" {
					t.Fatalf("refused: %+v %v", a, err)
				}
			} else {
				var r *Refusal
				if !errors.As(err, &r) || !errors.Is(err, ErrKeyRefused) || errors.Is(err, ErrUnknownKey) {
					t.Fatalf("want a refusal of a known key, got %+v %v", a, err)
				}
				if r.Analyst != "alice" || r.Fingerprint != gossh.FingerprintSHA256(alice) || !strings.Contains(r.Reason, tc.refused) {
					t.Fatalf("refusal %+v, want a reason with %q", r, tc.refused)
				}
			}
			if b, err := Authorize(path, bob, tc.remote, at); err != nil || b.Name != "bob" {
				t.Fatalf("alice's options refused bob: %v", err)
			}
		})
	}
}

type fakeAddr string

func (a fakeAddr) Network() string { return "fake" }
func (a fakeAddr) String() string  { return string(a) }

func TestRefusalOfAnUnknownKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	alice, stranger := newKey(t), newKey(t)
	if _, err := Add(path, "alice", alice, false); err != nil {
		t.Fatal(err)
	}
	_, err := Authorize(path, stranger, tcp("192.0.2.7"), time.Now())
	var r *Refusal
	if !errors.Is(err, ErrUnknownKey) || errors.Is(err, ErrKeyRefused) || !errors.As(err, &r) {
		t.Fatalf("want an unknown-key refusal, got %v", err)
	}
	if r.Analyst != "" || r.Fingerprint != gossh.FingerprintSHA256(stranger) || r.Remote != "192.0.2.7:50022" {
		t.Fatalf("refusal %+v", r)
	}
	if msg := err.Error(); !strings.Contains(msg, "unknown key SHA256:") || !strings.Contains(msg, "from 192.0.2.7:50022") {
		t.Fatalf("message %q", msg)
	}
	// A missing file lets nobody in, and says so the same way.
	if _, err := Authorize(filepath.Join(t.TempDir(), "none"), alice, nil, time.Now()); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a missing file: %v", err)
	}
}

func TestLookupRefusesWhatAuthorizeRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	plain, limited, commanded := newKey(t), newKey(t), newKey(t)
	os.WriteFile(path, []byte(keyLine(plain, "", "alice")+keyLine(limited, `from="10.0.0.0/8"`, "bob")+keyLine(commanded, `command="ls"`, "carol")), 0o600)
	if a, ok, err := Lookup(path, plain); !ok || err != nil || a.Name != "alice" {
		t.Fatalf("alice: %+v %v %v", a, ok, err)
	}
	// Lookup can't see the address: a key limited by from= is not let in.
	if a, ok, err := Lookup(path, limited); ok || err != nil || a.Name != "bob" || !strings.Contains(a.Refused, "client's address") {
		t.Fatalf("bob: %+v %v %v", a, ok, err)
	}
	if a, ok, err := Lookup(path, commanded); ok || err != nil || !strings.Contains(a.Refused, "command") {
		t.Fatalf("carol: %+v %v %v", a, ok, err)
	}
}

// TestSameKeyOnTwoLines: as sshd does, a key gets in when any of its lines allows it.
func TestSameKeyOnTwoLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	k := newKey(t)
	os.WriteFile(path, []byte(keyLine(k, `from="10.0.0.0/8"`, "alice")+keyLine(k, `from="192.168.0.0/16"`, "alice")), 0o600)
	for _, ip := range []string{"10.1.1.1", "192.168.3.4"} {
		if _, err := Authorize(path, k, tcp(ip), time.Now()); err != nil {
			t.Errorf("%s: %v", ip, err)
		}
	}
	_, err := Authorize(path, k, tcp("172.16.0.1"), time.Now())
	if err == nil || !strings.Contains(err.Error(), "10.0.0.0/8") || !strings.Contains(err.Error(), "192.168.0.0/16") {
		t.Fatalf("both lines' reasons: %v", err)
	}
}

// TestUntrustedFile: a file or folder that others may write lets no key in, even when it was
// changed after the server started, and says how to fix it.
func TestUntrustedFile(t *testing.T) {
	for _, tc := range []struct {
		name            string
		fileMode, dMode os.FileMode
		want            string // part of every key's refusal; empty: trusted
	}{
		{name: "private", fileMode: 0o600, dMode: 0o700},
		{name: "readable by others", fileMode: 0o644, dMode: 0o755},
		{name: "group-writable file", fileMode: 0o660, dMode: 0o700, want: "(mode 0660)"},
		{name: "world-writable file", fileMode: 0o602, dMode: 0o700, want: "chmod 600"},
		{name: "group-writable folder", fileMode: 0o600, dMode: 0o770, want: "chmod 700"},
		{name: "world-writable folder", fileMode: 0o600, dMode: 0o777, want: "(mode 0777)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "serve")
			path := filepath.Join(dir, "authorized_keys")
			os.Mkdir(dir, 0o700)
			alice, bob := newKey(t), newKey(t)
			os.WriteFile(path, []byte(keyLine(alice, "", "alice")+keyLine(bob, `environment="WARREN_ROLE=admin"`, "bob")), 0o600)
			if err := os.Chmod(path, tc.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dMode); err != nil {
				t.Fatal(err)
			}
			list, err := Load(path)
			if err != nil || len(list) != 2 {
				t.Fatalf("load: %v %v", list, err)
			}
			for _, k := range []gossh.PublicKey{alice, bob} {
				_, err := Authorize(path, k, tcp("127.0.0.1"), time.Now())
				if tc.want == "" {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					continue
				}
				if !errors.Is(err, ErrKeyRefused) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("want a refusal with %q, got %v", tc.want, err)
				}
			}
			if err := CheckModes(dir, path); (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("CheckModes: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCheckModes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "host_ed25519")
	os.WriteFile(file, []byte("x"), 0o600)
	if err := CheckModes(dir, file, filepath.Join(dir, "missing")); err != nil {
		t.Fatalf("a private file and folder, and a missing file: %v", err)
	}
	os.Chmod(file, 0o620)
	err := CheckModes(dir, file)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "0620") || !strings.Contains(err.Error(), "chmod 600 "+file) {
		t.Fatalf("a group-writable file: %v", err)
	}
	os.Chmod(file, 0o600)
	if os.Getuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	if err := os.Chown(file, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	if err := CheckModes(file); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") || !strings.Contains(err.Error(), "chown") {
		t.Fatalf("a file owned by someone else: %v", err)
	}
	path := filepath.Join(dir, "authorized_keys")
	os.WriteFile(path, []byte(keyLine(newKey(t), "", "alice")), 0o600)
	os.Chown(path, 12345, 12345)
	if list, err := Load(path); err != nil || len(list) != 1 || !strings.Contains(list[0].Refused, "owned by uid 12345") {
		t.Fatalf("a key file owned by someone else: %+v %v", list, err)
	}
}

func TestAddWithOptionsRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "serve")
	os.Mkdir(dir, 0o700)
	path := filepath.Join(dir, "authorized_keys")
	key := newKey(t)
	expires := time.Date(2027, 3, 15, 0, 0, 0, 0, time.Local)
	added, err := AddWithOptions(path, "alice", key, KeyOptions{Admin: true, From: "10.0.0.0/8,!10.9.9.9", Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := `environment="WARREN_ROLE=admin",from="10.0.0.0/8,!10.9.9.9",expiry-time="20270315" ssh-ed25519 `; !strings.HasPrefix(string(data), want) {
		t.Fatalf("line %q, want it to start %q", data, want)
	}
	list, err := Load(path)
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	a := list[0]
	if !a.Admin || a.From != "10.0.0.0/8,!10.9.9.9" || !a.Expires.Equal(expires) || a.Refused != "" || added.From != a.From {
		t.Fatalf("read back %+v (added %+v)", a, added)
	}
	before := expires.Add(-time.Hour)
	for _, tc := range []struct {
		ip  string
		at  time.Time
		err string
	}{
		{"10.1.1.1", before, ""},
		{"10.9.9.9", before, "excluded"},
		{"192.168.1.1", before, "is not in"},
		{"10.1.1.1", expires.Add(time.Minute), "expired"},
	} {
		_, err := Authorize(path, key, tcp(tc.ip), tc.at)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s at %v: %v, want %q", tc.ip, tc.at, err, tc.err)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// Patterns that could never match are refused before anything is written.
	for _, bad := range []string{"alice-laptop", "*.example.com", "10.0.0.1/8", "10.0.0.0/8,", "!", `10.0.0.1"`} {
		if _, err := AddWithOptions(path, "bob", newKey(t), KeyOptions{From: bad}); err == nil {
			t.Errorf("from %q was accepted", bad)
		}
	}
	if list, _ := Load(path); len(list) != 1 {
		t.Fatalf("a refused add wrote: %+v", list)
	}
}

func TestCheckFrom(t *testing.T) {
	for _, tc := range []struct {
		list string
		ok   bool
	}{
		{"10.1.2.3", true},
		{"10.0.0.0/8,!10.9.9.9", true},
		{"192.168.1.*", true},
		{"10.1.2.?", true},
		{"2001:db8::/32", true},
		{"2001:db8::1,!2001:db8::2", true},
		{"2001:db8:*", true},
		{"*", true},
		{"alice-laptop.example.com", false},
		{"*.example.com", false},
		{"10.1.2", false}, // not an address, and no wildcard: it never matches
		{"10.0.0.1/8", false},
		{"10.0.0.0/33", false},
		{"10.0.0.0/x", false},
		{"", false},
		{"10.1.2.3,,10.1.2.4", false},
		{"10.1.2.3 10.1.2.4", false},
		{"!", false},
		{"fe80::1%eth0", false},
	} {
		if err := CheckFrom(tc.list); (err == nil) != tc.ok {
			t.Errorf("CheckFrom(%q) = %v, want ok %v", tc.list, err, tc.ok)
		}
	}
}

func TestWildcard(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "10.1.2.3", true},
		{"10.1.*", "10.1.2.3", true},
		{"10.1.*", "10.2.2.3", false},
		{"*.3", "10.1.2.3", true},
		{"*.3", "10.1.2.33", false},
		{"10.?.2.3", "10.1.2.3", true},
		{"10.?.2.3", "10.11.2.3", false},
		{"1*1*1", "10.1.2.1", true},
		{"1*1*1", "10.1.2.2", false},
		{"", "", true},
		{"", "1", false},
		{"**", "", true},
	} {
		if got := wildcard(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time // zero: refused
		file string    // what FormatExpiry writes
	}{
		{"2027-03-15", time.Date(2027, 3, 15, 0, 0, 0, 0, time.Local), "20270315"},
		{"20270315", time.Date(2027, 3, 15, 0, 0, 0, 0, time.Local), "20270315"},
		{"202703151830", time.Date(2027, 3, 15, 18, 30, 0, 0, time.Local), "202703151830"},
		{"20270315183005", time.Date(2027, 3, 15, 18, 30, 5, 0, time.Local), "20270315183005"},
		{"202703151830Z", time.Date(2027, 3, 15, 18, 30, 0, 0, time.UTC), ""},
		{"2027-3-15", time.Time{}, ""},
		{"15.03.2027", time.Time{}, ""},
		{"20271315", time.Time{}, ""},
		{"2027031518", time.Time{}, ""},
		{"tomorrow", time.Time{}, ""},
		{"", time.Time{}, ""},
	} {
		got, err := ParseExpiry(tc.in)
		if tc.want.IsZero() {
			if err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
				t.Errorf("ParseExpiry(%q) = %v, %v; want an error naming the forms", tc.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseExpiry(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.file != "" && FormatExpiry(got) != tc.file {
			t.Errorf("FormatExpiry(%v) = %q, want %q", got, FormatExpiry(got), tc.file)
		}
		if back, err := parseExpiryTime(FormatExpiry(got)); err != nil || !back.Equal(got) {
			t.Errorf("%q does not read back: %v %v", FormatExpiry(got), back, err)
		}
	}
}

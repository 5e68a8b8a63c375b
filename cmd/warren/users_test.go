package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestUsersAddListRemove(t *testing.T) {
	dir := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + filepath.Join(dir, "ws")}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := gossh.NewPublicKey(pub)
	keyFile := filepath.Join(dir, "alice.pub")
	os.WriteFile(keyFile, gossh.MarshalAuthorizedKey(key), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.pub"), []byte("not a key\n"), 0o644)

	if r := warren(t, env, "users", "add", "alice", keyFile, "--admin"); r.code != 0 || !strings.Contains(r.stdout, "Added alice (admin") {
		t.Fatalf("add: %+v", r)
	}
	if r := warren(t, env, "users", "add", "bob", keyFile); r.code != 1 || !strings.Contains(r.stderr, "already in") {
		t.Fatalf("the same key for another name: %+v", r)
	}
	if r := warren(t, env, "users", "add", "bob", filepath.Join(dir, "junk.pub")); r.code != 2 || !strings.Contains(r.stderr, "not an SSH public key") {
		t.Fatalf("a file that is not a key: %+v", r)
	}
	if r := warren(t, env, "users", "add", "bob smith", keyFile); r.code != 2 {
		t.Fatalf("a name with a space: %+v", r)
	}
	r := warren(t, env, "users", "list", "--json")
	var list []struct {
		Name  string `json:"name"`
		Admin bool   `json:"admin"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].Name != "alice" || !list[0].Admin {
		t.Fatalf("list: %+v %v", r, err)
	}
	if r := warren(t, env, "users", "rm", "nobody"); r.code != 1 || !strings.Contains(r.stderr, "users list") {
		t.Fatalf("removing nobody: %+v", r)
	}
	if r := warren(t, env, "users", "rm", "alice"); r.code != 0 || !strings.Contains(r.stdout, "Removed alice (1 key)") {
		t.Fatalf("rm: %+v", r)
	}
	if r := warren(t, env, "users", "list"); r.code != 0 || !strings.Contains(r.stdout, "No analyst may connect yet") {
		t.Fatalf("empty list: %+v", r)
	}
}

// TestUsersAddFlags: --from and --expires are checked before anything is written, written as
// sshd's options, and read back by users list.
func TestUsersAddFlags(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	env := []string{"WARREN_WORKSPACE=" + ws}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	keyFile := func(name string) string {
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		key, _ := gossh.NewPublicKey(pub)
		path := filepath.Join(dir, name+".pub")
		os.WriteFile(path, gossh.MarshalAuthorizedKey(key), 0o644)
		return path
	}
	keys := filepath.Join(ws, "serve", "authorized_keys")

	for _, tc := range []struct {
		name string
		args []string
		want string // part of standard error
	}{
		{"a host name", []string{"--from", "alice-laptop.example.com"}, "does no DNS lookups"},
		{"a host wildcard", []string{"--from", "*.example.com"}, "CIDR block"},
		{"host bits set", []string{"--from", "10.1.2.3/8"}, "write 10.0.0.0/8"},
		{"an empty pattern", []string{"--from", "10.0.0.0/8,"}, "empty pattern"},
		{"an empty list", []string{"--from", ""}, "--from"},
		{"a date in another form", []string{"--expires", "31/12/2099"}, "YYYY-MM-DD, YYYYMMDD or YYYYMMDDHHMM"},
		{"no such day", []string{"--expires", "2099-02-30"}, "YYYY-MM-DD"},
		{"a past date", []string{"--expires", "2020-01-01"}, "already past"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"users", "add", "bob", keyFile("bob")}, tc.args...)
			if r := warren(t, env, args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("want exit 2 and %q: %+v", tc.want, r)
			}
			if _, err := os.Stat(keys); err == nil {
				t.Fatal("a refused add wrote the file")
			}
		})
	}

	r := warren(t, env, "users", "add", "alice", keyFile("alice"), "--admin", "--from", "10.0.0.0/8,!10.9.9.9,2001:db8::/32", "--expires", "2099-12-31")
	if r.code != 0 || !strings.Contains(r.stdout, "Added alice (admin") || !strings.Contains(r.stdout, "from 10.0.0.0/8,!10.9.9.9,2001:db8::/32") || !strings.Contains(r.stdout, "until 2099-12-31 00:00") {
		t.Fatalf("add: %+v", r)
	}
	if r.stderr != "" {
		t.Fatalf("a private file warned: %q", r.stderr)
	}
	if r := warren(t, env, "users", "add", "carol", keyFile("carol"), "--expires", "209912311830"); r.code != 0 {
		t.Fatalf("add carol: %+v", r)
	}
	data, _ := os.ReadFile(keys)
	for _, want := range []string{
		`environment="WARREN_ROLE=admin",from="10.0.0.0/8,!10.9.9.9,2001:db8::/32",expiry-time="20991231" ssh-ed25519 `,
		`expiry-time="209912311830" ssh-ed25519 `,
	} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("the file lacks %q:\n%s", want, data)
		}
	}
	for path, mode := range map[string]os.FileMode{keys: 0o600, filepath.Dir(keys): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), mode, err)
		}
	}

	// Lines written by hand: one with an option warren refuses, one that has expired.
	f, _ := os.OpenFile(keys, os.O_APPEND|os.O_WRONLY, 0)
	dave, _ := os.ReadFile(keyFile("dave"))
	erin, _ := os.ReadFile(keyFile("erin"))
	f.WriteString(`command="/bin/sh" ` + strings.TrimSpace(string(dave)) + " dave\n")
	f.WriteString(`expiry-time="20200101" ` + strings.TrimSpace(string(erin)) + " erin\n")
	f.Close()

	r = warren(t, env, "users", "list", "--json")
	var list []struct {
		Name    string    `json:"name"`
		Admin   bool      `json:"admin"`
		From    string    `json:"from"`
		Expires time.Time `json:"expires"`
		Refused string    `json:"refused"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 4 {
		t.Fatalf("list: %+v %v", r, err)
	}
	want := []struct {
		name, from string
		expires    time.Time
		refused    string
	}{
		{"alice", "10.0.0.0/8,!10.9.9.9,2001:db8::/32", time.Date(2099, 12, 31, 0, 0, 0, 0, time.Local), ""},
		{"carol", "", time.Date(2099, 12, 31, 18, 30, 0, 0, time.Local), ""},
		{"dave", "", time.Time{}, "option command is not supported"},
		{"erin", "", time.Date(2020, 1, 1, 0, 0, 0, 0, time.Local), "expired at 2020-01-01"},
	}
	for i, w := range want {
		got := list[i]
		if got.Name != w.name || got.From != w.from || !got.Expires.Equal(w.expires) || (w.refused == "") != (got.Refused == "") || !strings.Contains(got.Refused, w.refused) {
			t.Errorf("list[%d] = %+v, want %+v", i, got, w)
		}
	}
	if !list[0].Admin || list[1].Admin {
		t.Errorf("roles: %+v", list)
	}

	r = warren(t, env, "users", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 5 || !strings.Contains(lines[0], "OPTIONS") || !strings.Contains(lines[0], "STATUS") {
		t.Fatalf("list: %+v", r)
	}
	for i, want := range []string{
		`from="10.0.0.0/8,!10.9.9.9,2001:db8::/32",expiry-time="20991231"`,
		`expiry-time="209912311830"`,
		"refused: option command is not supported",
		"refused: the key expired",
	} {
		if !strings.Contains(lines[i+1], want) {
			t.Errorf("line %d %q lacks %q", i+1, lines[i+1], want)
		}
	}
	if strings.Contains(lines[1], "WARREN_ROLE") || !strings.HasSuffix(lines[1], "ok") {
		t.Errorf("alice's line: %q", lines[1])
	}

	// A file that others may write: every key is refused, and adding says so.
	os.Chmod(keys, 0o664)
	r = warren(t, env, "users", "list", "--json")
	list = nil
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 4 {
		t.Fatalf("list: %+v %v", r, err)
	}
	for _, a := range list {
		if !strings.Contains(a.Refused, "chmod 600 "+keys) {
			t.Errorf("%s is not refused for the file's mode: %q", a.Name, a.Refused)
		}
	}
	os.Chmod(keys, 0o600)
	os.Chmod(filepath.Dir(keys), 0o770)
	r = warren(t, env, "users", "add", "frank", keyFile("frank"))
	if r.code != 0 || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "chmod 700 "+filepath.Dir(keys)) {
		t.Fatalf("add into a group-writable folder: %+v", r)
	}
}

package access

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

func newKey(t *testing.T) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestAddLookupRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	alice, bob, stranger := newKey(t), newKey(t), newKey(t)
	if _, err := Add(path, "alice", alice, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(path, "bob", bob, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(path, "carol", alice, false); err == nil || !strings.Contains(err.Error(), "already in") {
		t.Fatalf("a key added twice: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", fi.Mode(), err)
	}
	a, ok, err := Lookup(path, alice)
	if err != nil || !ok || a.Name != "alice" || a.Admin {
		t.Fatalf("alice: %+v %v %v", a, ok, err)
	}
	b, ok, _ := Lookup(path, bob)
	if !ok || b.Name != "bob" || !b.Admin {
		t.Fatalf("bob is an admin: %+v", b)
	}
	if _, ok, _ := Lookup(path, stranger); ok {
		t.Fatal("an unknown key was found")
	}
	if n, err := Remove(path, "alice"); err != nil || n != 1 {
		t.Fatalf("remove: %d %v", n, err)
	}
	if _, ok, _ := Lookup(path, alice); ok {
		t.Fatal("a removed key still lets its analyst in")
	}
	if _, ok, _ := Lookup(path, bob); !ok {
		t.Fatal("removing alice removed bob")
	}
}

func TestLoadNamesABadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(newKey(t))))
	os.WriteFile(path, []byte("# team\n"+line+" alice\n"+line+"\n"), 0o600)
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("a key without a name: %v", err)
	}
	os.WriteFile(path, []byte("ssh-ed25519 garbage alice\n"), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a broken key: %v", err)
	}
	if list, err := Load(filepath.Join(t.TempDir(), "none")); err != nil || len(list) != 0 {
		t.Fatalf("a missing file has no analysts: %v %v", list, err)
	}
}

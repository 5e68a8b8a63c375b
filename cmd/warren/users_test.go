package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

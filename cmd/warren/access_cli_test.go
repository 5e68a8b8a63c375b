package main

import (
	"encoding/json"
	"strings"
	"testing"

	"warren/internal/cli"
	"warren/service/audit"
	"warren/service/grants"
)

// The account grants and revokes (outside serve it is the admin); list --json shows the grants
// and the default, and each change is in the audit trail.
func TestAccessGrantListRevoke(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"USER=lead"}
	for _, args := range [][]string{{"bob", "confidential", "none"}, {"alice", "confidential", "READ"}} {
		if r := warren(t, env, append([]string{"--workspace", ws, "access", "grant"}, args...)...); r.code != 0 {
			t.Fatalf("grant %v: %+v", args, r)
		}
	}
	type listing struct {
		Default grants.Level   `json:"default"`
		Grants  []grants.Grant `json:"grants"`
	}
	list := func(args ...string) listing {
		t.Helper()
		r := warren(t, env, append([]string{"--workspace", ws, "access", "list", "--json"}, args...)...)
		var l listing
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &l) != nil {
			t.Fatalf("list --json %v: %+v", args, r)
		}
		return l
	}
	l := list()
	if l.Default != grants.Write || len(l.Grants) != 2 || l.Grants[0].Analyst != "alice" || l.Grants[0].Level != grants.Read ||
		l.Grants[1].Level != grants.None || l.Grants[1].GrantedBy != "lead" || l.Grants[1].At.IsZero() {
		t.Fatalf("the list: %+v", l)
	}
	if l := list("--analyst", "bob"); len(l.Grants) != 1 || l.Grants[0].Analyst != "bob" {
		t.Errorf("--analyst bob: %+v", l)
	}
	r := warren(t, env, "--workspace", ws, "access", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "serve.default_access = write") || !strings.Contains(r.stdout, "GRANTED BY") || !strings.Contains(r.stdout, "confidential") {
		t.Errorf("the table: %+v", r)
	}

	r = warren(t, env, "--workspace", ws, "--json", "access", "revoke", "bob", "confidential")
	var rev struct {
		Revoked bool         `json:"revoked"`
		Level   grants.Level `json:"level"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rev) != nil || !rev.Revoked || rev.Level != grants.Write {
		t.Errorf("revoke: %+v", r)
	}
	if l := list(); len(l.Grants) != 1 {
		t.Errorf("after the revocation: %+v", l)
	}

	for _, args := range [][]string{
		{"grant", "bob", "confidential", "admin"},
		{"grant", "bob", "Confidential Files", "read"},
		{"grant", "bob smith", "confidential", "read"},
		{"grant", "bob", "confidential"},
		{"revoke", "bob"},
	} {
		if r := warren(t, env, append([]string{"--workspace", ws, "access"}, args...)...); r.code != cli.ExitUsage {
			t.Errorf("access %q: want a usage error, got %+v", args, r)
		}
	}

	r = warren(t, nil, "--workspace", ws, "audit", "--json")
	var es []audit.Entry
	if err := json.Unmarshal([]byte(r.stdout), &es); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, r.stdout)
	}
	var changes []string
	for _, e := range es {
		if e.Action == audit.ActionAccess {
			changes = append(changes, e.Analyst+" "+e.Target+" "+e.Outcome)
		}
	}
	if strings.Join(changes, "; ") != "lead bob/confidential ok; lead alice/confidential ok; lead bob/confidential ok" {
		t.Errorf("access changes in the trail: %q", changes)
	}
}

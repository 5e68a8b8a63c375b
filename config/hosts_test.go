package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRoleHostsFromFileAndEnvironment(t *testing.T) {
	file := writeFile(t, `
[ollama]
max_concurrency = 3
[models.chat]
hosts = ["gpu1", "http://gpu2:11434#4"]
[models.embed]
host = "http://embed-box:11434"
`)
	cases := []struct {
		name   string
		env    []string
		role   RoleName
		want   []Host
		source string
	}{
		{"file list, #N sets a host's slots", nil, RoleChat,
			[]Host{{URL: "http://gpu1:11434"}, {URL: "http://gpu2:11434", Slots: 4}}, file},
		{"fast follows the chat hosts", nil, RoleFast,
			[]Host{{URL: "http://gpu1:11434"}, {URL: "http://gpu2:11434", Slots: 4}}, ""},
		{"one host is a list of one", nil, RoleEmbed, []Host{{URL: "http://embed-box:11434"}}, ""},
		{"env list replaces the file's", []string{"WARREN_MODELS_CHAT_HOSTS=http://a:1#2, b:2"}, RoleChat,
			[]Host{{URL: "http://a:1", Slots: 2}, {URL: "http://b:2"}}, "env WARREN_MODELS_CHAT_HOSTS"},
		{"env host replaces the file's list", []string{"WARREN_MODELS_CHAT_HOST=solo"}, RoleChat,
			[]Host{{URL: "http://solo:11434"}}, "env WARREN_MODELS_CHAT_HOST"},
		{"env list replaces the file's host", []string{"WARREN_MODELS_EMBED_HOSTS=e1,e2#1"}, RoleEmbed,
			[]Host{{URL: "http://e1:11434"}, {URL: "http://e2:11434", Slots: 1}}, "env WARREN_MODELS_EMBED_HOSTS"},
		{"OLLAMA_HOST does not touch a role's list", []string{"OLLAMA_HOST=elsewhere"}, RoleChat,
			[]Host{{URL: "http://gpu1:11434"}, {URL: "http://gpu2:11434", Slots: 4}}, file},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(Sources{File: file, Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			r := c.Resolved(tc.role)
			if !reflect.DeepEqual(r.Hosts, tc.want) || r.Host != tc.want[0].URL {
				t.Errorf("hosts %+v (host %q), want %+v", r.Hosts, r.Host, tc.want)
			}
			if tc.source != "" && c.Sources["models."+string(tc.role)+".hosts"] != tc.source {
				t.Errorf("source %q, want %q", c.Sources["models."+string(tc.role)+".hosts"], tc.source)
			}
			if c.Ollama.MaxConcurrency != 3 {
				t.Errorf("max_concurrency %d", c.Ollama.MaxConcurrency)
			}
		})
	}
}

func TestRoleWithoutHostsUsesOllamaHost(t *testing.T) {
	c, err := Load(Sources{Env: []string{"OLLAMA_HOST=shared:9"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range Roles {
		if r := c.Resolved(role); len(r.Hosts) != 1 || r.Hosts[0] != (Host{URL: "http://shared:9"}) || r.Host != "http://shared:9" {
			t.Errorf("%s: %+v", role, r)
		}
	}
}

func TestInvalidHostsAreRefused(t *testing.T) {
	cases := []struct {
		name, text, key, value string
		env                    bool
	}{
		{"slots of zero", `[models.chat]` + "\n" + `hosts = ["a#0"]`, "models.chat.hosts", "a#0", false},
		{"slots above 64", `[models.chat]` + "\n" + `hosts = ["a#65"]`, "models.chat.hosts", "a#65", false},
		{"slots not a number", "WARREN_MODELS_FAST_HOSTS=a#four", "models.fast.hosts", "a#four", true},
		{"not http", `[models.embed]` + "\n" + `hosts = ["ftp://x"]`, "models.embed.hosts", "ftp://x", false},
		{"the same host twice", "WARREN_MODELS_CHAT_HOSTS=a,http://a:11434#2", "models.chat.hosts", "a,http://a:11434#2", true},
		{"a table is not a host", `[models.chat]` + "\n" + `hosts = [{url = "a", slots = 2}]`, "models.chat.hosts", "", false},
		{"host and hosts in one file", `[models.chat]` + "\n" + `host = "a"` + "\n" + `hosts = ["b"]`, "models.chat.hosts", "b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := Sources{}
			if tc.env {
				src.Env = []string{tc.text}
			} else {
				src.File = writeFile(t, tc.text)
			}
			_, err := Load(src)
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("want a ValueError, got %v", err)
			}
			if ve.Key != tc.key || tc.value != "" && ve.Value != tc.value || !strings.Contains(err.Error(), "allowed is") {
				t.Errorf("got %q (key %s value %q)", err, ve.Key, ve.Value)
			}
		})
	}
}

func TestHostsInTheDefaultFileAndEntries(t *testing.T) {
	if !strings.Contains(DefaultFile(), "# hosts = []  # several Ollama hosts") {
		t.Errorf("the default file should show hosts as an empty list:\n%s", DefaultFile())
	}
	c, err := Load(Sources{Env: []string{"WARREN_MODELS_CHAT_HOSTS=a,b#3"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Entries() {
		if e.Key == "models.chat.hosts" {
			if !reflect.DeepEqual(e.Value, []string{"http://a:11434", "http://b:11434#3"}) || !strings.Contains(e.Allowed, "#N") {
				t.Errorf("entry %+v", e)
			}
			return
		}
	}
	t.Error("no models.chat.hosts entry")
}

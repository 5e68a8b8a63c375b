package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestIngestRootsDefaultAndLayers(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		env   []string
		want  []string
		about string // where the value came from
	}{
		{name: "default is the workspace's inbox", want: []string{"inbox"}, about: "default"},
		{name: "file list", file: "[serve]\ningest_roots = [\"inbox\", \"/srv/shared/sds\"]\n",
			want: []string{"inbox", "/srv/shared/sds"}},
		{name: "empty list turns ingest off", file: "[serve]\ningest_roots = []\n", want: []string{}},
		{name: "environment, comma-separated", env: []string{"WARREN_SERVE_INGEST_ROOTS=drop, ../shared/sds"},
			want: []string{"drop", "../shared/sds"}, about: "env WARREN_SERVE_INGEST_ROOTS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := Sources{Env: tc.env}
			if tc.file != "" {
				src.File = writeFile(t, tc.file)
			}
			c, err := Load(src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Serve.IngestRoots, tc.want) {
				t.Errorf("roots %q, want %q", c.Serve.IngestRoots, tc.want)
			}
			about := tc.about
			if about == "" {
				about = src.File
			}
			if c.Sources["serve.ingest_roots"] != about {
				t.Errorf("source %q, want %q", c.Sources["serve.ingest_roots"], about)
			}
		})
	}
	if !strings.Contains(DefaultFile(), `# ingest_roots = ["inbox"]`) {
		t.Errorf("warren.toml should list the default:\n%s", DefaultFile())
	}
}

func TestIngestRootsRefused(t *testing.T) {
	cases := []struct{ name, value string }{
		{"two folders with one name", "inbox,/srv/other/inbox"},
		{"the file system's root", "/"},
		{"the workspace itself", "."},
		{"its parent", ".."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(Sources{Env: []string{"WARREN_SERVE_INGEST_ROOTS=" + tc.value}})
			var bad *ValueError
			if !errors.As(err, &bad) || bad.Key != "serve.ingest_roots" || !strings.Contains(bad.Allowed, "last names differ") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

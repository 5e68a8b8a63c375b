package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ParseIngestRoots reads serve.ingest_roots as TOML gives an array to the key table or as the
// environment has it: folders separated by commas. Each must end in a name (not "/", "." or
// ".."), and no two may end in the same one: that name is how analysts tell them apart.
func ParseIngestRoots(s string) ([]string, error) {
	roots := []string{}
	seen := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name := filepath.Base(filepath.Clean(part))
		if name == "." || name == ".." || name == string(filepath.Separator) {
			return nil, fmt.Errorf("%q: a folder with a name of its own is needed, e.g. inbox", part)
		}
		if other, ok := seen[name]; ok {
			return nil, fmt.Errorf("%q and %q both end in %s: rename one", other, part, name)
		}
		seen[name] = part
		roots = append(roots, part)
	}
	return roots, nil
}

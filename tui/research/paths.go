package research

import (
	"os"
	"path/filepath"
	"strings"
)

// exportShort names an exported report from the workspace's exports folder on
// ("exports/<run>.md"): whole at 80 columns wherever the workspace is, and no server path for
// an analyst of warren serve. Elsewhere it is homeShort.
func exportShort(path string) string {
	sep := string(filepath.Separator)
	if i := strings.LastIndex(path, sep+"exports"+sep); i >= 0 {
		return path[i+1:]
	}
	return homeShort(path)
}

// homeShort writes a path under the home folder as ~/…, so that it fits the status line.
func homeShort(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return path
}

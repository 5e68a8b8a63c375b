package research

import (
	"os"
	"path/filepath"
	"strings"
)

// homeShort writes a path under the home folder as ~/…, so that an exported report's path
// fits the status line at 80 columns whole.
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

package research

import (
	"os"
	"path/filepath"
	"testing"
)

// An exported report is named from the exports folder on, whole at 80 columns wherever the
// workspace is; other paths under the home folder start with ~.
func TestExportShort(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	for _, tc := range []struct{ path, want string }{
		{"/tmp/tmp.d3U2akQbc8/ws/exports/20261129-015515-e69316-which-purge-cycles.md", "exports/20261129-015515-e69316-which-purge-cycles.md"},
		{"/srv/warren/exports/a/exports/r.md", "exports/r.md"},
		{filepath.Join(home, "notes", "r.md"), "~/notes/r.md"},
		{"/srv/reports/r.md", "/srv/reports/r.md"},
	} {
		if got := exportShort(tc.path); got != tc.want {
			t.Errorf("exportShort(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

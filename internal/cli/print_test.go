package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"warren/internal/termsafe"
)

func TestRowsKeepAHostileCellOnItsRow(t *testing.T) {
	var out bytes.Buffer
	rows := []string{"evil\x1b[31m\nname.md\tgeneral\t1", "plain.md\tgeneral\t2"}
	if err := Rows(&out, "DOCUMENT\tCOLLECTION\tCHUNKS", len(rows), func(i int) string { return rows[i] }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || strings.ContainsRune(out.String(), 0x1b) {
		t.Fatalf("want a header and two rows without escapes:\n%q", out.String())
	}
	if !strings.HasPrefix(lines[1], "evil⏎name.md") || !strings.Contains(lines[1], "general") {
		t.Errorf("the hostile row: %q", lines[1])
	}
	if got := Cells("a\tb"); got != "a\tb" {
		t.Errorf("Cells changed a clean row: %q", got)
	}
}

func TestFileLooksThroughTheSanitisingWriter(t *testing.T) {
	if f, ok := File(termsafe.NewWriter(os.Stderr)); !ok || f != os.Stderr {
		t.Errorf("File = %v, %v", f, ok)
	}
	if _, ok := File(termsafe.NewWriter(&bytes.Buffer{})); ok {
		t.Error("a buffer is no file")
	}
}

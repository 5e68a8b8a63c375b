package load

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16File writes text as UTF-16 in the given byte order, with its byte-order mark.
func utf16File(t *testing.T, name, text string, order binary.ByteOrder) string {
	t.Helper()
	units := utf16.Encode([]rune("\uFEFF" + text))
	data := make([]byte, 2*len(units))
	for i, u := range units {
		order.PutUint16(data[2*i:], u)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Text files Windows tools write as UTF-16 (with a byte-order mark) are read, not skipped as
// binary.
func TestLoadReadsUTF16WithBOM(t *testing.T) {
	const text = "1. Scope\n\nSilan entzündet sich an der Luft (𝛼 ≥ 1).\n\n2. Handling\n\nKeep it dry.\n"
	for _, tc := range []struct {
		name  string
		order binary.ByteOrder
	}{{"le.txt", binary.LittleEndian}, {"be.txt", binary.BigEndian}, {"le.md", binary.LittleEndian}} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Load(utf16File(t, tc.name, text, tc.order), LoadOptions{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var all strings.Builder
			if err := doc.EachSection(func(s Section) error {
				all.WriteString(s.Text + "\n")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got := all.String()
			for _, want := range []string{"Silan entzündet sich an der Luft (𝛼 ≥ 1).", "Keep it dry."} {
				if !strings.Contains(got, want) {
					t.Errorf("the text read lacks %q; it is %q", want, got)
				}
			}
			if strings.ContainsRune(got, 0) || strings.ContainsRune(got, '\uFEFF') {
				t.Errorf("NULs or the byte-order mark were kept: %q", got)
			}
			if doc.Hash == "" {
				t.Error("no hash")
			}
		})
	}
}

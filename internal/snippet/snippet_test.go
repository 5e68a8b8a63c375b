package snippet

import "testing"

func TestCut(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want string
	}{
		{"short  text\n", 20, "short text"},
		{"the purge before disconnect", 15, "the purge …"},
		{"nitrogen-purge-sequence", 10, "nitrogen-p …"}, // no word boundary in the second half
		{"", 5, ""},
		{"Prüfgasflasche", 3, "Pr …"}, // byte 3 is inside the ü
	}
	for _, tt := range tests {
		if got := Cut(tt.text, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

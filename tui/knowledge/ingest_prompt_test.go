package knowledge

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"warren/tui/component"
	"warren/tui/styles"
)

// rootsFixture is a knowledge desk with the ingest folders a server allows; the prompt asks
// it for nothing else.
type rootsFixture struct {
	Service
	roots []string
}

func (f rootsFixture) IngestRoots() []string { return f.roots }

// The ingest prompt says what may be typed: anything locally, a path in the administrator's
// folders when served; with none, ingest is off and says so.
func TestIngestPromptNamesTheFoldersAllowed(t *testing.T) {
	cases := []struct {
		name        string
		served      bool
		roots       []string
		placeholder string // "" when no prompt opens
		status      string
	}{
		{"local", false, nil, "path to a file or folder", ""},
		{"served, one folder", true, []string{"inbox"}, "a file or folder in inbox/, e.g. inbox/report.pdf", ""},
		{"served, two folders", true, []string{"inbox", "sds"}, "a file or folder in inbox/ or sds/, e.g. inbox/report.pdf", ""},
		{"served, none", true, []string{}, "", "ingest is off on this server"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := New(rootsFixture{roots: tc.roots}, styles.New(true))
			k.served = tc.served
			cmd := k.key(tea.KeyPressMsg{Code: 'i', Text: "i"})
			if tc.placeholder != "" {
				if k.inputFor != "ingest" || !strings.HasPrefix(k.input.Placeholder, tc.placeholder) {
					t.Errorf("prompt for %q with placeholder %q, want %q", k.inputFor, k.input.Placeholder, tc.placeholder)
				}
				return
			}
			if k.inputFor != "" || cmd == nil {
				t.Fatalf("no prompt should open: %q", k.inputFor)
			}
			if msg, ok := cmd().(component.StatusMsg); !ok || !msg.Err || !strings.Contains(msg.Text, tc.status) {
				t.Errorf("status %+v, want %q", msg, tc.status)
			}
		})
	}
}

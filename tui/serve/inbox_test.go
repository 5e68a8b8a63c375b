package serve

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"warren/service"
)

// warren serve watches its inbox: a file copied into inbox/<collection>/ while it runs is
// ingested without anyone asking, the analyst's workbench says so on one line, and it is
// searchable there.
func TestAFileDroppedInTheInboxReachesTheWorkbench(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0", Inbox: service.InboxOptions{Poll: 20 * time.Millisecond, Settle: 100 * time.Millisecond}})
	alice := tm.connect(t, "alice", 120, 36)
	alice.waitFor("warren alice")
	alice.send("\t") // the Knowledge tab
	alice.waitFor("Documents")

	path := filepath.Join(tm.svc.WorkspaceDir(), "inbox", "sds", "wallaby.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# Wallaby purge\n\nThe wallabine purge runs weekly.\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("inbox: ingested inbox/sds/wallaby.md into sds")
	alice.send("/")
	alice.send("wallabine\r")
	alice.waitFor("Wallaby purge")
}

package serve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/retrieval"
	"warren/service"
)

// recorder keeps every byte the ssh client receives, as the analyst's terminal gets them.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

func (r *recorder) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// TestAHostileDocumentCannotDriveARemoteTerminal: a document that tries to write the
// analyst's clipboard (OSC 52), to colour its text, and both again with 8-bit C1 introducers,
// searched and opened in a served workbench, reaches the ssh client as plain text: none of its
// sequences is among the bytes sent.
func TestAHostileDocumentCannotDriveARemoteTerminal(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	ctx := context.Background()
	dir := t.TempDir()
	name := "quokka\x1b[35m.md"
	text := "# Quokka alarm\n\nQuokkafrob alarm \x1b[31mRED ALERT\x1b[0m purge the line \x1b]52;c;aGVsbG8=\x07 then " +
		"\u009b31mC1 red\u009b0m and \u009d52;c;aGVsbG8=\u009c done.\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server's own view ingests it: served analysts may ingest only from their inbox.
	if rep, err := tm.svc.Knowledge().Ingest(ctx, nil, service.IngestOptions{Paths: []string{filepath.Join(dir, name)}, Collection: "general"}); err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	res, err := tm.svc.Knowledge().Search(ctx, retrieval.Request{Query: "quokkafrob", K: 3, Mode: retrieval.Lexical})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Text, "\x1b]52;c;") || !strings.Contains(res[0].Text, "\u009b31m") {
		t.Fatalf("the stored passage must keep its sequences for this test to mean anything: %+v %v", res, err)
	}

	rec := &recorder{}
	alice := tm.connectWith(t, "alice", 120, 36, rec) // the bytes sent are recorded as well as drawn
	alice.waitFor("warren alice")
	alice.send("\t") // the Knowledge tab
	alice.waitFor("Documents")
	alice.send("/")
	alice.send("quokkafrob alarm\r")
	alice.waitFor("Results for")
	alice.send("\r") // the first result's passage
	alice.waitFor("Quokkafrob alarm RED ALERT")
	time.Sleep(200 * time.Millisecond) // the rest of the frame

	raw := rec.bytes()
	for _, bad := range []string{"\x1b]52", "\xc2\x9b", "\xc2\x9d", "\xc2\x9c", "\x9b31m", "\x1b[31mRED", "\x1b[35m.md", "aGVsbG8="} {
		if bytes.Contains(raw, []byte(bad)) {
			i := bytes.Index(raw, []byte(bad))
			t.Errorf("the client received %q: …%q…", bad, raw[max(i-40, 0):min(i+40, len(raw))])
		}
	}
	// No colour of any form right before the document's coloured words: they look like the
	// words around them.
	if m := regexp.MustCompile("\x1b\\[[0-9;:]*m(RED ALERT|C1 red)").Find(raw); m != nil {
		t.Errorf("the document's words arrive coloured: %q", m)
	}
	// The words stay, without the sequences' remains.
	screen := alice.text()
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "RED ALERT purge the line then C1 red and done.") || !strings.Contains(screen, "quokka.md") {
		t.Errorf("the passage is not shown as its plain text:\n%s", screen)
	}
}

// A line written after the workbench ended (the farewell) breaks at spaces within the
// terminal's width, never inside a word.
func TestFarewellWrapsAtWords(t *testing.T) {
	bye := "warren serve stopped. Your jobs were checkpointed and resume when it starts again; nothing you approved is lost."
	got := wrapWords(bye, 80)
	lines := strings.Split(got, "\r\n")
	if len(lines) < 2 {
		t.Fatalf("not wrapped at 80 columns: %q", got)
	}
	for _, l := range lines {
		if len(l) >= 80 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if strings.Join(lines, " ") != bye {
		t.Errorf("words were broken or lost: %q", got)
	}
}

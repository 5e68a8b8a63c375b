package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/kb/kbcopy"
	"warren/kb/weaviatekb"
	"warren/service"
)

// warrenBinary is the binary the script built, or one built for this test.
func warrenBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("WARREN_E2E_WARREN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "warren")
	if out, err := exec.Command("go", "build", "-o", bin, "warren/cmd/warren").CombinedOutput(); err != nil {
		t.Fatalf("couldn't build warren: %v\n%s", err, out)
	}
	return bin
}

type migrateRun struct {
	code           int
	stdout, stderr string
}

func (r migrateRun) report(t *testing.T) service.MigrateReport {
	t.Helper()
	var rep service.MigrateReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Report == nil {
		t.Fatalf("warren kb migrate --json printed no report (%v), exit %d:\n%s\n%s", err, r.code, r.stdout, r.stderr)
	}
	return rep
}

// TestMigrateKilledAndRunAgain kills `warren kb migrate --to weaviate` (SIGKILL) once part
// of the knowledge base is copied; the next run goes on from the checkpoint, and it and a
// third run end with the same counts and checksum as the source, which the test also reads
// itself on both sides. Then the knowledge base goes back into a new workspace with
// `--to embedded`, with the same checksum again.
func TestMigrateKilledAndRunAgain(t *testing.T) {
	required(t, "WARREN_WEAVIATE_URL", "WARREN_WEAVIATE_GRPC")
	url, grpc := os.Getenv("WARREN_WEAVIATE_URL"), os.Getenv("WARREN_WEAVIATE_GRPC")
	ctx := context.Background()
	server, err := weaviatekb.Open(ctx, weaviatekb.Options{URL: url, GRPC: grpc})
	if err != nil {
		t.Fatal(err)
	}
	// kb migrate writes under the default class prefix: this test owns the server's.
	if err := server.DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.DropAll(context.Background()) })

	bin := warrenBinary(t)
	ws := filepath.Join(t.TempDir(), "ws")
	env := append(os.Environ(), "WARREN_WORKSPACE="+ws, "OLLAMA_HOST=127.0.0.1:1",
		config.EnvName("kb.weaviate.url")+"="+url, config.EnvName("kb.weaviate.grpc")+"="+grpc)
	run := func(args ...string) migrateRun {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return migrateRun{code, out.String(), errOut.String()}
	}
	if r := run("init", ws); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	const docs = 240
	corpus := filepath.Join(filepath.Dir(ws), "procedures")
	writeCorpus(t, corpus, "m", docs)
	if r := run("ingest", corpus, "--collection", "procedures", "--embedder", "builtin"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}

	// The first run, killed once a fifth of the documents are recorded as copied.
	db, err := kb.OpenDB(filepath.Join(ws, kb.DBFileName), schema.All())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	copiedSoFar := func() int {
		var n int
		db.QueryRow(`SELECT count(*) FROM kb_copies`).Scan(&n)
		return n
	}
	cmd := exec.Command(bin, "kb", "migrate", "--to", "weaviate", "--json")
	cmd.Env = env
	var firstOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &firstOut, &firstOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for copiedSoFar() < docs/5 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the migrate copied %d documents in 2 minutes:\n%s", copiedSoFar(), firstOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !st.Signaled() {
		t.Fatalf("the first migrate ended before the kill (%v): make the corpus larger\n%s", err, firstOut.String())
	}
	killedAt := copiedSoFar()
	if killedAt >= docs {
		t.Fatalf("all %d documents were copied before the kill landed", docs)
	}
	t.Logf("warren kb migrate killed with %d of %d documents copied", killedAt, docs)

	second := run("kb", "migrate", "--to", "weaviate", "--json")
	if second.code != 0 {
		t.Fatalf("the migrate after the kill: %+v", second)
	}
	rep2 := second.report(t)
	if !rep2.Verified || rep2.Resumed < killedAt || rep2.Resumed+rep2.Copied != docs || rep2.Source != rep2.Destination ||
		rep2.Source.Documents != docs {
		t.Fatalf("the migrate after the kill: %+v", rep2.Report)
	}
	third := run("kb", "migrate", "--to", "weaviate", "--json")
	rep3 := third.report(t)
	if third.code != 0 || rep3.Copied != 0 || rep3.Resumed != docs || rep3.Destination != rep2.Destination {
		t.Fatalf("a third migrate: %+v, want nothing copied and the same counts and checksum as %+v", rep3.Report, rep2.Destination)
	}
	t.Logf("after the kill: %d resumed, %d copied; %d documents, %d chunks, checksum %s on both sides",
		rep2.Resumed, rep2.Copied, rep2.Destination.Documents, rep2.Destination.Chunks, rep2.Destination.Sum)

	// The test's own reading of both sides.
	wsOpen, err := kb.Open(ws, config.Sources{}, schema.All())
	if err != nil {
		t.Fatal(err)
	}
	defer wsOpen.Close()
	local, errL := kbcopy.Checksum(ctx, kb.NewStore(wsOpen))
	remote, errR := kbcopy.Checksum(ctx, server)
	if errL != nil || errR != nil || local != rep2.Source || remote != rep2.Destination {
		t.Fatalf("read by the test: embedded %+v (%v), Weaviate %+v (%v); the report said %+v", local, errL, remote, errR, rep2.Destination)
	}

	// And back, into a workspace of its own.
	back := filepath.Join(t.TempDir(), "back")
	if r := run("init", back); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	backRun := run("--workspace", back, "kb", "migrate", "--to", "embedded", "--json")
	repBack := backRun.report(t)
	if backRun.code != 0 || !repBack.Verified || repBack.Copied != docs || repBack.Destination != local {
		t.Fatalf("migrate --to embedded: %+v, want the checksum %+v", repBack.Report, local)
	}
}

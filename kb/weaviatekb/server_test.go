package weaviatekb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"
)

// The tests of this package run against a real Weaviate server: WARREN_WEAVIATE_URL (and
// WARREN_WEAVIATE_GRPC for batch writes over gRPC) name it, as scripts/e2e-weaviate.sh (make
// e2e-weaviate) sets them. Without them the tests skip, except under the script
// (WARREN_E2E_WEAVIATE=1), where a missing server is a broken run and fails.

// testServer returns the options of the test server, or skips.
func testServer(t testing.TB) Options {
	t.Helper()
	url := os.Getenv("WARREN_WEAVIATE_URL")
	if url == "" {
		if os.Getenv("WARREN_E2E_WEAVIATE") == "1" {
			t.Fatal("WARREN_WEAVIATE_URL is not set: scripts/e2e-weaviate.sh sets it when its server started")
		}
		t.Skip("WARREN_WEAVIATE_URL is not set: make e2e-weaviate runs this test against a real Weaviate server")
	}
	return Options{URL: url, GRPC: os.Getenv("WARREN_WEAVIATE_GRPC")}
}

// openTestBackend opens a knowledge base of its own on the test server (classes under a
// random prefix) and drops it when the test ends.
func openTestBackend(t testing.TB, opts Options) *Backend {
	t.Helper()
	var suffix [4]byte
	rand.Read(suffix[:])
	opts.ClassPrefix = "WarrenTest" + hex.EncodeToString(suffix[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.DropAll(context.Background()); err != nil {
			t.Errorf("couldn't drop the test classes: %v", err)
		}
		b.Close()
	})
	return b
}

// openAgain opens the knowledge base of b a second time, as another process would, with
// options changed by change (nil: as b's).
func openAgain(t testing.TB, b *Backend, change func(*Options)) *Backend {
	t.Helper()
	opts := b.opts
	if change != nil {
		change(&opts)
	}
	again, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}

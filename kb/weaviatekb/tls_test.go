package weaviatekb

import (
	"context"
	"strings"
	"testing"
)

// gRPC beside an https server is refused before anything is sent: the client library's gRPC
// connection would accept any certificate and hand it the API key.
func TestGRPCBesideAnHTTPSServerIsRefused(t *testing.T) {
	b, err := Open(context.Background(), Options{URL: "https://weaviate.invalid:8443", GRPC: "weaviate.invalid:50051", APIKey: "secret"})
	if err == nil {
		b.Close()
		t.Fatal("Open accepted kb.weaviate.grpc beside an https server")
	}
	if !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "leave kb.weaviate.grpc empty") {
		t.Errorf("the error should say why and what to do: %v", err)
	}
}

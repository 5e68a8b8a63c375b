#!/usr/bin/env bash
# Drives `warren serve` with the real OpenSSH client in tmux, the way an analyst reaches the
# box: add her key with `warren users add`, connect, start a run, drop the connection (the ssh
# client killed, not a quit), come back to the run that went on, answer and approve it, drop
# again while it works, and come back to its report (and a resize passed on by the client).
# Then the refusals with the real client (exec, an unknown key, passwords, keyboard-interactive,
# no terminal), and SIGTERM while she is connected and a run of hers works: she is told, the job
# is checkpointed, and the next `warren serve` resumes it with the same host key. Each check
# reads the screen, the server's log or `warren jobs list --json`; a failure prints the screen and
# the log.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || missing+=(openssh-client)
command -v tmux >/dev/null || missing+=(tmux)
command -v jq >/dev/null || missing+=(jq)
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing ${missing[*]} (the real ssh client, the terminal to drive it, and jq for warren's JSON)"
	apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi
unset WARREN_LOG_FILE # the connection log goes to its default place, serve/serve.log in the workspace

started=$SECONDS
. scripts/lib/tmux-e2e.sh
log="$ws/serve/serve.log"
serve_pid=""
on_cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true; }
on_fail() {
	echo "--- $log"
	cat "$log" 2>/dev/null || true
	echo "--- warren serve's output"
	cat "$work"/serve*.out 2>/dev/null || true
}

# One scripted model, slow enough that a run is still refining, or working its plan, when the
# connection drops.
port=$((20000 + RANDOM % 10000))
sshport=$((port + 10000))
# Questions about bluefinch (issue 30's scenario) get answers that search for it and read what
# they find; everything else stays meaningless.
cat >"$work/rules.json" <<'JSON'
[
 {"name": "bluefinch queries", "any_contains": "bluefinch", "schema_has": "queries",
  "replies": ["{\"queries\": [\"bluefinch price per kilo\", \"bluefinch supply policy prices\", \"bluefinch prices\"]}"]},
 {"name": "bluefinch plan", "any_contains": "bluefinch", "schema_has": "tasks",
  "replies": ["{\"tasks\": [{\"query\": \"bluefinch price per kilo\", \"rationale\": \"the price\", \"done_when\": \"a price is found\"}]}"]},
 {"name": "bluefinch reading", "any_contains": "bluefinch", "schema_has": "relevant",
  "replies": ["{\"relevant\": true, \"information\": \"The passage speaks of bluefinch prices.\", \"references\": []}"]}
]
JSON
model_server "$port" 300ms model --rules "$work/rules.json"
sample_workspace

# logged waits up to 10 s for the server's log to hold n lines matching a pattern.
logged() {
	local pattern=$1 n=${2:-1}
	for _ in $(seq 100); do
		if [ "$(grep -cE -- "$pattern" "$log" 2>/dev/null)" -ge "$n" ]; then
			ok
			return 0
		fi
		sleep 0.1
	done
	fail "the log never recorded ${n}× /$pattern/"
}
jobs_json() { "$work/warren" -w "$ws" jobs list --json; }
# to_row moves the sessions list's cursor down onto the row that names $1.
to_row() {
	for _ in $(seq 20); do
		if screen | grep -F "$1" | grep -q "▸"; then return; fi
		keys Down
	done
}
# state prints the state of job $1.
state() { jobs_json | jq -r --arg id "$1" '.[] | select(.id == $id) | .state'; }

sshopts=(-F /dev/null -p "$sshport" -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new
	-o UserKnownHostsFile="$work/known_hosts" -o ConnectTimeout=5)
# The client, as alice: it notes its pid (that of ssh, after exec) so that it can be killed.
{
	echo '#!/usr/bin/env bash'
	echo 'echo $$ >"$1"'
	printf 'exec ssh'
	printf ' %q' "${sshopts[@]}" -i "$work/alice" -t alice@127.0.0.1
	echo
} >"$work/client"
chmod +x "$work/client"
# connect opens a new tmux session (110×32) in which alice connects with the real client; the
# pane stays after ssh ends (its terminal made sane again) so that its last words can be read.
connect() {
	session="$1"
	t new-session -d -s "$session" -x 110 -y 32 \
		"'$work/client' '$work/$session.pid'; rc=\$?; stty sane; echo; echo \"ssh exited with \$rc\"; sleep 600"
}
# drop kills the session's ssh client (a dropped connection, not a quit) and closes the session.
drop() {
	kill -KILL "$(cat "$work/$session.pid")" || fail "no ssh client runs in $session"
	expect "ssh exited with 137"
	t kill-session -t "$session"
}
# quiet checks that the server's log never reaches the screen.
quiet() {
	if screen | grep -qE "level=(INFO|WARN|ERROR)"; then fail "the server's log reached the screen"; fi
	ok
}
# start_serve starts warren serve in the background and waits until it listens.
start_serve() {
	local out="$work/serve$1.out"
	OLLAMA_HOST="127.0.0.1:$port" "$work/warren" -w "$ws" serve --listen "127.0.0.1:$sshport" >"$out" 2>&1 &
	serve_pid=$!
	for _ in $(seq 100); do
		if grep -q "listening on 127.0.0.1:$sshport" "$out"; then
			ok
			return 0
		fi
		kill -0 "$serve_pid" 2>/dev/null || fail "warren serve exited at start"
		sleep 0.1
	done
	fail "warren serve never said it listens"
}

# 1. Analysts' keys: `warren users add|list`.
ssh-keygen -q -t ed25519 -N "" -f "$work/alice" -C alice
ssh-keygen -q -t ed25519 -N "" -f "$work/mallory" -C mallory
"$work/warren" -w "$ws" users add alice "$work/alice.pub" | grep -q "Added alice" || fail "users add did not add alice"
ok
"$work/warren" -w "$ws" users list | grep -qE "^alice +analyst +ssh-ed25519 SHA256:" || fail "users list does not show alice"
ok
"$work/warren" -w "$ws" users list --json | jq -e 'length == 1 and .[0].name == "alice"' >/dev/null ||
	fail "users list --json is not a JSON list naming alice: $("$work/warren" -w "$ws" users list --json)"
ok

# 2. The server creates its host key (mode 600) in the workspace.
start_serve 1
[ "$(stat -c %a "$ws/serve/host_ed25519")" = 600 ] || fail "the host key's mode is $(stat -c %a "$ws/serve/host_ed25519"), not 600"
ok
hostkey_sum=$(sha256sum <"$ws/serve/host_ed25519")

# 3. Connect, start a run, and drop the connection while it refines.
connect first
expect "warren alice"
expect "Research question"
help_fits
typed "Which purge sequence applies to silane cylinders?"
keys Enter
expect "Phase 1 refinement"
logged 'msg=connected analyst=alice'
quiet
drop
logged 'msg=disconnected analyst=alice'
job=$(jobs_json | jq -r '[.[] | select(.owner == "alice" and .kind == "research")] | .[0].id')
[ -n "$job" ] && [ "$job" != null ] || fail "warren jobs list --json has no research job of alice's: $(jobs_json)"
case "$(state "$job")" in
running | waiting) ok ;;
*) fail "alice's run did not go on after the connection dropped: $(state "$job")" ;;
esac

# 4. Reconnect: she lands in the run, which went on to its questions; answer, end, approve.
connect second
expect "warren alice"
expect "welcome back"
expect "Refinement, round 1"
expect "Question: Which purge sequence applies to silane cylinders?"
typed "Only the purge before disconnect"
keys C-s
expect "Refinement, round 2"
keys C-e
expect "Proposed plan"
keys Enter
expect "Phase 3 working the plan"

# 5. Drop again while it works the plan; it finishes without her; she comes back to its report.
drop
logged 'msg=disconnected analyst=alice' 2
case "$(state "$job")" in
running | done) ok ;;
*) fail "the run did not go on working its plan: $(state "$job")" ;;
esac
for _ in $(seq 600); do
	s=$(state "$job")
	[ "$s" = running ] || break
	sleep 0.1
done
[ "$s" = done ] || fail "the run ended $s, not done: $(jobs_json)"
ok
connect third
expect "warren alice"
# The run that ended while she was away is landed in, at its report.
expect "Report  run $job"
expect "welcome back"
# Sessions lists it as done, by her.
keys C-o
expect "$job"
screen | grep -F "$job" | grep -qE "done +alice" || fail "sessions does not list the run as done, by alice"
ok
keys Enter
expect "Report  run $job"
expect "## Sources"
# The real client passes a resize on (window-change): the frame is laid out again, whole.
t resize-window -t "$session" -x 80 -y 24
help_fits
expect "Report  run $job"
quiet
drop

# 6. What the real client is refused.
# refused runs the real client (never prompting) and fails unless it is refused; out holds
# what it printed.
out=""
refused() {
	local what=$1
	shift
	if out=$(timeout 20 ssh "${sshopts[@]}" -o BatchMode=yes "$@" </dev/null 2>&1); then
		fail "$what was let in: $out"
	fi
}
refused "exec" -i "$work/alice" alice@127.0.0.1 ls
if grep -qE "Makefile|go\.mod|warren\.db" <<<"$out"; then fail "exec ran ls: $out"; fi
ok
logged 'msg=refused what=exec analyst=alice key=SHA256:'
refused "an unknown key" -i "$work/mallory" alice@127.0.0.1
grep -q "Permission denied" <<<"$out" || fail "an unknown key was not denied: $out"
ok
logged 'msg=refused what=key .*user=alice key=SHA256:.*why=.*not in'
refused "a password" -o PreferredAuthentications=password -o PubkeyAuthentication=no alice@127.0.0.1
grep -q "Permission denied" <<<"$out" || fail "a password was not denied: $out"
ok
refused "keyboard-interactive" -o PreferredAuthentications=keyboard-interactive -o PubkeyAuthentication=no alice@127.0.0.1
grep -q "Permission denied" <<<"$out" || fail "keyboard-interactive was not denied: $out"
ok
refused "a connection without a terminal" -i "$work/alice" -T alice@127.0.0.1
grep -q "needs a terminal" <<<"$out" || fail "a connection without a terminal was not told to use ssh -t: $out"
ok

# 7. SIGTERM while she is connected and a run of hers works: she is told, the run is
# checkpointed as interrupted, and the next warren serve resumes it with the same host key.
connect stopping
expect "warren alice"
expect "Research question"
typed "Which gases need a cylinder cabinet?"
keys Enter
expect "Phase 1 refinement"
kill -TERM "$serve_pid"
expect "warren serve stopped"
expect "ssh exited with"
logged 'msg=stopping connections=1'
wait "$serve_pid" || fail "warren serve exited with $? on SIGTERM"
serve_pid=""
ok
job2=$(jobs_json | jq -r --arg old "$job" '[.[] | select(.owner == "alice" and .id != $old)] | .[0].id')
running=$(jobs_json | jq -r '[.[] | select(.state == "running")] | length')
[ "$running" = 0 ] || fail "$running job(s) left running after warren serve stopped: $(jobs_json)"
ok
[ "$(state "$job2")" = interrupted ] || fail "the run in flight at SIGTERM is $(state "$job2"), not interrupted"
ok
t kill-session -t stopping
start_serve 2
[ "$(sha256sum <"$ws/serve/host_ed25519")" = "$hostkey_sum" ] || fail "the host key changed on restart"
ok
logged "msg=\"resumed an interrupted job\" job=$job2"
case "$(state "$job2")" in
running | waiting) ok ;;
*) fail "the interrupted run was not resumed: $(state "$job2")" ;;
esac
connect back # accept-new: a changed host key would be refused here
expect "warren alice"
expect "welcome back"
expect "Question: Which gases need a cylinder cabinet?"

# ---- issue 26, items 1, 2, 4, 6, 11: a watcher is offered only what a watcher may do and
# the screen says what the service did; every view's figures come from the run's record; a run
# started from a shell is followed live in a served workbench ----
# absent checks, after the screen settled, that text is not on it.
declare -F absent >/dev/null || absent() {
	sleep 0.4
	if screen | grep -qF -- "$1"; then fail "the screen still shows: $1"; fi
	ok
}
# 4. Esc in alice's answer field only leaves the field: her run still waits.
typed "cabinets"
keys Escape
expect "type to write"
absent "cancel"
case "$(state "$job2")" in waiting*) ;; *) fail "esc in the answer changed alice's run to $(state "$job2")" ;; esac
ok
# 1. bob, a second analyst, opens alice's waiting run from the sessions.
ssh-keygen -q -t ed25519 -N "" -f "$work/bob" -C bob
"$work/warren" -w "$ws" users add bob "$work/bob.pub" >/dev/null || fail "users add bob"
{
	echo '#!/usr/bin/env bash'
	echo 'echo $$ >"$1"'
	printf 'exec ssh'
	printf ' %q' "${sshopts[@]}" -i "$work/bob" -t bob@127.0.0.1
	echo
} >"$work/client-bob"
chmod +x "$work/client-bob"
session=bobs
t new-session -d -s bobs -x 110 -y 32 "'$work/client-bob' '$work/bobs.pid'; rc=\$?; stty sane; echo; echo \"ssh exited with \$rc\"; sleep 600"
expect "warren bob"
expect "Research question"
keys C-o
expect "$job2"
to_row "$job2" # the cursor onto alice's run
keys Enter
expect "watching alice's run"
expect "Question: Which gases need a cylinder cabinet?"
last=$(screen | tail -n 1)
for bad in "ctrl+s" "send" "cancel" "approve"; do
	if grep -qi -- "$bad" <<<"$last"; then fail "bob's help line offers '$bad': $last"; fi
done
ok
# Esc is not a cancellation; ctrl+x anyway shows the desk's refusal.
keys Escape
absent "cancelled"
expect "waiting for alice"
keys C-x
expect "only alice (or an admin)" # the desk's words (cut at the status line's width)
case "$(state "$job2")" in waiting*) ;; *) fail "bob's keys changed alice's run to $(state "$job2")" ;; esac
ok
# 2. bob's budget bar counts what the run's ledger holds, across its restart.
calls=$("$work/warren" -w "$ws" sessions show "$job2" --json | jq '.ledger | length')
screen | grep -qE "^calls +[█░]* $calls/" || fail "bob's calls bar is not the ledger's $calls"
ok
# 11. A run started from a shell on the box is listed and followed live in bob's workbench.
USER=carol OLLAMA_HOST="127.0.0.1:$port" "$work/warren" -w "$ws" research --yes "Which purge applies to arsine cylinders?" >"$work/cli-run.out" 2>&1 &
cli_pid=$!
cli=""
for _ in $(seq 100); do
	cli=$(jobs_json | jq -r '[.[] | select(.owner == "carol" and .state == "running")] | .[0].id')
	[ -n "$cli" ] && [ "$cli" != null ] && "$work/warren" -w "$ws" sessions list 2>/dev/null | grep -qF "$cli" && break
	sleep 0.1
done
[ -n "$cli" ] && [ "$cli" != null ] || fail "the shell's run never showed in warren jobs list: $(jobs_json)"
ok
keys C-o
expect "$cli"
to_row "$cli"
keys Enter
expect "watching carol's run"
expect "· running"
absent "another warren process"
expect "Report  run $cli" # followed to its end
wait "$cli_pid" || fail "the shell's run exited with $?: $(cat "$work/cli-run.out")"
ok
# 6. Reopened from the sessions, the finished run shows its phase and steps.
keys C-o
expect "$cli"
to_row "$cli"
keys Enter
expect "Report  run $cli"
keys Escape
expect "Phase 4"
absent "(none)"
expect "✓"
t kill-session -t bobs
session=back


# ---- issue 26, item 3: one run, one state. alice's run waits for her, and every listing
# says so in the same words, to her and to bob: `warren jobs list`, `warren sessions list`, their
# --json, the workbench's header and its sessions list ----
listed() { "$work/warren" -w "$ws" "$@" --json | jq -e --arg id "$job2" '.[] | select(.id == $id) | .state == "waiting" and .waiting_for == "alice"' >/dev/null; }
listed jobs list || fail "warren jobs list --json does not give alice's run as waiting for alice: $(jobs_json)"
ok
listed sessions list || fail "warren sessions list --json does not give alice's run as waiting for alice: $("$work/warren" -w "$ws" sessions list --json)"
ok
for listing in "jobs list" "sessions list"; do
	# shellcheck disable=SC2086 # each listing is two words
	row=$("$work/warren" -w "$ws" $listing | grep -F "$job2")
	grep -q "waiting for alice" <<<"$row" || fail "warren $listing shows alice's run as: $row"
	if grep -qE "interrupted|canceled" <<<"$row"; then fail "warren $listing has another word for alice's run: $row"; fi
	ok
done
expect "run: waiting for alice" # alice's own header (session back)
session=bobs3
t new-session -d -s bobs3 -x 110 -y 32 "'$work/client-bob' '$work/bobs3.pid'; rc=\$?; stty sane; echo; echo \"ssh exited with \$rc\"; sleep 600"
expect "warren bob"
expect "Research question"
keys C-o
expect "$job2"
screen | grep -F "$job2" | grep -q "waiting for alice" || fail "bob's sessions list does not show alice's run as waiting for alice"
ok
# carol's run from the shell ended: done, in the same word everywhere.
screen | grep -F "$cli" | grep -qE " done +carol" || fail "bob's sessions list does not show carol's run as done"
[ "$(state "$cli")" = done ] || fail "warren jobs list --json gives carol's run as $(state "$cli")"
"$work/warren" -w "$ws" sessions list | grep -F "$cli" | grep -q " done " || fail "warren sessions list does not give carol's run as done"
ok
to_row "$job2" # the cursor onto alice's run: bob's header says what it waits for
keys Enter
expect "run: waiting for alice"
t kill-session -t bobs3
session=back

# 8. The trust boundary, tried as an attacker with an analyst's key would.
t kill-session -t back
# 8a. From the workbench, files come only from the ingest roots (inbox/ by default): the host
# key and /etc/passwd are refused with the allowed folder named; a document in inbox/ is taken.
mkdir -p "$ws/inbox"
printf '# Boundary note\n\nThe cabinet purge uses nitrogen at 5 bar, said the boundary note.\n' >"$ws/inbox/boundary-note.md"
ln -s "$ws/serve/host_ed25519" "$ws/inbox/innocent.md"
connect boundary
expect "warren alice"
if screen | grep -qF "$ws"; then fail "the header shows the workspace's server path to an analyst"; fi
ok
keys M-2 # she lands in her answer: the digits type there, alt+digit switches tabs
for path in "$ws/serve/host_ed25519" /etc/passwd ../serve/host_ed25519 inbox/innocent.md; do
	keys i
	typed "$path"
	keys Enter
	expect "only inbox/ may be ingested from"
	if screen | grep -qF "PRIVATE KEY"; then fail "the host key reached the screen through $path"; fi
	ok
	keys Escape
done
keys i
typed "inbox/boundary-note.md"
keys Enter
expect "skipped 0, failed 0:" # ingested, or unchanged when the inbox's watcher was first
keys /
typed "boundary note nitrogen"
keys Enter
expect "Boundary note"
keys /
typed "BEGIN OPENSSH PRIVATE KEY"
keys Enter
expect "Results for"
if screen | grep -qF "PRIVATE KEY-----"; then fail "the host key is searchable"; fi
ok
# The inbox ingests by itself: a file copied into inbox/sds/ while serve runs is ingested into
# sds once it has settled, and she finds it from her workbench; the link out was not followed.
mkdir -p "$ws/inbox/sds"
printf '# Inbox note\n\nThe wombat valve is checked monthly, said the inbox note.\n' >"$ws/inbox/sds/inbox-note.md"
logged 'msg="inbox: ingested" file=[^ ]*/inbox/sds/inbox-note.md .*collection=sds'
logged 'innocent.md: a symbolic link that leads outside the ingest folders'
keys /
typed "wombat valve inbox note"
keys Enter
expect "Inbox note"
t kill-session -t boundary

# ---- issue 30: who may read what. confidential is alice's to read and not bob's: his search,
# research and references never show it, her run watched by him withholds its passages, and
# the audit trail names both ----
mkdir -p "$work/conf/confidential" "$work/conf/general"
printf '# Bluefinch Supply Policy\n\n## 6 Prices\n\nThe bluefinch price is 4.20 per kilo, agreed in confidence with the supplier.\n' \
	>"$work/conf/confidential/bluefinch-policy.md"
printf '# Bluefinch memo\n\nBluefinch prices are set out in the Bluefinch Supply Policy.\n' >"$work/conf/general/bluefinch-memo.md"
for c in confidential general; do
	out=$(OLLAMA_HOST="127.0.0.1:$port" "$work/warren" -w "$ws" ingest "$work/conf/$c" --collection "$c" 2>&1) || fail "ingest $c: $out"
done
"$work/warren" -w "$ws" access grant alice confidential read >/dev/null || fail "access grant alice"
"$work/warren" -w "$ws" access grant bob confidential none >/dev/null || fail "access grant bob"
"$work/warren" -w "$ws" access list --json | jq -e '[.grants[] | select(.collection == "confidential")] | length == 2' >/dev/null ||
	fail "access list --json: $("$work/warren" -w "$ws" access list --json)"
ok
session=bobconf
t new-session -d -s bobconf -x 110 -y 32 "'$work/client-bob' '$work/bobconf.pid'; rc=\$?; stty sane; echo; echo \"ssh exited with \$rc\"; sleep 600"
expect "warren bob"
keys M-2
keys /
typed "bluefinch price"
keys Enter
expect "Results for"
expect "Bluefinch memo"
absent "agreed in confidence"
absent "confidential"
# His research reads the memo, and the reference it makes to the policy is not followed.
keys M-1
expect "Research question"
typed "What is the bluefinch price per kilo?"
keys Enter
expect "Refinement, round 1"
typed "per kilo"
keys C-s
expect "Refinement, round 2"
keys C-e
expect "Proposed plan"
keys Enter
bobrun=$(jobs_json | jq -r '[.[] | select(.owner == "bob" and .kind == "research")] | .[0].id')
[ -n "$bobrun" ] && [ "$bobrun" != null ] || fail "bob's run is not in warren jobs list: $(jobs_json)"
for _ in $(seq 600); do [ "$(state "$bobrun")" = running ] || break; sleep 0.1; done
[ "$(state "$bobrun")" = done ] || fail "bob's run ended $(state "$bobrun")"
expect "Report  run $bobrun"
absent "agreed in confidence"
run_state() { "$work/warren" -w "$ws" sessions show "$1" --json | jq -c '.checkpoint.state'; }
run_state "$bobrun" | jq -e '([.seen[]? | select(startswith("confidential/"))] | length == 0)
	and ([.sources[]? | select(.collection == "confidential")] | length == 0)
	and ([.references[]? | select(.resolved.collection? == "confidential")] | length == 0)
	and ([.seen[]? | select(startswith("general/"))] | length > 0)' >/dev/null ||
	fail "bob's run read confidential, or nothing: $(run_state "$bobrun")"
ok
run_state "$bobrun" | jq -e '[.references[]? | select(.reason | startswith("not accessible: bob may not read confidential"))] | length > 0' >/dev/null ||
	fail "bob's run has no reference reported not accessible: $(run_state "$bobrun" | jq -c '.references')"
ok
# alice's run, started from a shell on the box, reads the policy; bob watches it live.
USER=alice OLLAMA_HOST="127.0.0.1:$port" "$work/warren" -w "$ws" research --yes "What is the bluefinch price per kilo agreed?" >"$work/alice-run.out" 2>&1 &
alice_pid=$!
arun=""
for _ in $(seq 100); do
	arun=$(jobs_json | jq -r '[.[] | select(.owner == "alice" and .state == "running")] | .[0].id')
	[ -n "$arun" ] && [ "$arun" != null ] && "$work/warren" -w "$ws" sessions list 2>/dev/null | grep -qF "$arun" && break
	sleep 0.1
done
[ -n "$arun" ] && [ "$arun" != null ] || fail "alice's shell run never showed: $(jobs_json)"
keys C-o
expect "$arun"
to_row "$arun"
keys Enter
expect "watching alice's run"
wait "$alice_pid" || fail "alice's run exited with $?: $(cat "$work/alice-run.out")"
expect "Report  run $arun"
expect "withheld"
absent "agreed in confidence"
absent "bluefinch-policy"
absent "4.20"
# What bob was not shown was there: the account sees alice's run cite the policy.
run_state "$arun" | jq -e '[.sources[]? | select(.collection == "confidential")] | length > 0' >/dev/null ||
	fail "alice's run did not use confidential, so nothing was withheld: $(run_state "$arun" | jq -c '.sources')"
ok
t kill-session -t bobconf
# The audit trail names both, and its JSON parses.
"$work/warren" -w "$ws" audit --json | jq -e '([.[] | select(.analyst == "bob" and .action == "search")] | length > 0)
	and ([.[] | select(.analyst == "bob" and .action == "research")] | length > 0)
	and ([.[] | select(.analyst == "alice")] | length > 0)
	and ([.[] | select(.action == "access" and .target == "bob/confidential")] | length == 1)' >/dev/null ||
	fail "the audit trail lacks bob's or alice's entries: $("$work/warren" -w "$ws" audit --json | jq -c '[.[] | {analyst, action, target}]')"
ok

# ---- issue 26, item 10: the notice that warren serve stopped is wrapped at words in an
# 80-column terminal, not cut mid-word by it ----
session=narrow
t new-session -d -s narrow -x 80 -y 24 "'$work/client' '$work/narrow.pid'; rc=\$?; stty sane; echo; echo \"ssh exited with \$rc\"; sleep 600"
expect "warren alice"
kill -TERM "$serve_pid"
wait "$serve_pid" || true
serve_pid=""
expect "ssh exited with"
bye="warren serve stopped. Your jobs were checkpointed and resume when it starts again; nothing you approved is lost."
said=$(screen | sed -n '/^warren serve stopped/,/lost\.$/p' | tr '\n' ' ' | sed 's/ *$//; s/  */ /g')
[ "$said" = "$bye" ] || fail "the goodbye at 80 columns reads: $said"
ok
t kill-session -t narrow

# 8b. Keys read as sshd reads them: from= another address, a past expiry-time and command= are
# refused and logged; an RSA key logs in with rsa-sha2-512 but not with ssh-rsa (SHA-1).
for who in carol dave erin rsa; do ssh-keygen -q -t ed25519 -N "" -f "$work/$who" -C "$who"; done
rm -f "$work/rsa" "$work/rsa.pub"
ssh-keygen -q -t rsa -b 2048 -N "" -f "$work/rsa" -C rsa
"$work/warren" -w "$ws" users add carol "$work/carol.pub" --from 10.9.9.9 >/dev/null || fail "users add --from"
"$work/warren" -w "$ws" users add dave "$work/dave.pub" --expires 2099-01-01 >/dev/null || fail "users add --expires"
grep -q 'expiry-time="20990101".* dave$' "$ws/serve/authorized_keys" || fail "users add --expires did not write expiry-time"
# users add refuses a date already past, so the expired key is written as an administrator would.
sed -i 's/expiry-time="20990101"/expiry-time="20200101"/' "$ws/serve/authorized_keys"
"$work/warren" -w "$ws" users add rsa "$work/rsa.pub" >/dev/null || fail "users add an RSA key"
echo "command=\"cat /etc/passwd\" $(cut -d' ' -f1,2 "$work/erin.pub") erin" >>"$ws/serve/authorized_keys"
ok
# 8c. StrictModes: a world-writable authorized_keys stops serve at start, naming it.
chmod 666 "$ws/serve/authorized_keys"
if OLLAMA_HOST="127.0.0.1:$port" "$work/warren" -w "$ws" serve --listen "127.0.0.1:$sshport" >"$work/serve-modes.out" 2>&1; then
	fail "warren serve started with a world-writable authorized_keys"
fi
grep -qF "$ws/serve/authorized_keys" "$work/serve-modes.out" && grep -qF "0666" "$work/serve-modes.out" ||
	fail "warren serve did not name the world-writable file and its mode: $(cat "$work/serve-modes.out")"
ok
chmod 600 "$ws/serve/authorized_keys"
# The rest runs with a login grace of 3 s.
WARREN_SERVE_LOGIN_GRACE=3s start_serve 3
refused "a key limited to another address" -i "$work/carol" carol@127.0.0.1
logged 'msg=refused what=key analyst=carol .*from=127\.0\.0\.1:.*why=.*10\.9\.9\.9'
refused "an expired key" -i "$work/dave" dave@127.0.0.1
logged 'msg=refused what=key analyst=dave .*why=.*expir'
refused "a key with command=" -i "$work/erin" erin@127.0.0.1
logged 'msg=refused what=key analyst=erin .*why=.*command'
refused "an RSA key signing with ssh-rsa" -o PubkeyAcceptedAlgorithms=ssh-rsa -i "$work/rsa" rsa@127.0.0.1
grep -q "Permission denied" <<<"$out" || fail "ssh-rsa was not denied: $out"
ok
# OpenSSH does not even try a key whose algorithm the server does not list; either way the
# refusal is logged.
logged 'msg=refused what=(key|connection) .*user=rsa .*(ssh-rsa.* not accepted|offered no key)'
# The same RSA key with rsa-sha2-512 authenticates (and is then refused its command).
refused "exec with an RSA key" -o PubkeyAcceptedAlgorithms=rsa-sha2-512 -i "$work/rsa" rsa@127.0.0.1 ls
logged 'msg=refused what=exec analyst=rsa'
# 8d. Modern algorithms only.
refused "diffie-hellman-group14-sha1" -o KexAlgorithms=diffie-hellman-group14-sha1 -i "$work/alice" alice@127.0.0.1
grep -q "no matching key exchange method" <<<"$out" || fail "group14-sha1 was not refused at key exchange: $out"
ok
refused "hmac-sha1" -c aes128-ctr -o MACs=hmac-sha1 -i "$work/alice" alice@127.0.0.1
grep -q "no matching MAC" <<<"$out" || fail "hmac-sha1 was not refused: $out"
ok
logged 'msg=refused what=connection .*no common algorithm'
# 8e. 60 silent TCP connections: a real ssh still logs in meanwhile, and all 60 are closed
# after the grace.
silent=()
for _ in $(seq 60); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$sshport"
	silent+=("$fd")
done
sleep 1.2 # silent for a second: a new connection may take the place of one of them
connect meanwhile
expect "warren alice"
sleep 3
open_fds=0
for fd in "${silent[@]}"; do
	# A closed connection reads its end at once; an open one would wait out the timeout.
	rc=0
	while true; do read -r -t 0.2 -u "$fd" _ || { rc=$?; break; }; done
	[ "$rc" -gt 128 ] && open_fds=$((open_fds + 1))
	exec {fd}<&-
done
[ "$open_fds" = 0 ] || fail "$open_fds of 60 silent connections were still open after the grace"
ok
logged 'msg=closed what=connection .*no authentication within serve.login_grace'
expect "warren alice" # the analyst's workbench outlived the grace
t kill-session -t meanwhile
# 8f. ssh -N (authenticated, no workbench) is closed after the grace; a refused -L forward and
# -R forward are in serve.log.
begin=$SECONDS
timeout 20 ssh "${sshopts[@]}" -o BatchMode=yes -N -L "$((port + 1)):127.0.0.1:22" -i "$work/alice" alice@127.0.0.1 </dev/null >"$work/ssh-N.out" 2>&1 &
sshn=$!
sleep 1
(exec 3<>"/dev/tcp/127.0.0.1/$((port + 1))" && sleep 0.5) 2>/dev/null || true
wait "$sshn" && rc=0 || rc=$?
[ "$rc" != 124 ] || fail "ssh -N was still connected after 20 s"
[ $((SECONDS - begin)) -le 8 ] || fail "ssh -N took $((SECONDS - begin)) s to be closed with a 3 s grace"
ok
logged 'msg=refused what=direct-tcpip analyst=alice .*to=127\.0\.0\.1:22'
logged 'msg=closed what=connection user=alice .*authenticated but no workbench'
refused "a remote forward" -o ExitOnForwardFailure=yes -N -R "$((port + 2)):127.0.0.1:22" -i "$work/alice" alice@127.0.0.1
logged 'msg=refused what=tcpip-forward analyst=alice'

echo "e2e-serve: $passed passed, 0 failed ($((SECONDS - started)) s)"

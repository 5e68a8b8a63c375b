#!/usr/bin/env bash
# Drives the real warren binary in tmux against the scripted Ollama-compatible server, the way
# a newcomer would: a whole research run at 110×32, then the interaction rules at 80×24 (focus,
# safe quitting, cancelling at every phase, no dead ends, help that fits, mouse, clipboard,
# resizing). Each check reads the screen; a failure prints it. It also times the first frame:
# from the moment the binary is launched in tmux to the moment its first frame is on the
# screen, nine times, and prints the median; `--first-frame` does only that (make bench).
set -euo pipefail
cd "$(dirname "$0")/.."
only_first_frame=false
if [ "${1:-}" = "--first-frame" ]; then only_first_frame=true; fi

if ! command -v tmux >/dev/null; then
	echo "installing tmux (needed to drive the terminal)"
	apt-get update -qq && apt-get install -y -qq tmux >/dev/null
fi

. scripts/lib/tmux-e2e.sh
help_ends+=("n/esc stay") # the quit question's help line

# Two scripted servers: a quick one, and a slow one so that a run is still in flight when a key
# arrives.
fast=$((20000 + RANDOM % 10000))
slow=$((fast + 10000))
model_server "$fast" 20ms fast
model_server "$slow" 700ms slow
sample_workspace
"$work/warren" -w "$ws" gas import sample/gas/hmis-sample.csv >/dev/null
"$work/warren" -w "$ws" tox import sample/tox/profiles.json >/dev/null

# start opens warren in a new session of the given size, talking to the server on port $4.
start() {
	session="$1"
	t new-session -d -s "$session" -x "$2" -y "$3" \
		"OLLAMA_HOST=127.0.0.1:$4 '$work/warren' -w '$ws'; echo 'warren exited'; sleep 600"
	t set-option -g set-clipboard on
}
# absent checks, after the screen settled, that text is not on it.
absent() {
	sleep 0.4
	if screen | grep -qF -- "$1"; then
		fail "the screen still shows: $1"
	fi
	ok
}
# click and wheel send the terminal's own (SGR) mouse reports; columns and rows count from 1.
click() { typed $'\e[<0;'"$1;$2"'M'; typed $'\e[<0;'"$1;$2"'m'; }
wheel_up() { typed $'\e[<64;'"$1;$2"'M'; }

# 0. The first frame: the launch time is written by the shell that then becomes warren (exec),
# and the screen is read every few milliseconds until the Research tab is on it; reading the
# screen (a tmux client each time) bounds the resolution at a few milliseconds.
first_frame() {
	local ms=() i t0 t1
	for i in $(seq 9); do
		session="first$i"
		t new-session -d -s "$session" -x 120 -y 40 \
			"date +%s%N >'$work/launch'; OLLAMA_HOST=127.0.0.1:$fast exec '$work/warren' -w '$ws'"
		t1=""
		for _ in $(seq 3000); do
			if screen | grep -qF "Research question"; then
				t1=$(date +%s%N)
				break
			fi
			sleep 0.003
		done
		[ -n "$t1" ] || fail "no first frame within 10 s"
		t0=$(cat "$work/launch")
		ms+=($(((t1 - t0) / 1000000)))
		t kill-session -t "$session"
	done
	local sorted
	sorted=$(printf '%s\n' "${ms[@]}" | sort -n | tr '\n' ' ')
	echo "e2e-tui: first frame $(printf '%s\n' "${ms[@]}" | sort -n | sed -n 5p) ms after launch (median of 9, 120x40; each: $sorted ms)"
}
first_frame
if $only_first_frame; then exit 0; fi

# 1. A whole research run at 110×32 (the flow every release must keep).
start flow 110 32 "$fast"
expect "Research question"
expect "models: ready"
keys "Which purge sequence applies to silane cylinders?" Enter
expect "Refinement, round 1"
expect "passages found"
keys "Only the purge before disconnect" C-s
expect "Refinement, round 2"
expect "Your answer, round 1: Only the purge before disconnect"
keys C-e
expect "Proposed plan"
expect "Done when:"
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
absent "elapsed_ns"
absent "ref_tokens"
expect "report written ("
keys 3
expect "Gas table hmis-sample"
keys / "flammable gases without a CAS number" Enter
expect "fallback"
keys Escape
keys 4
expect "EUGENOL"
keys 5
expect "Events and model calls"
keys q
expect "warren exited"
t kill-session -t flow

# 2. The interaction rules at 80×24.
start rules 80 24 "$fast"
expect "Research question"
help_fits
# The exact sequence that once lost letters and quit mid-sentence.
keys Escape
expect "not typing"
keys M-5 # the digits type on the question view: alt+digit switches tabs there
expect "Events and model calls"
keys 1
typed "liquid"
expect "> liquid"
expect "esc leave field"
typed " test q"
expect "> liquid test q"
absent "warren exited"
absent "Quit warren?"
help_fits
# Backspace on a field left with Esc edits it instead of vanishing.
keys Escape
expect "not typing"
keys BSpace BSpace
expect "> liquid test"
# On the question view q types even after esc; ctrl+c with unsent text asks first; any other
# key stays.
keys Escape
expect "not typing"
keys q
expect "> liquid testq"
absent "Quit warren?"
keys BSpace
keys C-c
expect "Quit warren?"
expect "the question field holds text not yet sent"
keys n
expect "still here"
absent "Quit warren?"
# A tab switched away and back keeps the text, and its messages stay with their tab.
keys M-2
absent "still here"
keys 1
expect "liquid test"
keys C-u
typed "Which purge sequence applies to silane cylinders?"
keys Enter
expect "Refinement, round 1"
expect "Question: Which purge sequence applies to silane cylinders?"
# Esc in the answer only leaves the field: the run still waits, the answer stays.
typed "only silane"
keys Escape
expect "type to write"
absent "cancelled"
help_fits
expect "only silane"
keys C-s
expect "Refinement, round 2"
keys C-e
expect "Proposed plan"
expect "Why:"
help_fits
# Esc on the plan goes back to the run view, the run still waits, and an added task is there
# when r comes back to the plan.
keys a
typed "added before esc"
keys Enter
expect "added before esc"
keys Escape
expect "run: waiting for"
absent "cancelled"
keys r
expect "Proposed plan"
expect "added before esc"
keys Enter
expect "report ready"
help_fits
# The status message belongs to the report: it clears in the run view. The finished report is
# one key away from there.
keys Escape
expect "enter report"
absent "report ready"
help_fits
keys Enter
expect "Report  run"
# c copies the whole report (no citation selected) through OSC 52 into tmux's buffer.
keys c
expect "copied the report as Markdown"
if ! t show-buffer | grep -q "## Sources"; then fail "the clipboard does not hold the report"; fi
ok
# The tree: a followed reference expands to where it led.
keys t
expect "Rabbit-hole tree"
for _ in $(seq 40); do
	if screen | grep -q "▸ *→ «.*followed"; then break; fi
	keys Down
done
keys Enter
expect "led to "
keys Escape
# Search results open their passage with enter, showing score, title and section.
keys 2
keys /
typed "silane purge"
keys Enter
expect "Results for"
expect "Gas Cabinet Procedure §"
help_fits
keys Enter
expect "score "
keys c
expect "copied the passage with its source"
keys Escape
expect "Results for"
# Mouse: a click on a tab opens it; the wheel scrolls the Log tab.
click 31 2
expect "Gas table hmis-sample"
click 50 2
expect "Events and model calls"
before=$(screen | tail -n +4 | head -n 5)
for _ in 1 2 3 4 5 6; do wheel_up 10 10; done
sleep 0.3
if [ "$(screen | tail -n +4 | head -n 5)" = "$before" ]; then fail "the wheel did not scroll the Log tab"; fi
ok
# A run in flight: q asks first, naming the run; ctrl+c in its run view cancels it.
t kill-session -t rules
start inflight 80 24 "$slow"
expect "Research question"
typed "Which purge sequence applies to silane cylinders?"
keys Enter
expect "Phase"
keys q
expect "Quit warren?"
expect "is in flight"
keys n
keys C-c
expect "run: cancelled"
# Resizing keeps the frame whole.
t resize-window -t inflight -x 60 -y 18
expect "1 Research"
t resize-window -t inflight -x 80 -y 24
expect "1 Research"
help_fits
# With nothing at stake ctrl+c quits at once from the question view (q types there).
keys n
keys C-c
expect "warren exited"

# A collection embedded with another model: search says how to fix it, and the Log has it whole.
t kill-session -t inflight
OLLAMA_HOST="127.0.0.1:$fast" "$work/warren" init "$work/embedded" >/dev/null
OLLAMA_HOST="127.0.0.1:$fast" "$work/warren" -w "$work/embedded" ingest sample/internal --collection embedded --embedder ollama >/dev/null
session=embed
t new-session -d -s embed -x 80 -y 24 \
	"OLLAMA_HOST=127.0.0.1:$fast WARREN_MODELS_EMBED_MODEL=all-minilm '$work/warren' -w '$work/embedded'; echo 'warren exited'; sleep 600"
expect "Research question"
keys M-2
keys /
typed "silane"
keys Enter
expect 'collection "embedded" was embedded with nomic-embed-text'
help_fits
keys 5
expect "warren ingest --rebuild"

# ---- issue 26, items 8-10: words, not internals; what matters fits at 80x24; the Gas tab
# sees a table the CLI imported ----
t kill-session -t embed
start words 80 24 "$fast"
expect "Research question"
# 9. The Knowledge tab names the embedder in words, not by its id.
keys M-2 # alt+number switches tabs from any field
expect "built-in embedder (offline)"
absent "builtin:hash"
help_fits
# 10. A table imported from a shell shows when the Gas tab is opened, without r.
keys M-3
expect "Gas table hmis-sample"
"$work/warren" -w "$ws" gas import sample/gas/hmis-sample.csv --name fab-k9 >/dev/null
keys M-2
keys M-3
expect "of 2 (t switches)"
# 8. The header's counts wrap instead of being cut: the rejected and the empty count show.
expect " rejected · "
expect " empty"
# 8. An edit out of range says the range whole: HMIS Flammability is the 19th column.
keys l l l l l l l l l l l l l l l l l l
keys e
keys C-u
typed "7"
keys Enter
expect "whole numbers from 0 to 4"
keys Escape
help_fits
# 9. A toxicology proposal says its kind of edit and how it was made in words.
keys M-4
expect "Profiles"
keys i
expect "an instruction in words, a JSON payload or a JSON Patch"
typed '[{"op":"replace","path":"/noael/0/value","value":200}]'
keys C-s
expect "structured edit (JSON) · applied as written"
absent "FORM_EDIT"
# 9. The Log names steps and model calls in words, never a node's name.
keys M-5
absent "generate_queries"
absent "node    "
t kill-session -t words

# ---- issue 26, items 4-7: esc leaves a field and never cancels; esc from the sessions goes
# back where ctrl+o came from; a reopened run is drawn from its record; on the question view
# every printable key types and the tab bar says how to switch ----
start truth 80 24 "$fast"
expect "Research question"
# 7. The tab bar says how its numbers work while the question types.
expect "alt+1-5 switch tabs"
keys Escape
expect "not typing"
absent "q quit"
typed "q1 Which purge sequence applies to silane cylinders?"
expect "q1 Which purge sequence"
absent "Quit warren?"
absent "warren exited"
keys M-2
expect "Collections"
keys M-1
expect "q1 Which purge sequence"
keys Enter
expect "Refinement, round 1"
# 4. Esc in the answer field only leaves it: the run waits, nothing says cancelled.
typed "only silane"
keys Escape
expect "type to write"
absent "cancel"
typed " cylinders"
expect "only silane cylinders"
keys C-e
expect "Proposed plan"
keys Enter
expect "report ready"
# 6. A finished run reopened from the sessions shows its phase, steps and calls.
keys C-o
expect " steps "
keys Enter
expect "Report  run"
keys Escape
expect "Phase 4"
absent "(none)"
expect "✓"
# 5. Esc from the sessions goes back to the run view; n there starts an empty question.
keys C-o
expect " steps "
keys Escape
expect "Phase 4"
keys n
expect "Research question"
absent "q1 Which purge"
# 7. ctrl+c quits from the question view; the answer typed and never sent is named first.
keys C-c
expect "Quit warren?"
keys y
expect "warren exited"
t kill-session -t truth

# ---- issue 26, item 8: the export path is said whole at 80x24 ----
# ---- issue 31: x offers the formats (enter takes Markdown, d DOCX, p PDF), all at 80x24 ----
start export 80 24 "$fast"
expect "Research question"
keys C-o
expect " steps "
keys Enter
expect "Report  run"
keys x
expect "Export as"
expect "h HTML"
help_fits
keys Enter
expect "report exported: "
expect ".md (md)"
keys x
keys d
expect ".docx (docx)"
keys x
keys p
expect ".pdf (pdf)"
keys x
keys Escape
expect "not exported"
expect "Report  run"
docx=("$ws"/exports/research-*.docx) pdf=("$ws"/exports/research-*.pdf)
[ "$(head -c 2 "${docx[0]}")" = PK ] || fail "the DOCX export is no zip: ${docx[0]}"
ok
[ "$(head -c 5 "${pdf[0]}")" = "%PDF-" ] || fail "the PDF export is no PDF: ${pdf[0]}"
ok
t kill-session -t export

# ---- issue 26, item 10: while a fill runs the header says so, not "no run"; esc cancels it ----
start filling 80 24 "$slow"
expect "Research question"
keys M-3
expect "Gas table"
keys F
expect "gas fill: "
absent "· no run"
keys Escape
expect "· no run" # the header follows the fill's end
state=$("$work/warren" -w "$ws" jobs list --json | jq -r '[.[] | select(.kind == "gasfill")] | .[0].state')
[ "$state" = cancelled ] || fail "the fill esc stopped is $state, not cancelled"
ok
t kill-session -t filling

# ---- issue 30: the admin view (ctrl+g; outside serve the account is the admin): grant bob
# read on a collection and revoke it, the audit trail with both and its CSV, stray keys, and
# esc back to the tab it covered ----
start admin 80 24 "$fast"
expect "Research question"
keys M-2
expect "Collections"
keys C-g
expect "Access to collections"
expect "No grants yet"
help_fits
keys g
expect "Grant access to a collection"
typed "bob"
keys Enter
keys C-u
typed "standards"
keys Enter
keys r Enter
expect "bob may now read standards"
expect "1 grant(s)"
screen | grep -q "▸ bob  *standards  *read  " || fail "bob's grant is not listed"
ok
listed=$("$work/warren" -w "$ws" access list --json | jq -r '.grants[] | select(.analyst == "bob") | .collection + " " + .level')
[ "$listed" = "standards read" ] || fail "warren access list has bob's grant as '$listed'"
ok
keys x
expect "Revoke bob's read on standards?"
keys y
expect "bob no longer has a grant on standards"
expect "No grants yet"
help_fits
keys t
expect "Audit trail"
expect '{"change":"revoke'
[ "$(screen | grep -c "access  *bob/standards")" -ge 2 ] || fail "the trail does not show the grant and the revocation"
ok
keys e
expect "wrote exports/audit-"
csvfile=$(ls "$ws"/exports/audit-*.csv 2>/dev/null | head -n 1)
[ -n "$csvfile" ] && [ "$(grep -c ',access,bob/standards,' "$csvfile")" -ge 2 ] || fail "the CSV export lacks the changes: ${csvfile:-none}"
ok
help_fits
# Stray keys change nothing and quit nothing; esc backs out to the grants, then to the tab.
keys z % ]
expect "Audit trail"
absent "Quit warren?"
absent "warren exited"
keys Escape
expect "Access to collections"
keys Escape
expect "Documents"
absent "Access to collections"
absent " Admin "
help_fits
t kill-session -t admin

# ---- issue 26, item 12: the command line's mends, as a newcomer would type them ----
cli() { OLLAMA_HOST="127.0.0.1:$fast" "$work/warren" -w "$ws" "$@"; }
# research - reads the question from stdin.
# (The run's own outcome depends on the scripted model; what counts is the question it took.)
echo "Which purge cycles does the silane procedure require?" | cli research - --no-hitl >"$work/dash.out" 2>&1 || true
cli sessions list | grep -q "Which purge cycles does the silane" || fail "research - did not research the question from stdin: $(cli sessions list)"
ok
# --resume takes a run, not the next flag; an unknown run records no job.
jobs_before=$(cli jobs list --json | jq length)
code=0
cli research --resume --yes >"$work/resume.out" 2>&1 || code=$?
[ "$code" = 2 ] && grep -q -- "--resume RUN" "$work/resume.out" || fail "research --resume --yes: exit $code, $(cat "$work/resume.out")"
ok
code=0
cli research --resume does-not-exist >"$work/resume.out" 2>&1 || code=$?
[ "$code" = 1 ] || fail "research --resume of an unknown run: exit $code, $(cat "$work/resume.out")"
[ "$(cli jobs list --json | jq length)" = "$jobs_before" ] || fail "research --resume of an unknown run recorded a job"
ok
# Ingesting documents into another collection is refused, naming theirs, unless --move.
mkdir -p "$work/mends"
echo "Nitrogen purge note: three cycles before every cylinder change." >"$work/mends/purge-note.txt"
cli ingest "$work/mends" --collection mends-a >/dev/null 2>&1 || fail "ingest into mends-a"
code=0
cli ingest "$work/mends" --collection mends-b >"$work/move.out" 2>&1 || code=$?
[ "$code" != 0 ] && grep -q "mends-a" "$work/move.out" && grep -q -- "--move" "$work/move.out" ||
	fail "ingest into another collection: exit $code, $(cat "$work/move.out")"
cli kb list --collection mends-a | grep -q "purge-note.txt" || fail "a refused ingest emptied mends-a"
ok
cli ingest "$work/mends" --collection mends-b --move >/dev/null 2>&1 || fail "ingest --move"
cli kb list --collection mends-b | grep -q "purge-note.txt" || fail "ingest --move did not move the document"
ok
# A UTF-16 text file is read, and a 5 MB line without spaces is cut into chunks.
mkdir -p "$work/mends2"
printf 'Xenon difluoride marker: the UTF-16 note is readable.\n' | iconv -f UTF-8 -t UTF-16 >"$work/mends2/utf16-note.txt"
head -c 5000000 /dev/zero | tr '\0' 'a' >"$work/mends2/one-long-line.txt"
cli ingest "$work/mends2" --collection mends-c >"$work/u16.out" 2>&1 || fail "ingest of UTF-16 and a long line: $(cat "$work/u16.out")"
grep -q "skipped 0" "$work/u16.out" || fail "a file was skipped: $(cat "$work/u16.out")"
cli search "Xenon difluoride marker" --collection mends-c | grep -q "utf16-note.txt" || fail "the UTF-16 note is not found"
chunks=$(cli kb list --collection mends-c --json | jq '[.documents[] | select(.id | endswith("one-long-line.txt")) | .chunks] | add')
[ "${chunks:-0}" -gt 10 ] || fail "a 5 MB line became $chunks chunk(s)"
ok
# A gas fill killed before its first checkpoint resumes.
OLLAMA_HOST="127.0.0.1:$slow" "$work/warren" -w "$ws" gas fill --table hmis-sample --rows 1 >/dev/null 2>&1 &
fill=$!
sleep 0.5
kill -KILL "$fill" 2>/dev/null || true
wait "$fill" 2>/dev/null || true
code=0
cli gas fill --table hmis-sample --resume >"$work/fill.out" 2>&1 || code=$?
grep -q "UNIQUE constraint" "$work/fill.out" && fail "a fill killed early can't resume: $(cat "$work/fill.out")"
[ "$code" = 0 ] || grep -q "no interrupted fill" "$work/fill.out" || fail "gas fill --resume after an early kill: exit $code, $(cat "$work/fill.out")"
ok

# A workspace an older warren indexed is re-indexed when the workbench opens it, and the
# workbench says so (the line on stderr goes under its screen): in the Log, at 80×24.
if ! command -v sqlite3 >/dev/null; then
	apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null
fi
older="$work/older"
"$work/warren" init "$older" >/dev/null
"$work/warren" -w "$older" ingest --registry sample/registry.json --embedder builtin >/dev/null
sqlite3 "$older/warren.db" "UPDATE meta SET value = '1' WHERE key = 'lexical_index_version'"
session=older
t new-session -d -s older -x 80 -y 24 "OLLAMA_HOST=127.0.0.1:$fast '$work/warren' -w '$older'; sleep 600"
expect "Research question"
keys M-5
expect "Re-indexed"
expect "indexed by an"
[ "$(sqlite3 "$older/warren.db" "SELECT value FROM meta WHERE key = 'lexical_index_version'")" != 1 ] || fail "the index version is still 1"
ok
t kill-session -t older

echo "e2e-tui: $passed passed, 0 failed"

#!/usr/bin/env bash
# End to end, as a person would: start the demo game headless with its agent,
# drive `ecsinspect attach` in tmux (views, filter, entity detail, an edit,
# pause, step, resume, navigation by handle and by reference, a refused
# filter, sorting, quit) and read the screen after each step.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
sock="e2e-$$"
port=$((20000 + RANDOM % 20000))
bin="$work/ecsinspect"
demo_pid=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  if [ -n "$demo_pid" ]; then kill "$demo_pid" 2>/dev/null || true; wait "$demo_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$bin" ./cmd/ecsinspect

# wait_log FILE TEXT PID: wait until a process started in the background
# says TEXT in its log, for as long as it runs (a busy machine starts it
# slowly: the wait is for the event, not for a time; 5 minutes at most, a
# guard against a hang), and fail with its log if it ends first.
wait_log() {
  for _ in $(seq 3000); do
    if grep -qF -- "$2" "$1" 2>/dev/null; then return 0; fi
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  echo "FAIL: never said \"$2\":"; cat "$1"; exit 1
}

"$bin" demo --headless --entities 10000 --listen "127.0.0.1:$port" > "$work/demo.log" 2>&1 &
demo_pid=$!
wait_log "$work/demo.log" "agent on" "$demo_pid"

screen() { tmux -L "$sock" capture-pane -p; }
wait_for() { # wait_for TEXT [SECONDS]: poll the screen, never a fixed sleep (20 s by default: CI runs it beside the test suite)
  for _ in $(seq $((${2:-20} * 10))); do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "FAIL: the screen never showed: $1"; echo "----- screen -----"; screen; exit 1
}
# One key per call, a moment apart: keys sent in one burst reach the
# program as a single multi-rune event, as a paste would.
keys() { for k in "$@"; do tmux -L "$sock" send-keys "$k"; sleep 0.05; done; }
step() { echo "ok: $*"; }

tmux -L "$sock" new-session -d -x 160 -y 48 "$bin attach 127.0.0.1:$port"
wait_for "Generations";                         step "attached: overview"
keys 2; wait_for "components (enter lists them)"; step "archetypes"
keys 4; wait_for "hunting";                    step "systems with timings"
wait_for "alloc/run";                          step "what each system allocates"
keys b; wait_for "pick a frame";               step "the frame timeline"
keys h h; wait_for "frame ";                   step "a frame picked, its systems listed"
keys b; wait_for "alloc/run";                  step "back to the list"
keys 5; wait_for "Born";                       step "events"
keys 6; wait_for "op       entity";            step "journal"
keys 7; wait_for "Clock";                      step "resources"
keys G; wait_for "  Herbivores = ";            step "the resource under the cursor, a field a line"
keys 3; wait_for "matches";                    step "entities"
keys m; wait_for " entities, x ";              step "the map of the entities by position"
keys + ; wait_for "cursor x ";                 step "zoomed in around the cursor"
keys m; wait_for "matches";                    step "back to the rows"
keys /; tmux -L "$sock" send-keys -l 'Energy.Value<'; wait_for "column"; step "a half-typed filter shows where it is wrong"
tmux -L "$sock" send-keys -l '200'; keys Enter; wait_for "Energy.Value<200 —"; step "filter applied by the agent"
keys Enter; wait_for "archetype";              step "entity detail"
keys j j e C-u; tmux -L "$sock" send-keys -l '777'; keys Enter
wait_for "set Position.Y: ok";                 step "edited a field live"
keys Escape; keys Space; wait_for "PAUSED";    step "paused"
# The edit reached the game: read it back with a second client.
"$bin" dump "127.0.0.1:$port" --entity 0v1 --json > "$work/dump.json"
grep -qE '"Y": (7[0-9][0-9]|8[0-4][0-9])' "$work/dump.json" || { echo "FAIL: the edit is not in the game:"; cat "$work/dump.json"; exit 1; }
step "dump reads the edited value back from the game"
"$bin" exec "127.0.0.1:$port" set 0v1 Energy.Value=90 > /dev/null
step "exec changes the game while the UI watches"
keys .; wait_for "step: ok";                   step "stepped one frame"
keys n; wait_for "Spawn an entity"; tmux -L "$sock" send-keys -l 'Age'; keys Enter; wait_for "Frames"
tmux -L "$sock" send-keys -l 'x'; keys Enter; wait_for "wants a whole number"; step "the spawn form checks a field's type"
keys BSpace; tmux -L "$sock" send-keys -l '3'; keys Enter; wait_for "spawn Age: ok"; step "spawned an entity from the form"
keys Space; wait_for "resume: ok";             step "resumed"
# Navigation: any entity by its handle, a reference followed, back.
keys o; tmux -L "$sock" send-keys -l '1v1'; keys Enter; wait_for "Entity 1v1"; step "opened 1v1 by its handle"
wait_for "parent: 0v1"; keys u; wait_for "Entity 0v1 ← 1v1"; step "followed the parent, with a breadcrumb"
keys Escape; wait_for "Entity 1v1";            step "esc went back along the way"
keys Escape 3; wait_for "matches";             step "back to the entities"
# A query the agent refuses says so in place of rows.
keys / C-u; tmux -L "$sock" send-keys -l 'Position.Z>1'; keys Enter
wait_for "the agent refused the query"; wait_for "no field Z"; step "a refused filter shows its error, 0 matches"
keys Escape; wait_for "all entities —"
# The table: move to a column and sort by it, both ways.
keys l l s; wait_for "sorted by Position.Y"; step "sorted by a column"
keys s; wait_for "sorted by -Position.Y";    step "sorted the other way"
keys s
tmux -L "$sock" resize-window -x 80 -y 24 2>/dev/null || true
keys 1; wait_for "Generations";                step "overview at 80x24"
screen > "$work/screen.txt"
keys q
for _ in $(seq 50); do tmux -L "$sock" has-session 2>/dev/null || break; sleep 0.1; done
if tmux -L "$sock" has-session 2>/dev/null; then echo "FAIL: q did not quit"; exit 1; fi
step "quit"

# Record 30 frames of the running game at 20 Hz and read them back (the
# duration only guards against a hang: a busy machine codes frames slower).
"$bin" record "127.0.0.1:$port" -o "$work/run.ecsrec" --frames 30 --hz 20 --duration 2m > "$work/record.log"
"$bin" dump "$work/run.ecsrec" --json > "$work/rec.json"
frames=$(sed -n 's/.*"frames": \([0-9]*\).*/\1/p' "$work/rec.json")
first=$(sed -n 's/.*"first_tick": \([0-9]*\).*/\1/p' "$work/rec.json")
last=$(sed -n 's/.*"last_tick": \([0-9]*\).*/\1/p' "$work/rec.json")
if [ "${frames:-0}" -ne 30 ] || [ "${last:-0}" -le "${first:-0}" ]; then
  echo "FAIL: the recording holds $frames frames, ticks $first..$last"; cat "$work/record.log"; exit 1
fi
step "recorded $frames frames, ticks $first to $last"

# Every entity is in every frame: the entity at the first tick, then a tick
# between two recorded ones answers as of the one before, and two ticks compare.
"$bin" dump "$work/run.ecsrec" --tick "$first" --query Position --limit 1 --json > "$work/first.json"
grep -q "\"tick\": $first," "$work/first.json" && grep -q '"total": [1-9]' "$work/first.json" \
  || { echo "FAIL: no entities at tick $first"; cat "$work/first.json"; exit 1; }
step "the recording holds the entities of tick $first"
# The recorder takes a frame when one is due, so which ticks it holds varies:
# try the ticks after the first until one falls between recorded ones.
found=""
for t in $(seq $((first + 1)) $((first + 10))); do
  "$bin" dump "$work/run.ecsrec" --tick "$t" --json > "$work/asof.json"
  if grep -q '"as_of": "tick' "$work/asof.json"; then found=$t; break; fi
done
[ -n "$found" ] || { echo "FAIL: no tick between recorded ones says so"; head -20 "$work/asof.json"; exit 1; }
step "a tick between recorded ones says which state it shows"
"$bin" dump "$work/run.ecsrec" --diff "$first" "$last" > "$work/diff.txt"
grep -q "tick $first → tick $last: .* changed" "$work/diff.txt" || { echo "FAIL: diff"; head "$work/diff.txt"; exit 1; }
step "compared the first and last ticks: $(head -1 "$work/diff.txt")"

# Review it offline: scrub to the start, look at the entities then.
tmux -L "$sock" new-session -d -x 120 -y 30 "$bin open $work/run.ecsrec"
wait_for "REVIEW";                             step "opened the recording"
keys '<'; wait_for "frame 1/";                   step "went to the first frame"
keys 3; wait_for "matches";                    step "entities at that tick"
keys q

# The debugger, as a stranger finds the demo's planted bug: a wide
# log-only watch, its hits grouped by writer, the narrower watch they
# point to, and the stop inside the frame right after the bad write.
bugport=$((port + 1))
"$bin" demo --headless --entities 3000 --bug starve --listen "127.0.0.1:$bugport" > "$work/bug.log" 2>&1 &
bug_pid=$!
wait_log "$work/bug.log" "agent on" "$bug_pid"
tmux -L "$sock" kill-server 2>/dev/null || true
tmux -L "$sock" new-session -d -x 160 -y 48 "$bin attach 127.0.0.1:$bugport"
wait_for "Generations"
keys w; tmux -L "$sock" send-keys -l -- '--log Energy.Value<0'; keys Enter
wait_for "watch Energy.Value<0: ok";          step "set a wide log-only watchpoint"
keys 8; wait_for "by hunger on Energy" 60;     step "the watch view groups its hits by writer"
wait_for "⇒ narrower: Energy.Value<-20" 60;    step "and offers the watch only grazing's writes reach"
# The cursor to the suggestion: the rows above it are the watchpoint and its groups.
above=$(screen | sed -n '/^ *1  value/,/⇒ narrower/p' | wc -l)
for _ in $(seq $((above - 1))); do keys j; done
keys Enter
wait_for "  Energy.Value<-20" 30;           step "set the narrower watchpoint from the suggestion"
wait_for "STOPPED MID-FRAME" 60; wait_for "after grazing, system"; step "the game stopped inside the frame, right after grazing"
keys 4; wait_for "▶ grazing";                  step "the systems view marks where the frame stopped"
victim=$(screen | grep -o 'Energy.Value<-20: Energy of [0-9]*v[0-9]*' | head -1 | sed 's/.* of //' || true)
[ -n "$victim" ] || { keys 8; victim=$(screen | grep -o 'Energy.Value<-20: Energy of [0-9]*v[0-9]*' | head -1 | sed 's/.* of //' || true); }
[ -n "$victim" ] || { echo "FAIL: no hit of the narrower watchpoint on screen"; screen; exit 1; }
keys o; tmux -L "$sock" send-keys -l "$victim"; keys Enter
wait_for "Entity $victim"; wait_for "Value = -40"; step "opened the entity alive with the bad value"
wait_for "written by grazing in frame";        step "the detail names grazing as the writer of that frame"
keys Escape :; tmux -L "$sock" send-keys -l 'pin mean Energy.Value Herbivore'; keys Enter
wait_for "pinned mean Energy.Value Herbivore"; step "pinned the herbivores' mean energy"
keys 9; wait_for "1 mean Energy.Value Herbivore  now"; wait_for "└tick"; step "the chart draws it"
keys R; tmux -L "$sock" send-keys -l -- '-30'; keys Enter
wait_for "rewound to tick";                    step "rewound the live game 30 ticks"
keys .; wait_for "step: ok";                   step "stepped forward from there"
keys q
kill "$bug_pid" 2>/dev/null || true; wait "$bug_pid" 2>/dev/null || true

# A fleet: a broker and six demo games in one process, the Fleet view at
# 80x24, a query on every instance, a fleet watchpoint that fires on the
# one with the bug, attaching to it, and back.
"$bin" fleet --instances 6 --entities 1500 --port 0 --bug starve > "$work/fleet.log" 2>&1 &
fleet_pid=$!
wait_log "$work/fleet.log" "ecsinspect attach nats://" "$fleet_pid"
url=$(grep -o 'nats://127.0.0.1:[0-9]*' "$work/fleet.log" | head -1 || true)
[ -n "$url" ] || { echo "FAIL: the fleet did not say its URL:"; cat "$work/fleet.log"; exit 1; }
tmux -L "$sock" kill-server 2>/dev/null || true
tmux -L "$sock" new-session -d -x 80 -y 24 "$bin attach $url"
wait_for "6 instances, 6 live";                step "the Fleet view lists six instances at 80x24"
wait_for "demo-06"
keys :; tmux -L "$sock" send-keys -l 'query Predator'; keys Enter
wait_for "Predator: 6 of 6 instances hold a match" 30; step "a query on every instance"
keys Escape :; tmux -L "$sock" send-keys -l 'watch Energy.Value<-20'; keys Enter
wait_for "done on 6 instances, 0 failed" 30;   step "a watchpoint set on the fleet"
wait_for "a watchpoint fired on demo-" 120;    step "it fired on one instance, named: $(screen | grep -o 'fired on demo-[0-9]*')"
keys Enter; wait_for "STOPPED MID-FRAME" 30;   step "enter attached to it, stopped at the write"
keys F; wait_for "6 instances" 30;             step "F came back to the fleet"
"$bin" dump --all "$url" > "$work/fleet.txt"
[ "$(grep -c PAUSED "$work/fleet.txt")" = 1 ] || { echo "FAIL: want one instance paused:"; cat "$work/fleet.txt"; exit 1; }
step "dump --all: only that instance is paused"
keys q
kill "$fleet_pid" 2>/dev/null || true; wait "$fleet_pid" 2>/dev/null || true
echo "e2e: all steps passed"

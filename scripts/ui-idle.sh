#!/bin/bash
# The UI's own CPU while it sits on each view of a running game, as a
# person would see it: attach in tmux at 160x48, each view shown for 15 s,
# the process's user+system time read from /proc.
#
#   go run ./cmd/demo --listen 127.0.0.1:7777 &   # the 10,000-animal demo
#   scripts/ui-idle.sh 127.0.0.1:7777
set -euo pipefail
addr=${1:-127.0.0.1:7777}
bin=$(mktemp -d)/ecsinspect
go build -o "$bin" ./cmd/ecsinspect
tmux kill-session -t idle 2>/dev/null || true
tmux new-session -d -s idle -x 160 -y 48 "$bin attach $addr"
sleep 3
pid=$(pgrep -f "^$bin attach $addr" | head -1)
tick=$(getconf CLK_TCK)
for v in 1 2 3 4 5 6 7 8 9 0; do
  tmux send-keys -t idle "$v"
  sleep 2
  a=$(awk '{print $14+$15}' /proc/$pid/stat)
  sleep 15
  b=$(awk '{print $14+$15}' /proc/$pid/stat)
  awk -v v="$v" -v a="$a" -v b="$b" -v t="$tick" 'BEGIN { printf "view %s: %.1f%% of a core\n", v, (b-a)*100/t/15 }'
done
tmux kill-session -t idle

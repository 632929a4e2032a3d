#!/bin/bash
# The whole-session memory of the PAI replay at released scale, in tmux:
# load, play at x1800 for 12 s, `g` to days 10, 20, 35 and 50 each followed
# by a `b`, the what-if for 40 s, a drill-down; VmRSS and VmHWM after each.
# usage: benches/pai_session.sh BINARY DIR   (DIR from `tracetui gen pai
# --jobs 1260000 --seed 7 --out DIR`)
set -u
BIN=$(realpath "$1"); DIR=$2
tmux kill-session -t pai-session 2>/dev/null
tmux new -d -s pai-session -x 120 -y 40 "$BIN pai $DIR; sleep 3"
sleep 1
PID=$(pgrep -n -f "$BIN pai $DIR")
rss() { awk '/VmRSS|VmHWM/{printf "%s %d MiB  ", $1, $2/1024}' "/proc/$PID/status"; echo "($1)"; }
t0=$(date +%s.%N)
until tmux capture-pane -p -t pai-session | grep -q "GPU"; do sleep 0.2; done
echo "first frame after $(echo "$(date +%s.%N) - $t0" | bc) s"; rss "first frame"
tmux send-keys -t pai-session "+" "+" "+" "+"; sleep 12; rss "after 12 s of play"
for d in "day 10" "day 20" "day 35" "day 50"; do
  tmux send-keys -t pai-session g; sleep 0.3
  tmux send-keys -t pai-session "$d" Enter; sleep 4; rss "after g $d"
  tmux send-keys -t pai-session b; sleep 2; rss "after b"
done
tmux send-keys -t pai-session w; sleep 40; rss "after the what-if, 40 s"
tmux send-keys -t pai-session Escape; sleep 1
tmux send-keys -t pai-session Enter; sleep 3; rss "after a drill-down"
tmux send-keys -t pai-session Escape q; sleep 2
tmux kill-session -t pai-session 2>/dev/null

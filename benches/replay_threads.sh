#!/usr/bin/env bash
# CPU of each thread of the live replay, playing at x1800 (BENCHMARKS.md,
# "Live replay: logging's share of the CPU"). Starts the replay of the
# 1.26 M-job generated ITP trace in a detached tmux window at 120x40,
# presses space and `+` up to x1800, then reads every thread's user and
# system ticks (1/100 s) and voluntary wake-ups twice, SECONDS apart.
#
# Usage: benches/replay_threads.sh [BINARY] [SECONDS]
#   BINARY   default target/x86_64-unknown-linux-gnu/release/tracetui (build it first)
#   SECONDS  default 30
# Needs tmux and Linux /proc. Run it twice per build, alternating builds.
set -euo pipefail
B=${1:-target/x86_64-unknown-linux-gnu/release/tracetui}
S=${2:-30}
T=target/bench-data/itp-1260000-seed1-6744-0.9.csv
if [ ! -f "$T" ]; then
  mkdir -p target/bench-data
  "$B" gen itp --jobs 1260000 --seed 1 --gpus 6744 --load 0.9 --out "$T"
fi
W=tracetui-threads-$$
tmux new -d -s "$W" -x 120 -y 40 "$B itp $T --gpus 6744 --fps 30; sleep 3"
trap 'tmux kill-session -t "$W" 2>/dev/null || true' EXIT
sleep 3
tmux send-keys -t "$W" " "
for _ in $(seq 1 12); do
  s=$(tmux capture-pane -t "$W" -p | head -1 | grep -o "x[0-9]*" | tail -1 || true)
  [ "$s" = "x1800" ] && break
  tmux send-keys -t "$W" "+"
  sleep 0.3
done
# The pane runs a shell; the replay is its child.
PID=$(pgrep -P "$(tmux list-panes -t "$W" -F '#{pane_pid}')" -n)
snap() {
  for t in /proc/"$PID"/task/*; do
    echo "$(tr ' ' _ < "$t"/comm) $(awk '{print $14, $15}' "$t"/stat) $(awk '/^voluntary_ctxt/ {print $2}' "$t"/status)"
  done | sort
}
a=$(snap); sleep "$S"; b=$(snap)
echo "thread user_ticks sys_ticks wakeups (over $S s at $s)"
paste <(echo "$a") <(echo "$b") | awk '{print $1, $6-$2, $7-$3, $8-$4}'
tmux send-keys -t "$W" q

#!/usr/bin/env bash
# CPU time of the Alibaba PAI simulator against tracetui on the released ITP
# cluster04, one 1,024-GPU node and 128 nodes x 8, the simulator's FIFO
# (alloc 8) and SJF (alloc 0).
#
#   git clone https://github.com/alibaba/clusterdata   # measured at 7a6c496e
#   python3 -m venv /tmp/alisim-venv && /tmp/alisim-venv/bin/pip install numpy matplotlib
#   PYTHON=/tmp/alisim-venv/bin/python benches/alibaba.sh clusterdata/cluster-trace-gpu-v2020/simulator
#
# Usage: benches/alibaba.sh SIMDIR [TRACETUI_BIN]
# Env: RUNS (3) rounds; REPS (20) perf repeats of the tracetui command per
# round; ALLOCS ("8 0") simulator policies; TRACE (../shared/traces/itp/raw/
# cluster04.csv); PYTHON (python3); LOCK: a file to flock around each
# measurement (e.g. /tmp/cargo.lock on a shared machine). Needs perf.
#
# The simulator's FIFO starts, in arrival order, every job that fits (a job
# that does not fit is skipped, not waited for): tracetui's first-fit. Its SJF
# does the same in run-time order: tracetui's sjf. The simulator is timed with
# time.process_time() around simulator_go (load apart); tracetui's whole `sim`
# command with perf task-clock, and its engine alone as the task-clock that
# K more runs to the end add to one `tracetui bench` (divided by K).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
simdir=${1:?usage: benches/alibaba.sh SIMDIR [TRACETUI_BIN]}
bin=${2:-$root/target/x86_64-unknown-linux-gnu/release/tracetui}
trace=${TRACE:-$root/../shared/traces/itp/raw/cluster04.csv}
py=${PYTHON:-python3}
runs=${RUNS:-3}
reps=${REPS:-20}
allocs=${ALLOCS:-8 0}
k=50
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

locked() { if [[ -n ${LOCK:-} ]]; then flock "$LOCK" "$@"; else "$@"; fi; }

# Mean task-clock (ms) of REPS runs of a command.
task_ms() {
    local reps=$1
    shift
    locked perf stat -r "$reps" -x, -e task-clock -o "$work/perf" "$@" >/dev/null 2>&1
    awk -F, '$3 ~ /^task-clock/ { print $1 }' "$work/perf"
}

policy_of() { case $1 in 8) echo first-fit ;; 0) echo sjf ;; *) echo "alloc $1?" >&2; exit 2 ;; esac; }

echo "simulator: $simdir ($(git -C "$simdir" log -1 --format='%h %cs' 2>/dev/null || echo 'not a git checkout'))"
echo "tracetui:  $bin ($("$bin" --version))"
"$py" "$root/benches/alibaba/convert.py" "$trace" "$work/one.csv"
"$py" "$root/benches/alibaba/convert.py" "$trace" "$work/nodes.csv" --gpus-per-node 8

results=$work/results.jsonl
for round in $(seq "$runs"); do
    for shape in "1 1024 one" "128 8 nodes"; do
        read -r nodes per csv <<<"$shape"
        for alloc in $allocs; do
            pol=$(policy_of "$alloc")
            sim=$(locked "$py" "$root/benches/alibaba/drive.py" "$simdir" "$work/$csv.csv" \
                --nodes "$nodes" --gpus-per-node "$per" --alloc "$alloc")
            args=(itp "$trace" --gpus 1024 --gpus-per-node "$per")
            ours=$("$bin" sim "${args[@]}" --policy "$pol" --format json 2>/dev/null | tr -d '\n')
            whole=$(task_ms "$reps" "$bin" sim "${args[@]}" --policy "$pol" --format json)
            many=$(for _ in $(seq $((k + 1))); do echo "$pol"; done | paste -sd,)
            one=$(task_ms 3 "$bin" bench "${args[@]}" --policies "$pol")
            more=$(task_ms 3 "$bin" bench "${args[@]}" --policies "$many")
            echo "{\"round\": $round, \"shape\": \"${nodes}x$per\", \"policy\": \"$pol\", \"sim\": $sim, \"ours\": $ours," \
                "\"whole_ms\": $whole, \"engine_ms\": $(awk -v a="$more" -v b="$one" -v k=$k 'BEGIN { print (a - b) / k }')}" >>"$results"
            echo "round $round ${nodes}x$per alloc $alloc/$pol: simulator $(grep -o '"go_cpu_s": [0-9.]*' <<<"$sim" | cut -d' ' -f2) s, tracetui $whole ms" >&2
        done
    done
done

"$py" - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def mr(v, f):
    return f"{f(statistics.median(v))} ({f(min(v))}-{f(max(v))})"
print("\nshape     policy     simulator CPU s       tracetui sim CPU ms   engine-only ms     sim/whole  sim/engine  mean JCT sim / tracetui (s)  jobs")
for key in dict.fromkeys((r["shape"], r["policy"]) for r in rows):
    rs = [r for r in rows if (r["shape"], r["policy"]) == key]
    sim = [r["sim"]["go_cpu_s"] for r in rs]
    whole = [r["whole_ms"] for r in rs]
    eng = [r["engine_ms"] for r in rs]
    s, o = rs[0]["sim"], rs[0]["ours"]
    m = statistics.median
    print(f"{key[0]:<9} {key[1]:<10} {mr(sim, lambda x: f'{x:.1f}'):<21} {mr(whole, lambda x: f'{x:.1f}'):<21} "
          f"{mr(eng, lambda x: f'{x:.2f}'):<18} {m(sim) * 1e3 / m(whole):>8.0f}x {m(sim) * 1e3 / m(eng):>9.0f}x  "
          f"{s['mean_jct_s']:.1f} / {o['jct_s']['mean']:.1f}  {s['jobs_done']}/{o['jobs_done']}")
print(f"simulator load (CSV to jobs, not in its figure): {m([r['sim']['load_cpu_s'] for r in rows]):.2f} s")
EOF

#!/bin/bash
# One big node against many small ones, the engine alone: each binary's
# `tracetui bench itp` on the released ITP cluster04 with the policy listed
# 51 times, as one 1,024-GPU node and as 128 nodes of 8; the median run
# time of the last 50 runs, ROUNDS rounds alternating the binaries; the
# median of the rounds' medians and their range.
# usage: benches/big_node.sh ROUNDS POLICY BINARY...   (e.g. 5 fifo a b)
# The trace: TRACE, or ../shared/traces/itp/raw/cluster04.csv.
set -eu
ROUNDS=$1; POLICY=$2; shift 2
F=${TRACE:-../shared/traces/itp/raw/cluster04.csv}
LIST=$(printf "$POLICY,%.0s" $(seq 51)); LIST=${LIST%,}
OUT=$(mktemp)
for _ in $(seq "$ROUNDS"); do
  for b in "$@"; do
    for per in 8 1024; do
      "$b" bench itp "$F" --gpus 1024 --gpus-per-node "$per" --policies "$LIST" 2>&1 |
        sed -n 's/.*to the end.*run \([0-9.]*\) ms.*/\1/p' | tail -50 |
        python3 -c "import statistics,sys; print('$b', $per, statistics.median(float(l) for l in sys.stdin))"
    done
  done
done > "$OUT"
python3 - "$OUT" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, per, t = line.split()
    d[(b, int(per))].append(float(t))
for (b, per), v in sorted(d.items()):
    print(f"{b:30s} {per:5d} GPUs/node  median {statistics.median(v):.3f} ms  range {min(v):.2f} - {max(v):.2f}  n={len(v)}")
PY
rm -f "$OUT"

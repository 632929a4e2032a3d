#!/bin/bash
# Two or more builds side by side: each binary's `tracetui bench itp` on the
# 1.26 M-job trace in turn, ROUNDS rounds; the median and range of the load
# and of each policy's time to the end, per binary.
# usage: benches/alternate.sh ROUNDS POLICIES BINARY...   (e.g. 5 fifo,first-fit a b)
# The trace is made by `cargo bench --bench reference` (or `tracetui gen itp
# --jobs 1260000 --seed 1 --gpus 6744 --load 0.9 --out FILE`).
set -eu
ROUNDS=$1; POLICIES=$2; shift 2
F=${TRACE:-target/bench-data/itp-1260000-seed1-6744-0.9.csv}
OUT=$(mktemp)
for _ in $(seq "$ROUNDS"); do
  for b in "$@"; do
    "$b" bench itp "$F" --gpus 6744 --policies "$POLICIES" 2>&1 |
      awk -v b="$b" '/^load /{print b, "load", $2} /to the end/{print b, $1, $2}'
  done
done > "$OUT"
python3 - "$OUT" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, p, t = line.split()
    d[(b, p)].append(float(t))
for (b, p), v in sorted(d.items()):
    print(f"{b:30s} {p:12s} median {statistics.median(v):.3f} s  range {min(v):.2f} - {max(v):.2f}  n={len(v)}")
PY
rm -f "$OUT"

#!/bin/bash
# ElasticFlow's Figure 8b: one `compare` per ITP cluster with the
# schedulers tracetui has of those the figure compares (ElasticFlow =
# elasticflow, EDF = edf-elastic, Gandiva = gandiva, Tiresias = las;
# themis is not built), the A100 tables and the spec ElasticFlow's
# run_fig8b.sh gives each cluster (n64g8: 1, 2, 3, 5, 6; n128g8: 4, 7, 8,
# 9; n32g8: 10).
#
# The clusters are every clusterNN.csv in ITP (default: the shared
# traces, which hold 01-05). All ten are in microsoft/elasticflow-traces,
# data/elasticflow-traces.tar.gz (MIT); unpack it anywhere and point ITP
# there (never into the repository).
#
# LANES compares run at once (default 1: one after another); each cluster
# starts when a lane is free, largest file first. ROUNDS rounds; per
# cluster the median wall time and its range, and of the rounds' wall
# times from the first start to the last end, the median and range.
# usage: [ITP=DIR] [LANES=N] benches/fig8b.sh ROUNDS [BINARY]
set -eu
ROUNDS=$1; BIN=$(realpath "${2:-target/x86_64-unknown-linux-gnu/release/tracetui}")
A=$(realpath "${ARTIFACT:-../shared/traces/elasticflow-artifact}")
T=$(realpath "${ITP:-../shared/traces/itp/elasticflow}")
POLICIES=${POLICIES:-elasticflow,edf-elastic,gandiva,las}
LANES=${LANES:-1}
OUT=$(mktemp)
one() { # ROUND FILE
  local c s t0 t1
  c=$(basename "$2" .csv); c=${c#cluster}
  case $c in 01|02|03|05|06) s=n64g8;; 04|07|08|09) s=n128g8;; *) s=n32g8;; esac
  t0=$(date +%s%N)
  "$BIN" compare itp "$2" --cluster "$A/cluster_specs/$s.csv" \
    --throughputs "$A/throughputs_A100" --policies "$POLICIES" >/dev/null 2>&1
  t1=$(date +%s%N)
  echo "$1 $c $(( (t1 - t0) / 1000000 ))"
}
export -f one; export BIN A POLICIES
FILES=$(ls -S "$T"/cluster[0-9][0-9].csv 2>/dev/null) || {
  echo "fig8b.sh: no clusterNN.csv in $T (set ITP to the unpacked traces)" >&2; exit 2; }
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s%N)
  printf '%s\n' $FILES | xargs -P "$LANES" -I{} bash -c "one $r {}" >> "$OUT"
  t1=$(date +%s%N)
  echo "$r all $(( (t1 - t0) / 1000000 ))" >> "$OUT"
done
python3 - "$OUT" "$LANES" <<'PY'
import collections, statistics, sys
per = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, c, t = line.split()
    per[c].append(float(t) / 1000)
for c, v in sorted(per.items()):
    name = "all (wall)" if c == "all" else f"cluster{c}"
    print(f"{name:11} median {statistics.median(v):7.1f} s  range {min(v):.1f} - {max(v):.1f}  n={len(v)}")
print(f"lanes {sys.argv[2]}")
PY
rm -f "$OUT"
